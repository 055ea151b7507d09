/** The Iceberg REST catalog's face: the routes over iceberg-core's handlers, the requests and responses as they cross the bus, idempotency records, the error model, and the bounded pool its blocking calls run on. */
package lake.iceberg.rest;
