package lake.cli;

import io.vertx.core.Future;
import lake.client.MetasrvClient;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.CompletionException;
import java.util.concurrent.Callable;

/** What every command shares: the root's options, a client, waiting for a result, and printing. */
abstract class Base implements Callable<Integer> {
    @Spec CommandSpec spec;

    Lakectl root() {
        return (Lakectl) spec.root().userObject();
    }

    @Override
    public final Integer call() throws Exception {
        try (MetasrvClient client = root().client()) {
            return run(client);
        }
    }

    abstract int run(MetasrvClient client) throws Exception;

    /** A command that writes: {@code --epoch} applies to it. */
    interface Writes {}

    /**
     * Whether {@code option}, one of the options lakectl defines for every command (the
     * connection, the output, the deadline, the epoch), applies to this command: its help and man
     * page list only those. {@code --epoch} applies to writes only.
     */
    boolean takes(String option) {
        return !option.equals("--epoch") || this instanceof Writes;
    }

    /** The future's result; its failure thrown as it is (a typed MetasrvException). */
    static <T> T await(Future<T> f) {
        try {
            return f.toCompletionStage().toCompletableFuture().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw e;
        }
    }

    void println(String s) {
        root().out.println(s);
    }

    /** One line on stderr naming why the command did not do what it was asked. */
    void fail(String s) {
        root().err.println("lakectl: " + s);
    }
}
