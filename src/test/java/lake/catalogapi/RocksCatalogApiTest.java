package lake.catalogapi;

import lake.api.RecordedLeaderTest;

/** On RocksDB, the default backend of {@link RecordedLeaderTest}. */
class RocksCatalogApiTest extends CatalogApiContract {}
