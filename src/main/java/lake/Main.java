package lake;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Properties;

/** Entry point of the fat jar. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            out.println("lake-metasrv " + version());
            return 0;
        }
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            out.print(usage());
            return 0;
        }
        err.print(usage());
        return args.length == 0 ? 0 : 2;
    }

    static String usage() {
        return "lake-metasrv " + version() + "\n"
                + "Lease-fenced metadata service over RocksDB or DynamoDB.\n\n"
                + "Usage: java -jar lake-metasrv.jar [--help | --version]\n";
    }

    static String version() {
        try (InputStream in = Main.class.getResourceAsStream("/lake-metasrv-version.properties")) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
