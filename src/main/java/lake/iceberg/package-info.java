/** An Iceberg catalog over lake.catalog: tables and views are registrations with a metadata pointer, swapped in one fenced transaction; names, metadata caching and file IO. */
package lake.iceberg;
