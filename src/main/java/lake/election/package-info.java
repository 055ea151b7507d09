/** The lease record, unsigned fencing epochs, and campaign and resign as pure logic over a MetaStore with the clock injected. */
package lake.election;
