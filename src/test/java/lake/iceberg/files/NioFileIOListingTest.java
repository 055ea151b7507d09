package lake.iceberg.files;

import org.apache.iceberg.io.FileInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link NioFileIO} lists a directory as S3FileIO lists a prefix: every file below it, sorted, with size and time; it never deletes by prefix. */
class NioFileIOListingTest {
    @TempDir Path dir;

    @Test
    void listPrefixNamesEveryFileBelowInOrderWithSizeAndTime() throws Exception {
        Path t = Files.createDirectories(dir.resolve("wh/ns/t"));
        Files.createDirectories(t.resolve("metadata/empty-dir"));
        Files.write(t.resolve("metadata/00001.metadata.json"), new byte[] {1, 2});
        Files.createDirectories(t.resolve("data/a=1"));
        Files.write(t.resolve("data/a=1/x.parquet"), new byte[] {1, 2, 3});
        Files.setLastModifiedTime(t.resolve("data/a=1/x.parquet"), FileTime.fromMillis(1_700_000_000_000L));
        Files.write(dir.resolve("wh/ns/t-beside.txt"), new byte[] {1});
        Files.createSymbolicLink(t.resolve("link"), dir.resolve("wh/ns/t-beside.txt"));

        String prefix = dir.toUri().toString() + "wh/ns/t";
        List<FileInfo> listed = new ArrayList<>();
        new NioFileIO().listPrefix(prefix).forEach(listed::add);
        assertThat(listed).extracting(FileInfo::location).as("files only (no directory, no link, nothing beside), sorted, in the prefix's spelling")
                .containsExactly(prefix + "/data/a=1/x.parquet", prefix + "/metadata/00001.metadata.json");
        assertThat(listed.get(0).size()).isEqualTo(3);
        assertThat(listed.get(0).createdAtMillis()).isEqualTo(1_700_000_000_000L);
        assertThat(new NioFileIO().listPrefix(prefix + "/absent")).isEmpty();
        assertThatThrownBy(() -> new NioFileIO().deletePrefix(prefix)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(Files.exists(t.resolve("data/a=1/x.parquet"))).isTrue();
    }
}
