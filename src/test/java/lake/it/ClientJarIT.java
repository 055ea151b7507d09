package lake.it;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;

/** The client jar a user depends on holds lake.client and lake.cli only: no RocksDB, DynamoDB, Hazelcast or server class. */
class ClientJarIT {
    @Test
    void clientJarHoldsOnlyClientAndCliClasses() throws Exception {
        Path jar = Path.of(System.getProperty("lake.client.jar"));
        try (JarFile f = new JarFile(jar.toFile())) {
            List<String> names = f.stream().map(ZipEntry::getName).toList();
            assertThat(names).contains("lake/client/MetasrvClient.class", "lake/cli/Lakectl.class");
            assertThat(names).allMatch(n -> n.startsWith("META-INF/") || n.equals("lake/")
                    || n.startsWith("lake/client/") || n.startsWith("lake/cli/"), "only lake/client and lake/cli");
            assertThat(names).noneMatch(n -> n.contains("rocksdb") || n.contains("dynamodb") || n.contains("hazelcast"));
        }
    }
}
