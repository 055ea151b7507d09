/** The orphan sweep (docs/iceberg.md, "Orphan files"): the files under an Iceberg table's name directory that nothing references, found past a safety age, reported, and deleted only when asked and only through the catalog's confinement. */
package lake.orphans;
