/** The change feed served: retention (the leader's {@link lake.watch.Compactor}), and, as it lands, publication, each node's tail and the watch API. */
package lake.watch;
