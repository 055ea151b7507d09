package lake.meta.rocks;

/**
 * Counters of the store's single writer, for tests and operators.
 *
 * @param groups    groups the writer has evaluated (one or more mutations each)
 * @param syncs     fsynced WriteBatch writes; a group whose mutations all found their condition
 *                  false writes nothing and needs no fsync
 * @param mutations mutations the writer has evaluated, applied or not
 */
public record RocksStats(long groups, long syncs, long mutations) {}
