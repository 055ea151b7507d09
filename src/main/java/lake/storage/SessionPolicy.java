package lake.storage;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The session policy of a vended credential: the intersection of the role's own policy and this,
 * so the credential reaches only the table's objects, whatever the role allows. Readers get
 * {@code GetObject}; writers also {@code PutObject}, {@code DeleteObject} and multipart uploads.
 * Listing is allowed only with a {@code s3:prefix} under the location.
 */
public final class SessionPolicy {
    private SessionPolicy() {}

    static final java.util.List<String> READ_ACTIONS = java.util.List.of("s3:GetObject", "s3:GetObjectVersion");
    static final java.util.List<String> WRITE_ACTIONS = java.util.List.of("s3:PutObject", "s3:DeleteObject",
            "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts");

    public static String of(S3Location at, boolean write) {
        JsonArray objectActions = new JsonArray(new java.util.ArrayList<>(READ_ACTIONS));
        if (write) WRITE_ACTIONS.forEach(objectActions::add);
        String bucketArn = "arn:aws:s3:::" + at.bucket();
        JsonArray statements = new JsonArray()
                .add(new JsonObject().put("Sid", "TableObjects").put("Effect", "Allow").put("Action", objectActions)
                        .put("Resource", new JsonArray().add(bucketArn + "/" + at.prefix() + "*")))
                .add(new JsonObject().put("Sid", "ListTable").put("Effect", "Allow").put("Action", new JsonArray().add("s3:ListBucket"))
                        .put("Resource", new JsonArray().add(bucketArn))
                        .put("Condition", new JsonObject().put("StringLike", new JsonObject().put("s3:prefix", new JsonArray().add(at.prefix() + "*")))))
                .add(new JsonObject().put("Sid", "BucketLocation").put("Effect", "Allow").put("Action", new JsonArray().add("s3:GetBucketLocation"))
                        .put("Resource", new JsonArray().add(bucketArn)));
        return new JsonObject().put("Version", "2012-10-17").put("Statement", statements).encode();
    }
}
