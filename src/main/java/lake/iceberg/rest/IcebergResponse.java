package lake.iceberg.rest;

import java.util.Map;

/** What a REST request is answered with: a status, headers (ETag) and a JSON body, or none. */
public record IcebergResponse(int status, Map<String, String> headers, String body) {
    public IcebergResponse {
        headers = Map.copyOf(headers);
    }

    static IcebergResponse json(int status, String body) {
        return new IcebergResponse(status, Map.of(), body);
    }

    static IcebergResponse empty(int status) {
        return new IcebergResponse(status, Map.of(), null);
    }
}
