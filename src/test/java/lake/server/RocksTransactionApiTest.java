package lake.server;

/** On RocksDB, the default backend of {@link RecordedLeaderTest}. */
class RocksTransactionApiTest extends TransactionApiTest {}
