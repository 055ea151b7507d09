/** The Java client: typed results and exceptions, the retry rule, epoch pinning, and transports over Vert.x HTTP, the event bus and the JDK's blocking HTTP. */
package lake.client;
