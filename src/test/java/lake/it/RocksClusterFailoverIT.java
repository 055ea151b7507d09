package lake.it;

import java.util.List;
import java.util.Map;

/** The cluster scenarios with a RocksDB store host (n1) and two remote nodes. */
class RocksClusterFailoverIT extends ClusterFailoverContract {
    @Override
    protected List<List<String>> storeArgs() {
        return List.of(List.of("--store", "rocks", "--store-role", "host"),
                List.of("--store", "rocks", "--store-role", "remote"),
                List.of("--store", "rocks", "--store-role", "remote"));
    }

    @Override
    protected Map<String, String> env() {
        return Map.of();
    }

    @Override
    protected String storeHost() {
        return "n1";
    }
}
