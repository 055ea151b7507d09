package lake.iceberg;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A bounded least-recently-used cache of parsed metadata files, keyed by location. Metadata
 * files are immutable (every commit writes a new one with a fresh UUID in its name), so an entry
 * never goes stale: a load costs one catalog read plus, usually, a hit here. Shared by every
 * request of a node; thread-safe.
 */
public final class MetadataCache<V> {
    private final int capacity;
    private final Map<String, V> entries;

    public MetadataCache(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be positive");
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > MetadataCache.this.capacity;
            }
        };
    }

    /** The cached value, or {@code load}'s (outside the lock: a slow read never stalls other loads). */
    V get(String location, Function<String, V> load) {
        synchronized (entries) {
            V hit = entries.get(location);
            if (hit != null) return hit;
        }
        V loaded = load.apply(location);
        synchronized (entries) {
            entries.put(location, loaded);
        }
        return loaded;
    }

    int size() {
        synchronized (entries) {
            return entries.size();
        }
    }
}
