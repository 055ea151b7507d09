package lake.client.transport;

import io.vertx.core.http.HttpMethod;
import lake.client.model.Txn;

import java.util.Map;

/**
 * One API operation, in the form each transport sends it: the bus address suffix and whole body,
 * the HTTP method, raw path (percent-encoded, with its query) and body. {@code write}: it may change
 * the store, so an unknown outcome must never be retried. {@code waitMs}: a long poll's wait, added
 * to the call's deadline. {@code intent}: a KV write as a transaction, for resolving an unknown outcome.
 */
public record Call(String op, boolean write, HttpMethod method, String path, Map<String, Object> httpBody, Map<String, Object> busBody,
            long waitMs, Txn intent, Long epoch) {

    public static Call read(String op, String path, Map<String, Object> busBody) {
        return new Call(op, false, HttpMethod.GET, path, null, busBody, 0, null, null);
    }

    public static Call write(String op, HttpMethod method, String path, Map<String, Object> httpBody, Map<String, Object> busBody, Txn intent) {
        return new Call(op, true, method, path, httpBody, busBody, 0, intent, null);
    }

    public Call waiting(long ms) {
        return new Call(op, write, method, path, httpBody, busBody, ms, intent, epoch);
    }

    /** This write carrying {@code e}, the epoch it must be decided under ({@code null}: none). */
    public Call withEpoch(Long e) {
        return new Call(op, write, method, path, httpBody, busBody, waitMs, intent, write ? e : null);
    }

    @Override public String toString() { return op + " " + method + " " + path; }
}
