package lake.meta.dynamo;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClientBuilder;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Builds the async DynamoDB client (Netty, never the sync client) a {@link DynamoConfig} describes. */
public final class DynamoClients {
    private DynamoClients() {}

    public static DynamoDbAsyncClient create(DynamoConfig config) {
        return create(config, List.of());
    }

    /**
     * How long closing the client may wait for its Netty threads. The SDK, when it owns them,
     * shuts them down with a quiet period of 2 s (no task for 2 s) before it even starts: that
     * alone overran a SIGTERMed node's shutdown budget (drain, resign, close) on a loaded machine,
     * and it exited 1 (issue 15's fault campaign). Here the client's own connection pools are
     * closed first, so nothing is left to run: the threads stop with no quiet period.
     */
    static final long EVENT_LOOP_SHUTDOWN_MS = 2_000;

    /**
     * The client, with {@code interceptors} added to the SDK's pipeline. Interceptors observe every
     * attempt the SDK makes; tests use them to record requests and inject lost replies. Its
     * {@code close()} also stops its Netty threads, without the SDK's 2 s quiet period.
     */
    public static DynamoDbAsyncClient create(DynamoConfig config, List<ExecutionInterceptor> interceptors) {
        SdkEventLoopGroup loops = SdkEventLoopGroup.builder().build();
        try {
            return closingLoops(build(config, interceptors, loops), loops);
        } catch (RuntimeException e) {
            loops.eventLoopGroup().shutdownGracefully(0, EVENT_LOOP_SHUTDOWN_MS, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /**
     * {@code client}, whose {@code close()} then shuts {@code loops} down (the SDK never closes an
     * event loop group it was given). Every other call goes to {@code client} unchanged.
     */
    private static DynamoDbAsyncClient closingLoops(DynamoDbAsyncClient client, SdkEventLoopGroup loops) {
        return (DynamoDbAsyncClient) Proxy.newProxyInstance(DynamoClients.class.getClassLoader(),
                new Class<?>[] {DynamoDbAsyncClient.class}, (self, method, args) -> {
                    if (method.getName().equals("close") && method.getParameterCount() == 0) {
                        try {
                            client.close();
                        } finally {
                            loops.eventLoopGroup().shutdownGracefully(0, EVENT_LOOP_SHUTDOWN_MS, TimeUnit.MILLISECONDS)
                                    .await(EVENT_LOOP_SHUTDOWN_MS + 500, TimeUnit.MILLISECONDS);
                        }
                        return null;
                    }
                    try {
                        return method.invoke(client, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static DynamoDbAsyncClient build(DynamoConfig config, List<ExecutionInterceptor> interceptors, SdkEventLoopGroup loops) {
        ClientOverrideConfiguration.Builder override = ClientOverrideConfiguration.builder()
                .apiCallTimeout(config.apiCallTimeout());
        interceptors.forEach(override::addExecutionInterceptor);
        DynamoDbAsyncClientBuilder builder = DynamoDbAsyncClient.builder()
                .region(Region.of(config.region()))
                .credentialsProvider(credentials(config))
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().eventLoopGroup(loops))
                .overrideConfiguration(override.build());
        config.endpointOverride().ifPresent(builder::endpointOverride);
        return builder.build();
    }

    private static AwsCredentialsProvider credentials(DynamoConfig config) {
        return config.credentials()
                .<AwsCredentialsProvider>map(c -> StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(c.accessKeyId(), c.secretAccessKey())))
                .orElseGet(() -> DefaultCredentialsProvider.builder().build());
    }
}
