/** Hazelcast clustering (and the event bus over mutual TLS) and the cluster's membership; it never decides who leads. */
package lake.cluster;
