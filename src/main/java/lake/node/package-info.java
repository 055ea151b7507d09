/** One node, assembled: MetasrvNode deploys and stops its verticles; StoreVerticle owns the store and ElectionVerticle owns leadership; Stores opens the configured backend. */
package lake.node;
