package lake.client;

import lake.server.MetasrvNode;
import lake.server.NodeHarness;

/** The client over the blocking JDK transport lakectl uses. */
class ClientBlockingHttpTest extends ClientContract {
    @Override
    protected MetasrvClient client(NodeHarness h, MetasrvNode node) {
        return MetasrvClient.httpBlocking(options(node.httpPort()));
    }
}
