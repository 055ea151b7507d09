/** The JSON shapes client and server exchange, defined once: records with a strict decoder from the parsed JSON object and {@code toMap()}, JDK only. */
package lake.wire;
