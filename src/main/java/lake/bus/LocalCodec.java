package lake.bus;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Passes an immutable value between verticles of one node by reference. It refuses to cross the
 * cluster: such values (leadership snapshots) are node-local by design.
 */
public final class LocalCodec<T> implements MessageCodec<T, T> {
    private final String name;

    private LocalCodec(String name) {
        this.name = name;
    }

    /** Registers the codec once per Vert.x instance; later calls reuse it. Returns its name. */
    public static synchronized String register(Vertx vertx, Class<?> type) {
        String name = "lake-local-" + type.getName();
        try {
            vertx.eventBus().registerCodec(new LocalCodec<>(name));
        } catch (IllegalStateException alreadyRegistered) {
            // Several nodes may share one Vert.x instance in tests; the codec is stateless.
        }
        return name;
    }

    @Override public void encodeToWire(Buffer buffer, T t) {
        throw new IllegalStateException(name + " values are node-local and never cross the cluster");
    }
    @Override public T decodeFromWire(int pos, Buffer buffer) {
        throw new IllegalStateException(name + " values are node-local and never cross the cluster");
    }
    @Override public T transform(T t) { return t; }
    @Override public String name() { return name; }
    @Override public byte systemCodecID() { return -1; }
}
