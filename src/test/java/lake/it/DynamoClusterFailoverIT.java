package lake.it;

import lake.meta.dynamo.MotoServer;

import java.util.List;
import java.util.Map;

/** The cluster scenarios with every node running its own store verticle over one DynamoDB table (moto). */
class DynamoClusterFailoverIT extends ClusterFailoverContract {
    private String table;

    @Override
    protected List<List<String>> storeArgs() throws Exception {
        if (table == null) table = MotoServer.createFreshTable();
        List<String> dynamo = List.of("--store", "dynamo", "--dynamo-endpoint", MotoServer.endpoint().toString(),
                "--dynamo-region", MotoServer.REGION, "--dynamo-table", table);
        return List.of(dynamo, dynamo, dynamo);
    }

    @Override
    protected Map<String, String> env() {
        return Map.of("AWS_ACCESS_KEY_ID", MotoServer.CREDENTIALS.accessKeyId(),
                "AWS_SECRET_ACCESS_KEY", MotoServer.CREDENTIALS.secretAccessKey());
    }

    @Override
    protected String storeHost() {
        return null;
    }
}
