package lake.meta.dynamo;

import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpResponse;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Simulates a reply lost after the server applied the request: the first response to a request
 * of the given type, whatever it said, reaches the SDK as an HTTP 500, so the SDK retries the
 * same request. The server has already processed the first attempt.
 */
final class LostReplyInterceptor implements ExecutionInterceptor {
    private final Class<? extends SdkRequest> type;
    private final AtomicBoolean armed = new AtomicBoolean(true);

    LostReplyInterceptor(Class<? extends SdkRequest> type) {
        this.type = type;
    }

    @Override
    public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
        if (type.isInstance(context.request()) && armed.compareAndSet(true, false)) {
            return context.httpResponse().toBuilder().statusCode(500).statusText("Internal Server Error").build();
        }
        return context.httpResponse();
    }

    /** Arms it again for the next request of its type. */
    void rearm() { armed.set(true); }
}
