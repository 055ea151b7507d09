package lake.meta.dynamo;

import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records what the SDK really sends: one entry per API call ({@link #calls}) and one per HTTP
 * attempt, retries included ({@link #attempts}). Observes only; changes nothing.
 */
public final class RecordingInterceptor implements ExecutionInterceptor {
    private final List<SdkRequest> calls = new CopyOnWriteArrayList<>();
    private final List<SdkRequest> attempts = new CopyOnWriteArrayList<>();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        calls.add(context.request());
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        attempts.add(context.request());
    }

    /** Every API call made so far, in order. */
    public List<SdkRequest> calls() { return List.copyOf(calls); }

    /** Every HTTP attempt made so far, in order; an SDK retry appears once per attempt. */
    public List<SdkRequest> attempts() { return List.copyOf(attempts); }

    public <T extends SdkRequest> List<T> calls(Class<T> type) {
        return calls.stream().filter(type::isInstance).map(type::cast).toList();
    }

    public <T extends SdkRequest> List<T> attempts(Class<T> type) {
        return attempts.stream().filter(type::isInstance).map(type::cast).toList();
    }

    public void clear() {
        calls.clear();
        attempts.clear();
    }
}
