/** Storage delegation at the Iceberg face: vended credentials and S3 remote signing for a table, only at a location the catalog assigned it (docs/iceberg.md, "Storage access"). */
package lake.iceberg.delegation;
