package lake.node;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.bus.BusBatch;
import lake.bus.StoreProtocol;
import lake.meta.GuardedMutation;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;

import java.util.List;
import java.util.function.Function;

/**
 * Owns the {@link MetaStore}; reached only by event-bus messages on its address.
 *
 * <p>Every message carries {@link Bus#EPOCH_HEADER}. A guarded mutation or guarded transaction
 * whose epoch is below the highest epoch any guarded one has carried here is answered
 * {@code applied: false} (a transaction: {@code guard_failed: true}) at once, without touching
 * the store: its guard cannot hold, since a lease of a higher epoch has been installed since. This is a cheap fast path for stale leaders, not the authority: a mutation that
 * passes it is still applied only if its guard holds, atomically, in the store.
 * Runs on an event loop for both backends: neither store blocks its caller.
 */
public final class StoreVerticle extends VerticleBase {

    private final Function<Vertx, Future<? extends MetaStore>> opener;
    private final String address;
    private final boolean local;
    private MetaStore store;
    private MessageConsumer<Object> consumer;
    private MessageConsumer<Object> batches;
    /** Highest epoch seen on a guarded mutation or transaction, unsigned. Confined to this verticle's context. */
    private long highestEpoch;

    /**
     * @param opener opens the store on this verticle's Vert.x instance
     * @param local  register a local consumer only (single node, or a store not offered to the cluster)
     */
    public StoreVerticle(Function<Vertx, Future<? extends MetaStore>> opener, String address, boolean local) {
        this(opener, address, local, null);
    }

    /**
     * @param secret when set, every request must present it in {@link Bus#SECRET_HEADER}
     *               (compared in constant time): a store served to a cluster answers only its nodes
     */
    public StoreVerticle(Function<Vertx, Future<? extends MetaStore>> opener, String address, boolean local, String secret) {
        this.opener = opener;
        this.address = address;
        this.local = local;
        // Digests of equal length, so the comparison's time says nothing about the secret's length.
        this.secret = secret == null ? null : lake.config.AuthTokens.sha256(secret);
    }

    private final byte[] secret;

    @Override
    public Future<?> start() {
        return opener.apply(vertx).compose(opened -> {
            store = opened;
            if (local) {
                consumer = vertx.eventBus().localConsumer(address, this::handle);
                return consumer.completion();
            }
            consumer = vertx.eventBus().consumer(address, this::handle);
            // Remote nodes send the calls of one event-loop turn several to a message (BusBatch).
            batches = vertx.eventBus().consumer(BusBatch.address(address), this::handleBatch);
            return Future.all(consumer.completion(), batches.completion()).mapEmpty();
        });
    }

    @Override
    public Future<?> stop() {
        Future<Void> unregistered = Future.join(consumer == null ? Future.succeededFuture() : consumer.unregister(),
                batches == null ? Future.succeededFuture() : batches.unregister()).mapEmpty();
        return unregistered.eventually(() -> store == null ? Future.succeededFuture() : store.close());
    }

    private void handle(Message<Object> msg) {
        if (!authorized(msg)) return;
        answer(msg.headers(), msg.body()).onSuccess(a -> {
            if (a.body() != null) {
                msg.reply(a.body(), new DeliveryOptions().addHeader(Bus.EPOCH_HEADER, Long.toUnsignedString(highestEpoch)));
            } else {
                msg.fail(a.code(), a.message());
            }
        });
    }

    /** Several calls in one message: each answered as it would be alone, the secret checked once for all. */
    private void handleBatch(Message<Object> msg) {
        if (authorized(msg)) BusBatch.serve(msg, this::answer);
    }

    private boolean authorized(Message<Object> msg) {
        if (secret == null) return true;
        String presented = msg.headers().get(Bus.SECRET_HEADER);
        if (presented == null || !java.security.MessageDigest.isEqual(secret, lake.config.AuthTokens.sha256(presented))) {
            msg.fail(StoreProtocol.UNAUTHORIZED, "store requests must present the cluster secret");
            return false;
        }
        return true;
    }

    /** One call's answer: its reply body, or the failure code and message a lone message would get. Never fails. */
    private Future<BusBatch.Answer> answer(io.vertx.core.MultiMap headers, Object body) {
        Future<JsonObject> reply;
        try {
            reply = dispatch(headers, body);
        } catch (MetaException e) {
            reply = Future.failedFuture(e);
        } catch (RuntimeException e) {
            reply = Future.failedFuture(new MetaException.InvalidArgument("malformed store request: " + e.getMessage()));
        }
        return reply.transform(ar -> Future.succeededFuture(ar.succeeded() ? BusBatch.Answer.ok(ar.result())
                : ar.cause() instanceof MetaException me ? BusBatch.Answer.fail(StoreProtocol.failureCode(me), me.getMessage())
                : BusBatch.Answer.fail(StoreProtocol.PERMANENT_BACKEND, String.valueOf(ar.cause()))));
    }

    private Future<JsonObject> dispatch(io.vertx.core.MultiMap headers, Object body) {
        String op = headers.get(Bus.OP_HEADER);
        String epochHeader = headers.get(Bus.EPOCH_HEADER);
        if (op == null || epochHeader == null) {
            throw new MetaException.InvalidArgument("store message needs headers " + Bus.OP_HEADER + " and " + Bus.EPOCH_HEADER);
        }
        long epoch = Long.parseUnsignedLong(epochHeader);
        if (body instanceof GuardedMutation m) {
            // Passed by reference from this process: already validated by its constructor.
            if (!op.equals(StoreProtocol.GUARDED)) throw new MetaException.InvalidArgument("a mutation object needs op " + StoreProtocol.GUARDED);
            return guarded(epoch, m);
        }
        if (body instanceof Transaction t) {
            if (!op.equals(StoreProtocol.TXN)) throw new MetaException.InvalidArgument("a transaction object needs op " + StoreProtocol.TXN);
            return transact(epoch, t);
        }
        JsonObject b = (JsonObject) body;
        return switch (op) {
            case StoreProtocol.GET -> store.get(b.getString("key"))
                    .map(v -> new JsonObject().put("value", StoreProtocol.b64(v.orElse(null))));
            case StoreProtocol.SCAN -> store.scanPrefix(b.getString("prefix"), b.getString("continuation"),
                    b.getInteger("limit")).map(StoreProtocol::page);
            case StoreProtocol.LAST_KEY -> store.lastKey(b.getString("prefix"))
                    .map(k -> new JsonObject().put("key", k.orElse(null)));
            case StoreProtocol.CAS -> store.cas(b.getString("key"), StoreProtocol.unb64(b.getString("expected")),
                    StoreProtocol.unb64(b.getString("value"))).map(StoreVerticle::applied);
            case StoreProtocol.DELETE -> store.delete(b.getString("key"), StoreProtocol.unb64(b.getString("expected")))
                    .map(StoreVerticle::applied);
            case StoreProtocol.GUARDED -> guarded(epoch, StoreProtocol.guarded(b));
            case StoreProtocol.TXN -> transact(epoch, StoreProtocol.transaction(b));
            default -> throw new MetaException.InvalidArgument("unknown store operation '" + op + "'");
        };
    }

    private Future<JsonObject> guarded(long epoch, GuardedMutation mutation) {
        if (isStale(epoch)) return Future.succeededFuture(applied(false).put("stale_epoch", true));
        return store.guardedMutate(mutation).map(StoreVerticle::applied);
    }

    /** Only a guarded transaction takes the stale-epoch fast path; an unguarded one has no lease to be stale. */
    private Future<JsonObject> transact(long epoch, Transaction transaction) {
        if (transaction.guardKey().isPresent() && isStale(epoch)) {
            return Future.succeededFuture(StoreProtocol.outcome(TransactionOutcome.notApplied(List.of(), true))
                    .put("stale_epoch", true));
        }
        return store.transact(transaction).map(StoreProtocol::outcome);
    }

    /** True when {@code epoch} is below the highest seen; otherwise it becomes the highest. */
    private boolean isStale(long epoch) {
        if (Long.compareUnsigned(epoch, highestEpoch) < 0) return true;
        highestEpoch = epoch;
        return false;
    }

    private static JsonObject applied(boolean applied) {
        return new JsonObject().put("applied", applied);
    }
}
