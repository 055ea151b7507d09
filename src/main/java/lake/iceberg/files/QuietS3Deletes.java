package lake.iceberg.files;

import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The warehouse's S3FileIO with its bulk delete in S3's <em>quiet</em> mode: the answer to a
 * {@code DeleteObjects} of a thousand keys names only the keys that failed. S3FileIO asks for
 * the verbose answer, a {@code <Deleted>} element per key that the store renders and the node
 * parses (the purge's largest cost on the node, measured with JFR). A call that fails whole
 * fails the batch (the pass is retried at the same point); keys the store refused are counted
 * as failed, as S3FileIO counts them. A key is read from a location as S3FileIO reads it (up to
 * a {@code ?} or {@code #}), so the object deleted is the one S3FileIO wrote. An S3FileIO set to
 * delete otherwise (tags instead of deletes, access points) keeps its own deletes. Everything
 * else is the S3FileIO's.
 */
final class QuietS3Deletes implements FileIO, SupportsBulkOperations {
    static final int KEYS_PER_CALL = 1000;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QuietS3Deletes.class);
    private final S3FileIO s3;

    private QuietS3Deletes(S3FileIO s3) {
        this.s3 = s3;
    }

    /** {@code io} with quiet bulk deletes when it is an S3FileIO; otherwise {@code io} itself. */
    static FileIO of(FileIO io) {
        if (!(io instanceof S3FileIO s)) return io;
        for (Map.Entry<String, String> p : s.properties().entrySet()) {
            String k = p.getKey();
            if (k.startsWith("s3.delete.tags.") || k.startsWith("s3.access-points.") || k.equals("s3.delete-enabled") && !"true".equals(p.getValue())) {
                return io;
            }
        }
        return new QuietS3Deletes(s);
    }

    @Override
    public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
        Map<String, List<ObjectIdentifier>> byBucket = new LinkedHashMap<>();
        for (String p : paths) {
            int scheme = p.indexOf("://");
            int slash = scheme < 0 ? -1 : p.indexOf('/', scheme + 3);
            if (slash < 0) throw new IllegalArgumentException("not an S3 object location: " + p);
            String key = p.substring(slash + 1);
            int cut = key.length();
            for (char c : new char[] {'?', '#'}) {
                int at = key.indexOf(c);
                if (at >= 0) cut = Math.min(cut, at);
            }
            byBucket.computeIfAbsent(p.substring(scheme + 3, slash), b -> new ArrayList<>())
                    .add(ObjectIdentifier.builder().key(key.substring(0, cut)).build());
        }
        int failed = 0;
        for (Map.Entry<String, List<ObjectIdentifier>> bucket : byBucket.entrySet()) {
            List<ObjectIdentifier> keys = bucket.getValue();
            for (int from = 0; from < keys.size(); from += KEYS_PER_CALL) {
                List<ObjectIdentifier> call = keys.subList(from, Math.min(keys.size(), from + KEYS_PER_CALL));
                DeleteObjectsResponse r = s3.client().deleteObjects(b -> b.bucket(bucket.getKey()).delete(d -> d.quiet(true).objects(call)));
                if (r.hasErrors() && !r.errors().isEmpty()) {
                    failed += r.errors().size();
                    S3Error first = r.errors().get(0);
                    LOG.warn("S3 refused to delete {} of {} key(s) in bucket {}; first: {} {} ({})", r.errors().size(), call.size(),
                            bucket.getKey(), first.key(), first.code(), first.message());
                }
            }
        }
        if (failed > 0) throw new BulkDeletionFailureException(failed);
    }

    @Override
    public InputFile newInputFile(String path) {
        return s3.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        return s3.newInputFile(path, length);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return s3.newOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
        s3.deleteFile(path);
    }

    @Override
    public Map<String, String> properties() {
        return s3.properties();
    }
}
