/** The API as the server reads and answers it: operation names, the one strict decoder of every request (HTTP or bus), and the error envelope. */
package lake.protocol;
