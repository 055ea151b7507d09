/**
 * An Iceberg table's files in the warehouse: the FileIO that lists a local directory
 * ({@link lake.iceberg.files.NioFileIO}), deletes confined to a table's own location
 * ({@link lake.iceberg.files.PurgeIO}, quiet on S3: {@link lake.iceberg.files.QuietS3Deletes}),
 * and what its metadata names ({@link lake.iceberg.files.TableFiles}).
 */
package lake.iceberg.files;
