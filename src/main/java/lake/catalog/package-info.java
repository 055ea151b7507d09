/** The table catalog as pure logic over a CatalogPort: namespaces, registrations, versions, tombstones, the directory generation and consistent snapshots. */
package lake.catalog;
