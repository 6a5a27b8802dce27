package io.fedbridge.core.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The header names fedbridge knows ({@link StompHeaders}' and {@link FederationHeaders}' constants), recognised in a
 * frame's bytes so that the decoder hands out the constant instead of decoding a new string: no copy, no
 * allocation, and a hash code computed once (routing switches on header names).
 */
final class HeaderNames {

    private static final int MAX_LENGTH = 64;
    /** Known names by length: their bytes, and the strings. */
    private static final byte[][][] BYTES = new byte[MAX_LENGTH + 1][][];
    private static final String[][] NAMES = new String[MAX_LENGTH + 1][];

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
            }
        }
    }

    private HeaderNames() {
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
