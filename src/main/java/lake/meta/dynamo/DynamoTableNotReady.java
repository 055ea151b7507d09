package lake.meta.dynamo;

import lake.meta.MetaException;

/** The configured table did not become ACTIVE (or does not exist) within the bounded readiness checks. */
public final class DynamoTableNotReady extends MetaException.PermanentBackend {
    private final String tableName;
    private final String lastStatus;

    public DynamoTableNotReady(String tableName, String lastStatus, int checks) {
        super("DynamoDB table '" + tableName + "' is not ACTIVE after " + checks
                + " readiness check(s); last status: " + lastStatus, null);
        this.tableName = tableName;
        this.lastStatus = lastStatus;
    }

    public String tableName() { return tableName; }

    /** The last status DescribeTable reported, or {@code NOT_FOUND} when the table did not exist. */
    public String lastStatus() { return lastStatus; }
}
