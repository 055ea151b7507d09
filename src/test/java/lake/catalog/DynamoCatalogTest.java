package lake.catalog;

import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.dynamo.MotoServer;

/** The catalog contract over DynamoDB (moto over HTTP through the async SDK), a fresh table per test. */
class DynamoCatalogTest extends CatalogContract {
    @Override
    protected MetaStore openStore(Vertx vertx) throws Exception {
        return await(MotoServer.openFreshStore(vertx));
    }
}
