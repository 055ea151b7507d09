/** A follower's write path: sends a write to the leader over the node's forwarding lane, and retries only what certainly did not apply. */
package lake.forward;
