package lake.it;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client jar a user depends on holds lake.client, lake.cli and lake.wire (the JSON shapes the
 * server renders with too) only: no RocksDB, DynamoDB, Hazelcast or server class.
 */
class ClientJarIT {
    @Test
    void clientJarHoldsOnlyClientCliAndWireClasses() throws Exception {
        Path jar = Path.of(System.getProperty("lake.client.jar"));
        try (JarFile f = new JarFile(jar.toFile())) {
            List<String> names = f.stream().map(ZipEntry::getName).toList();
            assertThat(names).contains("lake/client/MetasrvClient.class", "lake/cli/Lakectl.class", "lake/wire/catalog/Registration.class");
            assertThat(names).allMatch(n -> n.startsWith("META-INF/") || n.equals("lake/") || n.startsWith("lake/client/")
                    || n.startsWith("lake/cli/") || n.startsWith("lake/wire/"), "only lake/client, lake/cli and lake/wire");
            assertThat(names).noneMatch(n -> n.contains("rocksdb") || n.contains("dynamodb") || n.contains("hazelcast"));
        }
    }

    /**
     * The client's own POM names vertx-core, jackson-core and (optional) picocli, versions filled
     * in; and the jar's classes (read by jdeps) use nothing beyond those and the JDK, so an
     * application that depends on that POM gets no server dependency and misses nothing. lake.wire
     * uses the JDK alone (the server imports it too, so it must not pull the client's libraries in).
     */
    @Test
    void clientJarNeedsOnlyWhatItsPomNames() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(Path.of(System.getProperty("lake.client.pom")).toFile());
        assertThat(text(pom.getDocumentElement(), "artifactId")).isEqualTo("lake-metasrv-client");
        List<String> deps = new ArrayList<>();
        NodeList list = pom.getElementsByTagName("dependency");
        for (int i = 0; i < list.getLength(); i++) {
            Element d = (Element) list.item(i);
            String version = text(d, "version");
            assertThat(version).as("a version, filled in").matches("\\d+\\.\\d+\\.\\d+");
            deps.add(text(d, "groupId") + ":" + text(d, "artifactId") + ("true".equals(text(d, "optional")) ? " (optional)" : ""));
        }
        assertThat(deps).containsExactly("io.vertx:vertx-core", "com.fasterxml.jackson.core:jackson-core", "info.picocli:picocli (optional)");

        Process jdeps = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jdeps").toString(), "-verbose:package",
                System.getProperty("lake.client.jar")).redirectErrorStream(true).start();
        String out = new String(jdeps.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(jdeps.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(jdeps.exitValue()).as(out).isZero();
        List<String[]> uses = out.lines().map(String::strip).filter(l -> l.startsWith("lake.")).map(l -> l.split("\\s+")).toList();
        List<String> used = uses.stream().map(u -> u[2]).distinct().toList();
        assertThat(used).as("packages the client's classes use").isNotEmpty().allMatch(p -> p.startsWith("java.")
                || p.startsWith("javax.") || p.startsWith("com.sun.net.httpserver") || p.startsWith("lake.client")
                || p.startsWith("lake.cli") || p.startsWith("lake.wire") || p.startsWith("io.vertx.core")
                || p.startsWith("com.fasterxml.jackson.core") || p.startsWith("picocli"));
        assertThat(uses.stream().filter(u -> u[0].equals("lake.wire")).map(u -> u[2]).distinct().toList())
                .as("packages lake.wire uses").isNotEmpty().allMatch(p -> p.startsWith("java.") || p.equals("lake.wire"));
    }

    private static String text(Element parent, String tag) {
        NodeList l = parent.getElementsByTagName(tag);
        for (int i = 0; i < l.getLength(); i++) {
            if (l.item(i).getParentNode() == parent) return l.item(i).getTextContent().strip();
        }
        return null;
    }
}
