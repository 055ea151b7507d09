package lake.wire;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reading and writing the members of a parsed JSON object: maps of {@code String} to
 * {@code Object} as both sides' parsers give them (objects as {@code Map}, arrays as {@code List},
 * integers as {@code Integer}, {@code Long} or {@code BigInteger}). Every reader throws
 * {@link WireException} naming the field when it is missing or of another type; an optional one
 * ({@code ...OrNull}) reads absent and {@code null} alike as {@code null}. Unsigned 64-bit numbers
 * are JSON integers from 0 to 2^64-1, held in a {@code long} and written as a {@code Long}, or a
 * {@code BigInteger} above 2^63-1.
 */
public final class Fields {
    private Fields() {}

    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /** A new insertion-ordered object from alternating names and values. */
    public static Map<String, Object> of(Object... namesAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) m.put((String) namesAndValues[i], namesAndValues[i + 1]);
        return m;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> cast(Map<?, ?> m) {
        return (Map<String, Object>) m;
    }

    public static String string(Map<String, Object> o, String field) {
        if (o.get(field) instanceof String s) return s;
        throw new WireException(field, o);
    }

    public static String stringOrNull(Map<String, Object> o, String field) {
        Object v = o.get(field);
        if (v == null || v instanceof String) return (String) v;
        throw new WireException(field, o);
    }

    public static boolean bool(Map<String, Object> o, String field) {
        if (o.get(field) instanceof Boolean b) return b;
        throw new WireException(field, o);
    }

    /** An unsigned 64-bit number. */
    public static long u64(Map<String, Object> o, String field) {
        return required(u64OrNull(o, field), field, o);
    }

    public static Long u64OrNull(Map<String, Object> o, String field) {
        Object v = o.get(field);
        if (v == null) return null;
        if ((v instanceof Long || v instanceof Integer) && ((Number) v).longValue() >= 0) return ((Number) v).longValue();
        BigInteger n = integral(v);
        if (n == null || n.signum() < 0 || n.compareTo(U64_MAX) > 0) throw new WireException(field, o);
        return n.longValue();
    }

    /** The JSON value of an unsigned 64-bit number: a {@code Long}, or a {@code BigInteger} above 2^63-1. */
    public static Object u64Value(long v) {
        return v >= 0 ? (Object) v : new BigInteger(Long.toUnsignedString(v));
    }

    /** A JSON integer within {@code int}'s range. */
    public static int int32(Map<String, Object> o, String field) {
        return required(int32OrNull(o, field), field, o);
    }

    /** {@code v}, read from {@code field}; absent (or {@code null}) where the shape requires it is a {@link WireException}. */
    private static <T> T required(T v, String field, Map<String, Object> o) {
        if (v == null) throw new WireException(field, o);
        return v;
    }

    public static Integer int32OrNull(Map<String, Object> o, String field) {
        Object v = o.get(field);
        if (v == null) return null;
        return int32(v, field, o);
    }

    private static int int32(Object v, String field, Map<String, Object> o) {
        BigInteger n = integral(v);
        if (n == null || n.bitLength() > 31) throw new WireException(field, o);
        return n.intValue();
    }

    /** Bytes as standard base64 text. */
    public static byte[] bytes(Map<String, Object> o, String field) {
        try {
            return Base64.getDecoder().decode(string(o, field));
        } catch (IllegalArgumentException e) {
            throw new WireException(field, o);
        }
    }

    /** {@code b} as standard, padded base64 text (the API's one spelling of bytes). */
    public static String base64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    public static Map<String, Object> object(Map<String, Object> o, String field) {
        if (o.get(field) instanceof Map<?, ?> m) return cast(m);
        throw new WireException(field, o);
    }

    public static List<?> array(Map<String, Object> o, String field) {
        if (o.get(field) instanceof List<?> l) return l;
        throw new WireException(field, o);
    }

    /** The array {@code field} of objects, each decoded by {@code from}. */
    public static <T> List<T> records(Map<String, Object> o, String field, java.util.function.Function<Map<String, Object>, T> from) {
        List<Map<String, Object>> objects = objects(o, field);
        List<T> out = new ArrayList<>(objects.size());
        for (Map<String, Object> e : objects) out.add(from.apply(e));
        return out;
    }

    /** {@code records} as a JSON array, each encoded by {@code toMap}. */
    public static <T> List<Object> maps(List<T> records, java.util.function.Function<T, Map<String, Object>> toMap) {
        List<Object> out = new ArrayList<>(records.size());
        for (T r : records) out.add(toMap.apply(r));
        return out;
    }

    public static List<Map<String, Object>> objects(Map<String, Object> o, String field) {
        List<?> a = array(o, field);
        List<Map<String, Object>> out = new ArrayList<>(a.size());
        for (Object e : a) {
            if (!(e instanceof Map<?, ?> m)) throw new WireException(field, o);
            out.add(cast(m));
        }
        return out;
    }

    public static List<String> strings(Map<String, Object> o, String field) {
        List<?> a = array(o, field);
        List<String> out = new ArrayList<>(a.size());
        for (Object e : a) {
            if (!(e instanceof String s)) throw new WireException(field, o);
            out.add(s);
        }
        return out;
    }

    public static List<Integer> int32s(Map<String, Object> o, String field) {
        List<?> a = array(o, field);
        List<Integer> out = new ArrayList<>(a.size());
        for (Object e : a) out.add(int32(e, field, o));
        return out;
    }

    /** An object of string members, in its order. */
    public static Map<String, String> stringMap(Map<String, Object> o, String field) {
        Map<String, Object> m = object(o, field);
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : m.entrySet()) {
            if (!(e.getValue() instanceof String s)) throw new WireException(field, o);
            out.put(e.getKey(), s);
        }
        return out;
    }

    private static BigInteger integral(Object v) {
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) return BigInteger.valueOf(((Number) v).longValue());
        if (v instanceof BigInteger b) return b;
        return null;
    }

    /**
     * Whether two parsed JSON values are the same JSON: objects with the same members (in any
     * order), arrays element by element, integers by value whichever boxed type a parser chose,
     * other numbers by decimal value.
     */
    public static boolean sameJson(Object a, Object b) {
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (x.size() != y.size()) return false;
            for (Map.Entry<?, ?> e : x.entrySet()) {
                if (!y.containsKey(e.getKey()) || !sameJson(e.getValue(), y.get(e.getKey()))) return false;
            }
            return true;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) return false;
            for (int i = 0; i < x.size(); i++) if (!sameJson(x.get(i), y.get(i))) return false;
            return true;
        }
        if (a instanceof Number x && b instanceof Number y) return number(x).equals(number(y));
        return a == null ? b == null : a.equals(b);
    }

    /** A hash consistent with {@link #sameJson}. */
    public static int jsonHash(Object v) {
        if (v instanceof Map<?, ?> m) {
            int h = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) h += e.getKey().hashCode() ^ jsonHash(e.getValue());
            return h;
        }
        if (v instanceof List<?> l) {
            int h = 1;
            for (Object e : l) h = 31 * h + jsonHash(e);
            return h;
        }
        if (v instanceof Number n) return number(n).hashCode();
        return v == null ? 0 : v.hashCode();
    }

    /** An integer as its BigInteger, another number as its decimal value without trailing zeroes. */
    private static Object number(Number n) {
        BigInteger i = integral(n);
        if (i != null) return i;
        return new BigDecimal(n.toString()).stripTrailingZeros();
    }
}
