package lake.meta.dynamo;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClientBuilder;

import java.util.List;

/** Builds the async DynamoDB client (Netty, never the sync client) a {@link DynamoConfig} describes. */
public final class DynamoClients {
    private DynamoClients() {}

    public static DynamoDbAsyncClient create(DynamoConfig config) {
        return create(config, List.of());
    }

    /**
     * The client, with {@code interceptors} added to the SDK's pipeline. Interceptors observe every
     * attempt the SDK makes; tests use them to record requests and inject lost replies.
     */
    public static DynamoDbAsyncClient create(DynamoConfig config, List<ExecutionInterceptor> interceptors) {
        ClientOverrideConfiguration.Builder override = ClientOverrideConfiguration.builder()
                .apiCallTimeout(config.apiCallTimeout());
        interceptors.forEach(override::addExecutionInterceptor);
        DynamoDbAsyncClientBuilder builder = DynamoDbAsyncClient.builder()
                .region(Region.of(config.region()))
                .credentialsProvider(credentials(config))
                .httpClientBuilder(NettyNioAsyncHttpClient.builder())
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
