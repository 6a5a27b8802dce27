package io.fedbridge.core.internal;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * An immutable map keeping its entries in insertion order in one array: about 40 bytes per entry less than the
 * {@code LinkedHashMap} it replaces, for small maps held by the thousand (the extra headers of every network
 * subscription's request). Lookups scan the array, so it is for a handful of entries. Null keys and values are allowed.
 */
public final class CompactMap<K, V> extends AbstractMap<K, V> {

    private static final CompactMap<?, ?> EMPTY = new CompactMap<>(new Object[0]);

    /** Keys at even indexes, each followed by its value. */
    private final Object[] keysAndValues;

    private CompactMap(Object[] keysAndValues) {
        this.keysAndValues = keysAndValues;
    }

    /** An immutable copy of {@code map}, in its iteration order. */
    @SuppressWarnings("unchecked")
    public static <K, V> Map<K, V> copyOf(Map<? extends K, ? extends V> map) {
        if (map.isEmpty()) {
            return (Map<K, V>) EMPTY;
        }
        Object[] kv = new Object[map.size() * 2];
        int i = 0;
        for (Map.Entry<? extends K, ? extends V> e : map.entrySet()) {
            kv[i++] = e.getKey();
            kv[i++] = e.getValue();
        }
        return new CompactMap<>(kv);
    }

    @Override
    public int size() {
        return keysAndValues.length / 2;
    }

    private int indexOf(Object key) {
        for (int i = 0; i < keysAndValues.length; i += 2) {
            if (Objects.equals(keysAndValues[i], key)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        int i = indexOf(key);
        return i < 0 ? null : (V) keysAndValues[i + 1];
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return CompactMap.this.size();
            }

            @Override
            public Iterator<Map.Entry<K, V>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < keysAndValues.length;
                    }

                    @Override
                    @SuppressWarnings("unchecked")
                    public Map.Entry<K, V> next() {
                        if (!hasNext()) {
                            throw new NoSuchElementException();
                        }
                        Map.Entry<K, V> e = new AbstractMap.SimpleImmutableEntry<>((K) keysAndValues[next], (V) keysAndValues[next + 1]);
                        next += 2;
                        return e;
                    }
                };
            }
        };
    }
}
