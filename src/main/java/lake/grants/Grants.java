package lake.grants;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import lake.config.access.CatalogGrant;
import lake.config.access.CatalogGrant.Privilege;
import lake.meta.KeyValue;
import lake.meta.MetaStore;
import lake.metasrv.ClientMutation;
import lake.metasrv.ClientWrite;
import lake.metasrv.FencedWriter;
import lake.wire.grants.Grant;
import lake.wire.grants.GrantChange;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Reads and changes the stored grants. A change runs on the leader: it reads the object's grant,
 * computes the new one (privileges added, or removed), and writes it with a compare-and-set on
 * the exact bytes it read through the fenced writer — so it applies under the current lease or
 * not at all, lands in the change feed (every node follows it, {@link GrantsFollower}), and a
 * concurrent change to the same grant is read again and reapplied, never overwritten.
 */
public final class Grants {
    /** Attempts at a change that meets concurrent changes of the same grant. */
    static final int ATTEMPTS = 5;
    private static final int PAGE = 1_000;

    private final MetaStore reads;
    private final Function<ClientWrite, Future<FencedWriter.Outcome>> writer;
    private final LongSupplier wallMillis;

    public Grants(MetaStore reads, Function<ClientWrite, Future<FencedWriter.Outcome>> writer, LongSupplier wallMillis) {
        this.reads = reads;
        this.writer = writer;
        this.wallMillis = wallMillis;
    }

    /**
     * {@code {"grants":[...]}}: every stored grant of {@code principal} ({@code null}: of everyone)
     * on {@code namespace} or beneath it ({@code null}: anywhere), read from the store.
     */
    public Future<JsonObject> list(String principal, String namespace) {
        return readAll(reads, principal == null ? StoredGrant.PREFIX : StoredGrant.prefix(principal))
                .map(stored -> new JsonObject(Grant.listToMap(GrantBook.of(stored).byKey().entrySet().stream()
                        .sorted(java.util.Map.Entry.comparingByKey()).map(java.util.Map.Entry::getValue)
                        .filter(g -> namespace == null || g.grant().namespace().equals(namespace) || g.grant().namespace().startsWith(namespace + "."))
                        .map(Grants::wire).toList())));
    }

    /** Every key and value stored under {@code prefix}, page by page (a malformed grant is skipped where it is parsed, {@link GrantBook}). */
    static Future<java.util.Map<String, byte[]>> readAll(MetaStore reads, String prefix) {
        java.util.Map<String, byte[]> out = new java.util.HashMap<>();
        return readAll(reads, prefix, null, out).map(v -> out);
    }

    private static Future<Void> readAll(MetaStore reads, String prefix, String continuation, java.util.Map<String, byte[]> out) {
        return reads.scanPrefix(prefix, continuation, PAGE).compose(page -> {
            for (KeyValue kv : page.entries()) out.put(kv.key(), kv.value());
            return page.continuation() == null ? Future.succeededFuture() : readAll(reads, prefix, page.continuation(), out);
        });
    }

    /**
     * Adds ({@code grant}) or removes the request's privileges; {@code by} names who asked. Answers
     * {@code {"principal","namespace","name","privileges","changed","revision"?}}: the privileges
     * held on the object afterwards, whether anything was written, and the write's revision.
     */
    public Future<JsonObject> change(GrantRequest r, boolean grant, String by) {
        return change(r, grant, by, 1);
    }

    private Future<JsonObject> change(GrantRequest r, boolean grant, String by, int attempt) {
        String key = StoredGrant.key(r.principal(), r.namespace(), r.name());
        return reads.get(key).compose(current -> {
            Set<Privilege> held = EnumSet.noneOf(Privilege.class);
            current.ifPresent(bytes -> held.addAll(StoredGrant.parse(key, bytes).grant().privileges()));
            Set<Privilege> next = EnumSet.copyOf(held.isEmpty() ? EnumSet.noneOf(Privilege.class) : held);
            if (grant) next.addAll(r.privileges());
            else if (r.privileges() == null) next.clear();
            else next.removeAll(r.privileges());
            if (next.equals(held)) return Future.succeededFuture(answer(r, next, false, 0));
            byte[] expected = current.orElse(null);
            ClientWrite w = next.isEmpty() ? ClientMutation.delete(key, expected, null)
                    : ClientMutation.cas(key, expected, new StoredGrant(r.principal(), new CatalogGrant(r.namespace(), r.name(), next), by,
                            wallMillis.getAsLong()).value(), null);
            return writer.apply(w).compose(o -> {
                if (o.applied()) return Future.succeededFuture(answer(r, next, true, o.revision()));
                if (attempt >= ATTEMPTS) {
                    return Future.failedFuture(new lake.protocol.ApiError(409, "conflict", "the grant of '" + r.principal() + "' on "
                            + object(r) + " kept changing under " + ATTEMPTS + " attempts; nothing was written by this request", null));
                }
                return change(r, grant, by, attempt + 1);
            });
        });
    }

    private static JsonObject answer(GrantRequest r, Set<Privilege> held, boolean changed, long revision) {
        return new JsonObject(new GrantChange(r.principal(), r.namespace(), r.name(), labels(held), changed, changed ? revision : null).toMap());
    }

    static Grant wire(StoredGrant g) {
        return new Grant(g.principal(), g.grant().namespace(), g.grant().name(), labels(g.grant().privileges()), g.by(), g.atMs());
    }

    static List<String> labels(Set<Privilege> privileges) {
        return privileges.stream().map(Privilege::label).sorted().toList();
    }

    static String object(GrantRequest r) {
        return r.name() == null ? "namespace '" + r.namespace() + "'" : "'" + r.namespace() + "." + r.name() + "'";
    }
}
