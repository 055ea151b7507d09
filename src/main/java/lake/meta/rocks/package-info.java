/** The embedded RocksDB backend of the MetaStore: one fsynced writer with group commit, reads on a worker pool. */
package lake.meta.rocks;
