/** The table catalog as pure logic over a CatalogPort: namespaces, registrations, versions, tombstones, location assignments, the directory generation and consistent snapshots (its records are lake.catalog.model's). */
package lake.catalog;
