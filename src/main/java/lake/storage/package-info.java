/**
 * Storage access for engines (issue 38): S3 credentials vended per table by STS
 * {@code AssumeRole}, each limited by a session policy to the table's own location and to what the
 * caller may do there. Knows S3 and IAM, not the catalog: the Iceberg routes ask it for a
 * location's credentials.
 */
package lake.storage;
