package lake.election;

import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.dynamo.MotoServer;

import java.util.concurrent.TimeUnit;

/** The election contract against DynamoDB's protocol served by moto, through the async SDK; a fresh table per test. */
class DynamoElectionTest extends ElectionContract {
    @Override
    protected MetaStore openStore(Vertx vertx) throws Exception {
        return MotoServer.openFreshStore(vertx).await(60, TimeUnit.SECONDS);
    }
}
