package lake.meta.dynamo;

import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.MetaStoreConformance;

/** The shared backend contract, every scenario, against moto over HTTP through the async SDK; a fresh table per test. */
class DynamoMetaStoreTest extends MetaStoreConformance {
    @Override
    protected MetaStore openStore(Vertx vertx) throws Exception {
        return await(MotoServer.openFreshStore(vertx));
    }
}
