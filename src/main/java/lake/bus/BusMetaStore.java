package lake.bus;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import lake.meta.GuardedMutation;
import lake.meta.Keys;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;

import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * A {@link MetaStore} whose every call is a request to a store verticle ({@code lake.node.StoreVerticle}): how every component
 * other than the store verticle reaches the store. Each request carries the epoch the caller acts
 * under. Input is validated here too, so bad input never leaves the node.
 *
 * <p>A request that reached no store, or got no reply in time, fails as a retryable backend fault:
 * the caller cannot know whether a mutation applied, and must never read it as {@code false}.
 */
public final class BusMetaStore implements MetaStore {
    private final Vertx vertx;
    private final String address;
    private final LongSupplier epoch;
    private final long timeoutMs;
    private final String secret;
    /** Codecs passing a guarded mutation / a transaction by reference, or null to send them as JSON. */
    private final String mutationCodec;
    private final String transactionCodec;
    /** Shares cluster round trips between calls to a remote store; null for a store in this process. */
    private final BusBatch.Sender batches;

    /** A client that sends JSON, so it reaches a store verticle anywhere in the cluster. */
    public BusMetaStore(Vertx vertx, String address, LongSupplier epoch, long timeoutMs) {
        this(vertx, address, epoch, timeoutMs, null, StoreLink.Reach.HOSTED_HERE);
    }

    /**
     * @param secret the cluster secret presented on every request ({@link Bus#SECRET_HEADER}), or null
     * @param reach  {@code PROCESS_ONLY}: guarded mutations and transactions (the hot path) travel
     *               by reference instead of as base64 JSON (immutable values, so sharing them is
     *               safe; a store reachable over the cluster must get JSON); {@code REMOTE}: calls
     *               made in one event-loop turn share a cluster round trip ({@link BusBatch})
     */
    public BusMetaStore(Vertx vertx, String address, LongSupplier epoch, long timeoutMs, String secret, StoreLink.Reach reach) {
        this(vertx, address, epoch, timeoutMs, secret,
                reach == StoreLink.Reach.PROCESS_ONLY ? LocalCodec.register(vertx, GuardedMutation.class) : null,
                reach == StoreLink.Reach.PROCESS_ONLY ? LocalCodec.register(vertx, Transaction.class) : null,
                reach == StoreLink.Reach.REMOTE ? BusBatch.Sender.standard(vertx) : null);
    }

    private BusMetaStore(Vertx vertx, String address, LongSupplier epoch, long timeoutMs, String secret,
                         String mutationCodec, String transactionCodec, BusBatch.Sender batches) {
        this.vertx = vertx;
        this.address = address;
        this.epoch = epoch;
        this.timeoutMs = timeoutMs;
        this.secret = secret;
        this.mutationCodec = mutationCodec;
        this.transactionCodec = transactionCodec;
        this.batches = batches;
    }

    /** The same store, with every request carrying {@code fixedEpoch}. */
    public BusMetaStore withEpoch(long fixedEpoch) {
        return new BusMetaStore(vertx, address, () -> fixedEpoch, timeoutMs, secret, mutationCodec, transactionCodec, batches);
    }

    @Override
    public Future<Optional<byte[]>> get(String key) {
        try {
            Keys.validateKey(key);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return request(StoreProtocol.GET, new JsonObject().put("key", key))
                .map(o -> Optional.ofNullable(StoreProtocol.unb64(o.getString("value"))));
    }

    @Override
    public Future<Boolean> cas(String key, byte[] expected, byte[] value) {
        try {
            Keys.validateKey(key);
            Keys.validateExpected("expected value", expected);
            Keys.validateValue("value", value);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return request(StoreProtocol.CAS, new JsonObject().put("key", key)
                .put("expected", StoreProtocol.b64(expected)).put("value", StoreProtocol.b64(value)))
                .map(o -> o.getBoolean("applied"));
    }

    @Override
    public Future<Boolean> delete(String key, byte[] expected) {
        try {
            Keys.validateKey(key);
            Keys.validateValue("expected value", expected);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return request(StoreProtocol.DELETE, new JsonObject().put("key", key).put("expected", StoreProtocol.b64(expected)))
                .map(o -> o.getBoolean("applied"));
    }

    @Override
    public Future<Boolean> guardedMutate(GuardedMutation mutation) {
        if (mutation == null) return Future.failedFuture(new MetaException.InvalidArgument("mutation must not be null"));
        Object body = mutationCodec == null ? StoreProtocol.guarded(mutation) : mutation;
        return request(StoreProtocol.GUARDED, body).map(o -> o.getBoolean("applied"));
    }

    @Override
    public Future<TransactionOutcome> transact(Transaction transaction) {
        if (transaction == null) return Future.failedFuture(new MetaException.InvalidArgument("transaction must not be null"));
        Object body = transactionCodec == null ? StoreProtocol.transaction(transaction) : transaction;
        return request(StoreProtocol.TXN, body).map(StoreProtocol::outcome);
    }

    @Override
    public Future<ScanPage> scanPrefix(String prefix, String continuation, int limit) {
        try {
            Keys.validatePrefix(prefix);
            Keys.validateLimit(limit);
            ScanPage.resumeAfter(prefix, continuation);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return request(StoreProtocol.SCAN, new JsonObject().put("prefix", prefix)
                .put("continuation", continuation).put("limit", limit)).map(StoreProtocol::page);
    }

    @Override
    public Future<Optional<String>> lastKey(String prefix) {
        try {
            Keys.validatePrefix(prefix);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return request(StoreProtocol.LAST_KEY, new JsonObject().put("prefix", prefix))
                .map(o -> Optional.ofNullable(o.getString("key")));
    }

    /** The store verticle owns the store's lifetime; closing a client releases nothing. */
    @Override
    public Future<Void> close() {
        return Future.succeededFuture();
    }

    private Future<JsonObject> request(String op, Object body) {
        DeliveryOptions opts = new DeliveryOptions()
                .setSendTimeout(timeoutMs)
                .addHeader(Bus.OP_HEADER, op)
                .addHeader(Bus.EPOCH_HEADER, Long.toUnsignedString(epoch.getAsLong()));
        if (secret != null) opts.addHeader(Bus.SECRET_HEADER, secret);
        if (mutationCodec != null) {
            // Node-local by construction: never looked up in the cluster, so a by-reference value
            // cannot be routed to another node's store verticle, and no request waits on membership.
            opts.setLocalOnly(true);
            if (body instanceof GuardedMutation) opts.setCodecName(mutationCodec);
            else if (body instanceof Transaction) opts.setCodecName(transactionCodec);
        }
        Future<JsonObject> reply = batches != null && body instanceof JsonObject json ? batches.request(address, json, opts)
                : vertx.eventBus().<JsonObject>request(address, body, opts).map(Message::body);
        return reply.recover(t -> Future.failedFuture(StoreProtocol.fromReply(t, !StoreProtocol.GET.equals(op)
                        && !StoreProtocol.SCAN.equals(op) && !StoreProtocol.LAST_KEY.equals(op))));
    }
}
