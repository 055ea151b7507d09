package lake.node;

import lake.metasrv.NodeClock;

import java.util.concurrent.atomic.AtomicLong;

/** A node clock the test moves by hand: wall time for lease records, monotonic for authority. */
public final class ManualClock implements NodeClock {
    private final AtomicLong wall;
    private final AtomicLong mono = new AtomicLong(1_000_000_000L);

    public ManualClock(long wallMillis) {
        wall = new AtomicLong(wallMillis);
    }

    @Override public long wallMillis() { return wall.get(); }
    @Override public long monoNanos() { return mono.get(); }

    public void setWall(long ms) { wall.set(ms); }
    public void advanceWall(long ms) { wall.addAndGet(ms); }
    public void advanceMono(long ms) { mono.addAndGet(ms * 1_000_000L); }
}
