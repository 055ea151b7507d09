package lake.client;

import lake.client.model.MetasrvException;
import lake.client.model.Txn;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Txn#fromJson} reads {@code POST /v1/txn} by the server's rules: what the server refuses is refused, never reinterpreted. */
class TxnJsonTest {
    static void refused(String json, String naming) {
        assertThatThrownBy(() -> Txn.fromJson(json)).isInstanceOf(MetasrvException.InvalidArgument.class).hasMessageContaining(naming);
    }

    @Test
    void readsEveryShapeTheServerAccepts() {
        Txn t = Txn.fromJson("{\"ops\":[{\"key\":\"a\",\"expected\":null,\"value\":\"djE=\"},{\"key\":\"b\",\"expected\":\"djE=\",\"delete\":true},"
                + "{\"key\":\"c\",\"exists\":true},{\"key\":\"d\",\"value\":\"djI=\"},{\"key\":\"e\",\"delete\":true}]}");
        assertThat(t).isEqualTo(Txn.builder().create("a", "v1").deleteIf("b", "v1".getBytes()).checkExists("c").put("d", "v2")
                .delete("e").build());
    }

    @Test
    void refusesWhatTheServerRefuses() {
        refused("{\"ops\":[{\"key\":\"a\",\"exists\":false,\"value\":\"bmV3\"}]}", "'exists' must be true, got false (\"expected\": null means absent)");
        refused("{\"ops\":[{\"key\":\"a\",\"delete\":false,\"value\":\"bmV3\"}]}", "both 'value' and 'delete'");
        refused("{\"ops\":[{\"key\":\"a\",\"delete\":false}]}", "'delete' must be true");
        refused("{\"ops\":[{\"key\":\"a\",\"expected\":\"djE=\",\"exists\":true,\"value\":\"bmV3\"}]}", "both 'expected' and 'exists'");
        refused("{\"ops\":[{\"key\":\"a\",\"value\":7}]}", "'value' must be base64 text");
        refused("{\"ops\":[{\"key\":\"a\",\"value\":\"not base64!\"}]}", "'value' is not base64");
        refused("{\"ops\":[{\"key\":\"a\",\"value\":\"YQ\"}]}", "not canonical base64");
        refused("{\"ops\":[{\"key\":\"a\",\"expected\":\"YR==\",\"delete\":true}]}", "not canonical base64");
        refused("{\"ops\":[{\"key\":\"a\",\"exists\":true,\"ttl\":3}]}", "unknown field 'ttl'");
        refused("{\"ops\":[{\"key\":\"a\"}]}", "a check needs a condition");
        refused("{\"ops\":[{\"key\":\"a\",\"value\":\"djE=\"}],\"epoch\":3}", "lakectl: --epoch");
    }
}
