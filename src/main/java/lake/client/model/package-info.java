/** The client's own types, which both its entry point and its transports use: the options, the transaction builder, the typed exceptions, a node's health, and JSON text. */
package lake.client.model;
