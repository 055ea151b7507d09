/** A node's view of its authority (Leadership), the fenced write path (FencedWriter) every write goes through, the client's intent, and the clocks. */
package lake.metasrv;
