package lake.server;

/** On RocksDB, the default backend of {@link RecordedLeaderTest}. */
class RocksCatalogApiTest extends CatalogApiContract {}
