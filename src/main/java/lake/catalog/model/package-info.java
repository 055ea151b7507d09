/**
 * The catalog's records as stored and read: the key layout ({@code CatalogKeys}), registrations,
 * tombstones, namespace records, columns, location assignments, their JSON ({@code CatalogJson}),
 * the rules names and properties obey ({@code CatalogNames}), incarnation ids ({@code UuidV7}),
 * the pages and snapshots the catalog answers, and its typed errors ({@code CatalogException}).
 * Values only: {@code lake.catalog.Catalog} decides what to write and when.
 */
package lake.catalog.model;
