package lake.client;

import lake.node.MetasrvNode;
import lake.node.NodeHarness;

/** The client over the blocking JDK transport lakectl uses. */
class ClientBlockingHttpTest extends ClientContract {
    @Override
    protected MetasrvClient client(NodeHarness h, MetasrvNode node) {
        return MetasrvClient.httpBlocking(options(node.httpPort()));
    }
}
