/** The operator's console: its page and assets at /ui/, the epoch timeline, and the JSON views behind them. */
package lake.console;
