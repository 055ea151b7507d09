package lake.metasrv;

/** Why Metasrv refused a client mutation before or instead of applying it. Nothing was written. */
public abstract sealed class MetasrvException extends RuntimeException {
    private MetasrvException(String message) {
        super(message, null, false, false);
    }

    /** This node has no live authority to publish: not the leader, or past its local deadline. */
    public static final class NotLeader extends MetasrvException {
        private final String leader;
        public NotLeader(String message, String leader) { super(message); this.leader = leader; }
        /** The leader as last seen, or {@code null}. */
        public String leader() { return leader; }
    }

    /** The client named an epoch other than the one this node leads under. */
    public static final class EpochMismatch extends MetasrvException {
        public EpochMismatch(String message) { super(message); }
    }

    /** The lease moved away from this node: its guard no longer holds, so the write was refused. */
    public static final class Fenced extends MetasrvException {
        public Fenced(String message) { super(message); }
    }
}
