/** Where a request arrives: the HTTP verticle (routes, limits, timeouts, replies and the error envelope) and the bus verticle; both authenticate, then hand every operation to their NodeApi. */
package lake.ingress;
