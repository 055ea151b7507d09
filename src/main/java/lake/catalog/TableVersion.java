package lake.catalog;

/**
 * What a long poll on one table compares: its current version (unsigned 64-bit) and its
 * incarnation id ({@code null} for a legacy table). Either changing is a change.
 */
public record TableVersion(long currentVersion, String incarnationId) {}
