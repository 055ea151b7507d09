package lake.client;

/**
 * What {@link MetasrvClient#resolve(MetasrvException.OutcomeUnknown)} found when it read back the
 * keys of a write whose outcome was unknown.
 */
public enum ReadBack {
    /**
     * Every key the write would have changed now holds what the write would have put there (or is
     * absent, for a delete). With a value nobody else writes (a unique id, a version), this means
     * the write applied; do not send it again.
     */
    IN_EFFECT,
    /**
     * At least one key does not hold what the write would have produced: it never applied, or
     * another write changed the key since. Sending the same conditional write again is safe — its
     * condition decides — but an unconditional put would overwrite whatever is there now.
     */
    NOT_IN_EFFECT,
    /**
     * The write would leave every key as its own condition requires it to be already (a
     * transaction of checks only, a put of the value it expects, a delete of a key that must be
     * absent): it changes nothing whether it applied or not, so reading back cannot tell, and
     * nothing was read. Whether its conditions held then is unknowable now; ask again if it matters.
     */
    CANNOT_TELL
}
