package lake.meta.rocks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Child process for the lock test: opens the store at {@code args[0]}, prints {@code OPEN}, holds
 * it until a line (or end of input) arrives on stdin, closes it and prints {@code CLOSED}.
 */
public final class LockHolderChild {
    private LockHolderChild() {}

    public static void main(String[] args) throws Exception {
        RocksMetaStore store = RocksMetaStore.open(RocksConfig.defaults(Path.of(args[0])));
        System.out.println("OPEN");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();
        store.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        System.out.println("CLOSED");
        System.out.flush();
    }
}
