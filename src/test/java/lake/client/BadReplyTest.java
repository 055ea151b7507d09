package lake.client;

import io.vertx.core.Future;
import lake.client.model.ClientOptions;
import lake.client.model.MetasrvException;
import lake.client.model.NodeHealth;
import lake.client.transport.Call;
import lake.client.transport.Transport;
import lake.wire.Fields;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A reply that is not its operation's shape fails as the client's bad-reply error, naming the field, never a raw exception. */
class BadReplyTest {
    /** A client whose every call is answered at once with {@code reply}. */
    private static MetasrvClient answering(Map<String, Object> reply) {
        return new DefaultClient(new Transport() {
            @Override public int endpoints() { return 1; }
            @Override public String endpoint(int i) { return "fake"; }
            @Override public Future<Map<String, Object>> send(Call call, int endpoint, long timeoutMs, long minSendMs) {
                return Future.succeededFuture(reply);
            }
            @Override public Future<List<NodeHealth>> health(long timeoutMs) { return Future.succeededFuture(List.of()); }
            @Override public Future<Void> delay(long ms) { return Future.succeededFuture(); }
            @Override public Future<Void> close() { return Future.succeededFuture(); }
        }, ClientOptions.defaults());
    }

    private static void badReply(Future<?> call, String field, String shown) {
        assertThat(call.failed()).isTrue();
        assertThat(call.cause()).isInstanceOfSatisfying(MetasrvException.ServerError.class, e -> {
            assertThat(e.code()).isEqualTo("unexpected_reply");
            assertThat(e.getMessage()).contains("'" + field + "'").contains(shown);
        });
    }

    @Test
    void aReplyOfAnotherShapeIsAServerErrorNamingTheField() {
        badReply(answering(Fields.of("key", "k")).get("k"), "value", "{\"key\":\"k\"}");
        badReply(answering(Fields.of("applied", "yes", "epoch", 1L)).create("k", "v"), "applied", "\"yes\"");
        Map<String, Object> table = Fields.of("namespace", "n", "name", "t",
                "registration", Fields.of("location", "x", "current_version", -1L));
        badReply(answering(table).getTable("n", "t"), "current_version", "{\"location\":\"x\",\"current_version\":-1}");
        badReply(answering(Fields.of("status", "later")).snapshot(), "status", "later");
        badReply(answering(Fields.of()).resign(), "resigned", "{}");
    }
}
