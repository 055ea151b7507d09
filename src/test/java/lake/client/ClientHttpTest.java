package lake.client;

import lake.node.MetasrvNode;
import lake.node.NodeHarness;

/** The client over Vert.x's non-blocking HTTP client. */
class ClientHttpTest extends ClientContract {
    @Override
    protected MetasrvClient client(NodeHarness h, MetasrvNode node) {
        return MetasrvClient.http(h.vertx, options(node.httpPort()));
    }
}
