package lake.catalog.model;

/** A table: its namespace, its name and its registration. */
public record Table(String namespace, String name, Registration registration) {}
