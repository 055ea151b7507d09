package lake.iceberg.files;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a purge may delete with the node's rights: files under the purged table's location, named so nothing resolves them elsewhere. */
class PurgeIOTest {
    @TempDir Path dir;

    @Test
    void onlyFilesUnderTheTableLocationAreDeleted() throws Exception {
        String location = "s3://b/wh/ns/t1-00000000-0000-4000-8000-000000000001";
        PurgeIO io = new PurgeIO(new NioFileIO(), location + "/");
        // Iceberg percent-encodes partition values in paths: a '%' is an ordinary character of a key.
        for (String inside : List.of(location + "/data/a.parquet", location + "/metadata/00001.metadata.json", location + "/x",
                location + "/data/city=M%C3%BCnchen/ts=2023-11-14T22%3A13%3A20/a.parquet", location + "/data/v=a%2Fb/a.parquet")) {
            assertThat(io.inside(inside)).as(inside).isTrue();
        }
        for (String outside : List.of(location, location + "/", location + "0/data/a.parquet", "s3://b/wh/ns/t2/data/a.parquet",
                "s3a://b/wh/ns/t1-00000000-0000-4000-8000-000000000001/data/a.parquet", location + "/data/../../t2/a",
                location + "/./a", location + "//a", location + "/data/%2e%2e/a", location + "/data%2F..%2F..%2Fx",
                location + "/data\\..\\a", location + "/data/", "")) {
            assertThat(io.inside(outside)).as(outside).isFalse();
        }
    }

    @Test
    void aFileOutsideIsRecordedNotDeleted() throws Exception {
        Path table = Files.createDirectories(dir.resolve("ns/t1-x"));
        Path mine = Files.writeString(table.resolve("a.bin"), "a");
        Path other = Files.writeString(Files.createDirectories(dir.resolve("ns/t2")).resolve("b.bin"), "b");
        PurgeIO io = new PurgeIO(new NioFileIO(), table.toUri().toString());
        io.deleteFiles(List.of(mine.toUri().toString(), other.toUri().toString()));
        io.deleteFile(table.toUri() + "../t2/b.bin");
        assertThat(mine).doesNotExist();
        assertThat(other).exists();
        assertThat(io.refused()).containsExactly(other.toUri().toString(), table.toUri() + "../t2/b.bin");
    }
}
