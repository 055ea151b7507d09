/** The catalog's JSON shapes, shared by client and server: its replies and its request bodies, records only. */
package lake.wire.catalog;
