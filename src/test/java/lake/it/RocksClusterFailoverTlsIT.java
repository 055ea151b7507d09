package lake.it;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The cluster fault scenarios again, with the clustered event bus over mutual TLS (RocksDB store host n1). */
class RocksClusterFailoverTlsIT extends ClusterFailoverContract {
    private BusTlsPki tls;

    private BusTlsPki tls() throws Exception {
        if (tls == null) tls = new BusTlsPki(Files.createTempDirectory("bus-tls-pki"));
        return tls;
    }

    @Override
    protected List<List<String>> storeArgs() throws Exception {
        List<List<String>> args = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            List<String> a = new ArrayList<>(List.of("--store", "rocks", "--store-role", i == 0 ? "host" : "remote"));
            a.addAll(tls().args(i));
            args.add(a);
        }
        return args;
    }

    @Override
    protected Map<String, String> env() {
        return Map.of();
    }

    @Override
    protected String budgetGroup() {
        return "cluster-failover-bus-tls";
    }

    @Override
    protected String storeHost() {
        return "n1";
    }

    @Override
    protected Future<Vertx> joinClient(String clusterName, List<String> members, String host, int port) {
        try {
            BusTlsPki t = tls();
            return ClusteredClientExample.join(clusterName, members, host, port, t.client.cert().toString(),
                    t.client.key().toString(), t.pki.caCert.toString());
        } catch (Exception e) {
            return Future.failedFuture(e);
        }
    }
}
