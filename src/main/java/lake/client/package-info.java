/** The Java client's entry point: MetasrvClient (its factories and every operation, results as lake.wire records), its implementation with epoch pinning and the retry rule, and paging. */
package lake.client;
