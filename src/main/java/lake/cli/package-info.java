/** lakectl: picocli commands over the client's blocking transport, and their exit codes. */
package lake.cli;
