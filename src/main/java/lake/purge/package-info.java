/** The purge worker: while this node leads, dropped tables queued for purge have their files deleted in fenced batches (docs/catalog.md, "The life of a dropped table"). */
package lake.purge;
