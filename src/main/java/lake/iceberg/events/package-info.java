/** The catalog's events at the Iceberg face: the REST spec's open events proposal (query, events, continuation tokens) and its CloudEvents form, over the change feed's typed catalog events. */
package lake.iceberg.events;
