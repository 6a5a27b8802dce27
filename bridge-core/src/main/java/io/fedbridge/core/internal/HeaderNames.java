package io.fedbridge.core.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The header names fedbridge knows ({@link StompHeaders}' and {@link FederationHeaders}' constants), recognised in a
 * frame's bytes so that the decoder hands out the constant instead of decoding a new string: no copy, no
 * allocation, and a hash code computed once (routing switches on header names).
 */
final class HeaderNames {

    private static final int MAX_LENGTH = 64;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    /** Known names by length: their bytes, and the strings. */
    private static final byte[][][] BYTES = new byte[MAX_LENGTH + 1][][];
    private static final String[][] NAMES = new String[MAX_LENGTH + 1][];
    /** The same names in an open-addressing table by hash code, for {@link #lookup(byte[], int, int, int)}. */
    private static final int TABLE_SIZE = 256;
    private static final String[] TABLE_NAMES = new String[TABLE_SIZE];
    private static final byte[][] TABLE_BYTES = new byte[TABLE_SIZE][];
    private static final int[] TABLE_HASHES = new int[TABLE_SIZE];

    static {
        List<List<String>> byLength = new ArrayList<>();
        for (int i = 0; i <= MAX_LENGTH; i++) {
            byLength.add(new ArrayList<>());
        }
        for (Class<?> c : List.of(StompHeaders.class, FederationHeaders.class)) {
            for (Field f : c.getFields()) {
                if (f.getType() == String.class && Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers())) {
                    String name;
                    try {
                        name = (String) f.get(null);
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                    if (name.matches("[a-z][a-z-]*") && name.length() <= MAX_LENGTH && !byLength.get(name.length()).contains(name)) {
                        byLength.get(name.length()).add(name);
                    }
                }
            }
        }
        for (int len = 0; len <= MAX_LENGTH; len++) {
            List<String> names = byLength.get(len);
            if (!names.isEmpty()) {
                NAMES[len] = names.toArray(String[]::new);
                BYTES[len] = names.stream().map(n -> n.getBytes(StandardCharsets.US_ASCII)).toArray(byte[][]::new);
                for (String name : names) {
                    int i = slot(name.hashCode());
                    while (TABLE_NAMES[i] != null) {
                        i = (i + 1) & (TABLE_SIZE - 1);
                    }
                    TABLE_NAMES[i] = name;
                    TABLE_BYTES[i] = name.getBytes(StandardCharsets.US_ASCII);
                    TABLE_HASHES[i] = name.hashCode();
                }
            }
        }
        if (Arrays.stream(TABLE_NAMES).filter(n -> n != null).count() > TABLE_SIZE / 2) {
            throw new IllegalStateException("HeaderNames.TABLE_SIZE must be at least twice the known names");
        }
    }

    private HeaderNames() {
    }

    /**
     * The known name that the {@code len} bytes at {@code start} of {@code a} spell, or null; {@code hash} is the
     * {@link String#hashCode()} those bytes would have as ISO-8859-1 ({@code h = 31 * h + b}), which a caller
     * scanning the bytes anyway computes on the way.
     */
    static String lookup(byte[] a, int start, int len, int hash) {
        for (int i = slot(hash); TABLE_NAMES[i] != null; i = (i + 1) & (TABLE_SIZE - 1)) {
            if (TABLE_HASHES[i] == hash && spells(a, start, len, TABLE_BYTES[i])) {
                return TABLE_NAMES[i];
            }
        }
        return null;
    }

    /** {@code h = 31 * h + b} over the bytes: {@link String#hashCode()} of an ISO-8859-1 string. */
    static int hash(byte[] a, int start, int len) {
        int h = 0;
        for (int i = start; i < start + len; i++) {
            h = 31 * h + (a[i] & 0xff);
        }
        return h;
    }

    /**
     * Whether the {@code len} bytes at {@code start} of {@code a} are {@code s}'s bytes; eight at a time, from the
     * end (ids and counters differ at the end).
     */
    static boolean spells(byte[] a, int start, int len, byte[] s) {
        if (s.length != len) {
            return false;
        }
        int k = len;
        for (; k >= Long.BYTES; k -= Long.BYTES) {
            if ((long) LONGS.get(a, start + k - Long.BYTES) != (long) LONGS.get(s, k - Long.BYTES)) {
                return false;
            }
        }
        for (k--; k >= 0; k--) {
            if (a[start + k] != s[k]) {
                return false;
            }
        }
        return true;
    }

    private static int slot(int hash) {
        return (hash ^ (hash >>> 16)) & (TABLE_SIZE - 1);
    }

    /** The known name that the {@code len} bytes at {@code start} spell, or null. */
    static String lookup(ByteBuf in, int start, int len) {
        if (len <= 0 || len > MAX_LENGTH || BYTES[len] == null) {
            return null;
        }
        byte[][] candidates = BYTES[len];
        byte first = in.getByte(start);
        byte last = in.getByte(start + len - 1);
        next:
        for (int c = 0; c < candidates.length; c++) {
            byte[] b = candidates[c];
            if (b[0] != first || b[len - 1] != last) {
                continue;
            }
            for (int k = 1; k < len - 1; k++) {
                if (in.getByte(start + k) != b[k]) {
                    continue next;
                }
            }
            return NAMES[len][c];
        }
        return null;
    }
}
