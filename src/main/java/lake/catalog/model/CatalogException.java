package lake.catalog.model;

/**
 * Every refusal the catalog itself decides. Each kind has a stable {@link #code()} and the one HTTP
 * status it maps to; messages name the namespace, table or field and what is wrong. Faults of the
 * node's write path (not leader, fenced, backend errors) are not wrapped: they pass through as the
 * node raised them.
 */
public abstract sealed class CatalogException extends RuntimeException {

    private CatalogException(String message) {
        super(message);
    }

    /** The stable error code of the HTTP envelope and the bus. */
    public abstract String code();

    /** The HTTP status this refusal maps to. */
    public abstract int httpStatus();

    /** Whether the same request may succeed if sent again unchanged. */
    public boolean retryable() { return false; }

    /** A name, column, type, version, limit, continuation or property that breaks the catalog's rules. 400. */
    public static final class InvalidArgument extends CatalogException {
        public InvalidArgument(String message) { super(message); }
        @Override public String code() { return "invalid_argument"; }
        @Override public int httpStatus() { return 400; }
    }

    /** The namespace, table or tombstone does not exist. 404. */
    public static sealed class NotFound extends CatalogException {
        public NotFound(String message) { super(message); }
        @Override public String code() { return "not_found"; }
        @Override public int httpStatus() { return 404; }
    }

    /**
     * The namespace itself does not exist (not only the table or tombstone in it): the same code
     * and status, told apart by type where a face answers the two differently (Iceberg's
     * {@code NoSuchNamespaceException} against {@code NoSuchTableException}).
     */
    public static final class NoNamespace extends NotFound {
        public NoNamespace(String ns) { super("namespace '" + ns + "' does not exist"); }
    }

    /** The namespace, table or tombstone to create exists already. 409. */
    public static sealed class AlreadyExists extends CatalogException {
        public AlreadyExists(String message) { super(message); }
        @Override public String code() { return "already_exists"; }
        @Override public int httpStatus() { return 409; }
    }

    /**
     * A dropped table whose purge has claimed a batch (files may be gone) cannot be undropped,
     * under any name: the same code and status as {@link AlreadyExists}, told apart by type so a
     * face never advises another name.
     */
    public static final class BeingPurged extends AlreadyExists {
        public BeingPurged(String message) { super(message); }
    }

    /** A location the catalog assigned to one table, asked for by another: assigned once, ever. 409. */
    public static final class LocationTaken extends CatalogException {
        public LocationTaken(String message) { super(message); }
        @Override public String code() { return "location_taken"; }
        @Override public int httpStatus() { return 409; }
    }

    /** A namespace that still holds tables cannot be dropped. 409. */
    public static final class NamespaceNotEmpty extends CatalogException {
        public NamespaceNotEmpty(String message) { super(message); }
        @Override public String code() { return "namespace_not_empty"; }
        @Override public int httpStatus() { return 409; }
    }

    /** A version commit whose expected version is not the table's current version. 409. */
    public static final class VersionConflict extends CatalogException {
        private final long currentVersion;

        public VersionConflict(String table, long expectedVersion, long currentVersion) {
            super("table " + table + " is at version " + Long.toUnsignedString(currentVersion)
                    + ", not the expected version " + Long.toUnsignedString(expectedVersion));
            this.currentVersion = currentVersion;
        }

        /** The table's current version (unsigned 64-bit). */
        public long currentVersion() { return currentVersion; }
        @Override public String code() { return "version_conflict"; }
        @Override public int httpStatus() { return 409; }
    }

    /** A version commit for an incarnation the table no longer has: it was dropped and re-created. 409. */
    public static final class IncarnationMismatch extends CatalogException {
        public IncarnationMismatch(String message) { super(message); }
        @Override public String code() { return "incarnation_mismatch"; }
        @Override public int httpStatus() { return 409; }
    }

    /** Concurrent changes kept invalidating the reads a mutation or snapshot depends on; retry later. 503. */
    public static final class Contended extends CatalogException {
        public Contended(String message) { super(message); }
        @Override public String code() { return "contended"; }
        @Override public int httpStatus() { return 503; }
        @Override public boolean retryable() { return true; }
    }

    /**
     * A stored catalog record (registration, namespace record, tombstone) that does not parse. The
     * catalog refuses to guess from damaged bytes and writes nothing. 500.
     */
    public static final class CorruptRecord extends CatalogException {
        public CorruptRecord(String message) { super(message); }
        @Override public String code() { return "corrupt_record"; }
        @Override public int httpStatus() { return 500; }
    }

    /**
     * A pointer swap whose table no longer points where the caller's base did: someone else
     * committed in between. Nothing was written. 409.
     */
    public static final class PointerMoved extends CatalogException {
        public PointerMoved(String message) { super(message); }
        @Override public String code() { return "pointer_moved"; }
        @Override public int httpStatus() { return 409; }
    }
}
