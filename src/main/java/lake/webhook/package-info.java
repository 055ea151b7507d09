/** Delivery out: the leader POSTs the change feed to configured webhooks as CloudEvents, its cursor fenced in the store. */
package lake.webhook;
