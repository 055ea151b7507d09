/** How a client call travels: one transport per medium (Vert.x HTTP, the event bus, the JDK's blocking HTTP), the call as each sends it, reply decoding, and the retry rule. Used by lake.client; not an API of its own. */
package lake.client.transport;
