/** The command line: parses options, starts a node, or hands the {@code ctl} subcommand to lakectl. Uses everything below it; nothing uses it. */
package lake;
