/** The change feed's parts below the write path: revision keys, change records and the leader's revision sequencer with its watermark. */
package lake.feed;
