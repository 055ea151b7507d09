package lake.meta.dynamo;

import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.MetaStoreConformance;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The same conformance suite against moto in a container, for machines with a Docker engine; skipped
 * (with Testcontainers' "Docker is not available" reason) where there is none. The container runs our
 * single-threaded launcher, not the image's threaded default. Image: system property
 * {@code lake.moto.image}, default {@code motoserver/moto:5.2.1}.
 */
@Testcontainers(disabledWithoutDocker = true)
class DynamoMotoContainerTest extends MetaStoreConformance {
    private static final int PORT = 5000;

    @Container
    @SuppressWarnings("resource") // closed by the Testcontainers extension
    static final GenericContainer<?> MOTO = new GenericContainer<>(
            DockerImageName.parse(System.getProperty("lake.moto.image", "motoserver/moto:5.2.1")))
            .withCopyFileToContainer(MountableFile.forClasspathResource("moto_server.py"), "/lake/moto_server.py")
            .withCreateContainerCmdModifier(cmd -> cmd.withEntrypoint("python", "/lake/moto_server.py",
                    String.valueOf(PORT), "0.0.0.0"))
            .withExposedPorts(PORT)
            .waitingFor(Wait.forLogMessage(".*MOTO READY.*\\n", 1).withStartupTimeout(Duration.ofMinutes(2)));

    @Override
    protected MetaStore openStore(Vertx vertx) throws Exception {
        URI endpoint = URI.create("http://" + MOTO.getHost() + ":" + MOTO.getMappedPort(PORT));
        DynamoConfig config = DynamoConfig.of(MotoServer.REGION, MotoServer.freshTableName())
                .withEndpoint(endpoint)
                .withCredentials(MotoServer.CREDENTIALS)
                .withCreateTable(true)
                .withReadiness(20, Duration.ofMillis(50));
        return await(DynamoMetaStore.open(vertx, config, DynamoClients.create(config, List.of())));
    }
}
