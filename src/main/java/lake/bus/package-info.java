/** The event bus as Metasrv uses it: addresses and headers, the store's protocol and its bus face (BusMetaStore), the node-local codec, and shared round trips (BusBatch). */
package lake.bus;
