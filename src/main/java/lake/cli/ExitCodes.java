package lake.cli;

import lake.client.model.MetasrvException;

/**
 * lakectl's exit codes (docs/cli.md), one place: 0 done; 1 the condition did not hold
 * ({@code applied:false}) or the key, namespace or table was not found; 2 usage or invalid
 * argument; 3 unavailable after retries (no leader, store down, nothing reachable, or a server
 * fault); 4 outcome unknown; 5 unauthorized or forbidden; 6 fenced or epoch mismatch.
 */
final class ExitCodes {
    private ExitCodes() {}

    static final int OK = 0;
    static final int NOT_APPLIED = 1;
    static final int USAGE = 2;
    static final int UNAVAILABLE = 3;
    static final int OUTCOME_UNKNOWN = 4;
    static final int ACCESS = 5;
    static final int FENCED = 6;

    /** The exit code of a failure. */
    static int of(Throwable t) {
        if (!(t instanceof MetasrvException e)) return t instanceof IllegalArgumentException ? USAGE : UNAVAILABLE;
        if (e instanceof MetasrvException.OutcomeUnknown) return OUTCOME_UNKNOWN;
        if (e instanceof MetasrvException.Unauthorized || e instanceof MetasrvException.Forbidden) return ACCESS;
        if (e instanceof MetasrvException.Fenced || e instanceof MetasrvException.EpochMismatch) return FENCED;
        if (e instanceof MetasrvException.InvalidArgument || e instanceof MetasrvException.TooLarge) return USAGE;
        if (e instanceof MetasrvException.NotFound || e instanceof MetasrvException.AlreadyExists
                || e instanceof MetasrvException.VersionConflict || e instanceof MetasrvException.IncarnationMismatch
                || e instanceof MetasrvException.NamespaceNotEmpty) return NOT_APPLIED;
        return UNAVAILABLE;
    }

    /** One line naming what went wrong: the API's code and message. */
    static String describe(Throwable t) {
        if (t instanceof MetasrvException e) return e.code() + ": " + oneLine(e.getMessage());
        return oneLine(String.valueOf(t.getMessage() == null ? t : t.getMessage()));
    }

    /**
     * Why file {@code path} could not be used, then the path once ({@code no such file: …},
     * {@code is a directory, not a file: …}, {@code permission denied: …}), as lake.config words
     * it for the server: the JDK's messages name the path only.
     */
    static String fileProblem(java.nio.file.Path path, java.io.IOException e) {
        String where = e instanceof java.nio.file.FileSystemException f && f.getFile() != null ? f.getFile() : String.valueOf(path);
        if (e instanceof java.nio.file.NoSuchFileException) return "no such file: " + where;
        if (e instanceof java.nio.file.AccessDeniedException) return "permission denied: " + where;
        if (java.nio.file.Files.isDirectory(path)) return "is a directory, not a file: " + path;
        if (e instanceof java.nio.file.FileSystemException f && "Not a directory".equals(f.getReason())) {
            for (java.nio.file.Path p = java.nio.file.Path.of(where).getParent(); p != null; p = p.getParent()) {
                if (java.nio.file.Files.isRegularFile(p)) return "is a file, not a directory: " + p;
            }
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) return f.getReason() + ": " + where;
        return e.getMessage() + ": " + path;
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
    }
}
