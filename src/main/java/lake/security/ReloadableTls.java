package lake.security;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * TLS material that is re-read without a restart: on {@link #reload} (SIGHUP) and when the files'
 * content changes (polled every {@link Principals#WATCH_INTERVAL_MS}).
 *
 * <p>Invariants: {@link #current()} always checked ({@link TlsMaterial#load}); a new set that
 * does not check is refused with a log line and an audit line, and the old one stays in use, so a
 * bad rotation never drops the service. Reads happen on worker threads; listeners (each server
 * using the material) are told on that thread and must hop to their own context.
 */
public final class ReloadableTls {
    private static final Logger log = LoggerFactory.getLogger(ReloadableTls.class);

    private final String what;
    private final Path cert;
    private final Path key;
    private final Path ca;
    private final List<String> settings;
    private final List<Consumer<TlsMaterial>> listeners = new CopyOnWriteArrayList<>();
    private volatile TlsMaterial current;
    private volatile byte[] filesDigest;
    private long watchTimer = -1;

    /** Loads now (blocking; start-up): throws {@link ConfigException} naming the setting if the material does not check. */
    public ReloadableTls(String what, Path cert, Path key, Path ca, String certSetting, String keySetting, String caSetting) {
        this.what = what;
        this.cert = cert;
        this.key = key;
        this.ca = ca;
        this.settings = List.of(certSetting, keySetting, caSetting);
        this.filesDigest = digest();
        this.current = TlsMaterial.load(cert, key, ca, certSetting, keySetting, caSetting);
    }

    public TlsMaterial current() {
        return current;
    }

    /** {@code listener} gets each new material that checked; returns how to stop it. */
    public Runnable onChange(Consumer<TlsMaterial> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Re-reads the files on a worker; completes with whether new material took effect. */
    public Future<Boolean> reload(Vertx vertx, String trigger) {
        return vertx.executeBlocking(() -> load(trigger, true), false);
    }

    public void watch(Vertx vertx) {
        if (watchTimer >= 0) return;
        watchTimer = vertx.setPeriodic(Principals.WATCH_INTERVAL_MS, id -> vertx.executeBlocking(() -> load("file-change", false), false)
                .onFailure(t -> log.warn("watching the {} files failed: {}", what, t.toString())));
    }

    public void stopWatching(Vertx vertx) {
        if (watchTimer >= 0) vertx.cancelTimer(watchTimer);
        watchTimer = -1;
    }

    private synchronized boolean load(String trigger, boolean always) {
        byte[] d = digest();
        if (!always && Arrays.equals(d, filesDigest)) return false;
        filesDigest = d;
        TlsMaterial next;
        try {
            next = TlsMaterial.load(cert, key, ca, settings.get(0), settings.get(1), settings.get(2));
        } catch (ConfigException e) {
            log.warn("{} material not reloaded ({}), keeping the certificate in use: {}", what, trigger, e.getMessage());
            Audit.reload(what, trigger, "refused", e.getMessage());
            return false;
        }
        if (next.sameAs(current)) return false;
        current = next;
        for (Consumer<TlsMaterial> l : listeners) l.accept(next);
        log.info("{} material reloaded ({}) from {}", what, trigger, cert);
        Audit.reload(what, trigger, "applied", "certificate " + cert);
        return true;
    }

    /** SHA-256 over the three files' bytes; an unreadable file counts as empty (its repair is a change). */
    private byte[] digest() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Path p : new Path[] {cert, key, ca}) {
                if (p == null) continue;
                try {
                    md.update(Files.readAllBytes(p));
                } catch (IOException e) {
                    md.update((byte) 0);
                }
                md.update((byte) '|');
            }
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
