package lake.api;

/** On RocksDB, the default backend of {@link RecordedLeaderTest}. */
class RocksTransactionApiTest extends TransactionApiTest {}
