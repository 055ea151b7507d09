package lake.meta;

import java.util.Arrays;

/** One stored entry. Immutable: the value is copied in and out. */
public record KeyValue(String key, byte[] value) {
    public KeyValue {
        Keys.validateKey(key);
        Keys.validateValue("value", value);
        value = value.clone();
    }

    @Override public byte[] value() { return value.clone(); }

    /** The value's length in bytes, without copying it. */
    public int valueLength() { return value.length; }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyValue kv && key.equals(kv.key) && Arrays.equals(value, kv.value);
    }

    @Override public int hashCode() { return 31 * key.hashCode() + Arrays.hashCode(value); }

    @Override public String toString() { return "KeyValue[" + key + ", " + value.length + " bytes]"; }
}
