/** Settings: their sources and precedence (file, LAKE_ variables, options), their validation, and the node id. */
package lake.config;
