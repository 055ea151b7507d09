/** The node's meters, in the Prometheus registry that GET /metrics serves. */
package lake.metrics;
