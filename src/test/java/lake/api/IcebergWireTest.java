package lake.api;

import lake.iceberg.rest.IcebergRequest;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** An Iceberg request crosses the bus whole: a follower forwards a create with its delegation header to the leader. */
class IcebergWireTest {
    @Test
    void aForwardedRequestKeepsItsAccessDelegation() {
        IcebergRequest r = new IcebergRequest("POST", List.of("v1", "namespaces", "ns", "tables"), Map.of("a", "b"), null, "key-1",
                "application/json", "{\"name\":\"t\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8), "vended-credentials");
        IcebergRequest back = IcebergWire.decode(IcebergWire.encode(r));
        assertThat(back.accessDelegation()).isEqualTo("vended-credentials");
        assertThat(back.wantsVendedCredentials()).isTrue();
        assertThat(back.segments()).isEqualTo(r.segments());
        assertThat(back.body()).isEqualTo(r.body());
        assertThat(IcebergWire.decode(IcebergWire.encode(new IcebergRequest("GET", List.of("v1", "config"), Map.of(), null, null, null, null, null)))
                .accessDelegation()).isNull();
    }
}
