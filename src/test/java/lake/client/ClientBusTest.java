package lake.client;

import lake.client.model.ClientOptions;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;

/** The client over the public event-bus API, from the node's own Vert.x instance (the same addresses a clustered member uses). */
class ClientBusTest extends ClientContract {
    @Override
    protected MetasrvClient client(NodeHarness h, MetasrvNode node) {
        return MetasrvClient.bus(h.vertx, ClientOptions.defaults());
    }
}
