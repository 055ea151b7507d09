package lake.meta.rocks;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Starts a test main class in a separate JVM on the test classpath. */
final class ChildJvm {
    private ChildJvm() {}

    /**
     * Surefire may run tests from a manifest-only jar, in which case {@code java.class.path} is just
     * that jar; it publishes the real test classpath as {@code surefire.test.class.path}.
     */
    static String testClasspath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    static Process start(Class<?> main, Path stderr, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        // The child's stdout is a line protocol; keep logging off it (WARN and up, to stderr).
        command.add("-Dlogback.configurationFile=" + quietLogback(stderr.resolveSibling(stderr.getFileName() + ".logback.xml")));
        command.add("-cp");
        command.add(testClasspath());
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectError(stderr.toFile())
                .start();
    }

    private static String quietLogback(Path file) throws IOException {
        java.nio.file.Files.writeString(file, """
                <configuration>
                  <appender name="ERR" class="ch.qos.logback.core.ConsoleAppender">
                    <target>System.err</target>
                    <encoder><pattern>%d %-5level %logger - %msg%n</pattern></encoder>
                  </appender>
                  <root level="WARN"><appender-ref ref="ERR"/></root>
                </configuration>
                """);
        return file.toAbsolutePath().toString();
    }

    static String describe(Path stderr) {
        File f = stderr.toFile();
        try {
            return f.exists() ? java.nio.file.Files.readString(stderr) : "(no stderr)";
        } catch (IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }
}
