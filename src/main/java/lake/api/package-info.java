/** The operation layer both ingresses call, one path per operation: decode strictly, authorize, then execute (reads from the store, writes through the fenced writer) or forward to the leader. */
package lake.api;
