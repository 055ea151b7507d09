package lake.metasrv;

/**
 * The two clocks a node reads. Wall time is written into lease records (shared with other nodes);
 * monotonic time bounds this node's own authority and never goes backwards. Injected so tests can
 * freeze or skew either one.
 */
public interface NodeClock {
    long wallMillis();

    long monoNanos();

    NodeClock SYSTEM = new NodeClock() {
        @Override public long wallMillis() { return System.currentTimeMillis(); }
        @Override public long monoNanos() { return System.nanoTime(); }
    };
}
