/** The shapes of grants as data ({@code /v1/grants}), shared by client and server: replies and request bodies, records only. */
package lake.wire.grants;
