/** The typed events a catalog write's change record carries, and the namespaces each names (for filtering by grants). */
package lake.catalog.events;
