/** The table catalog's service face, beside lake.catalog as lake.iceberg is: its requests decoded and answered, its HTTP routes, its long polls. */
package lake.catalogapi;
