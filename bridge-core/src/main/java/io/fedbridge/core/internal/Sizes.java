package io.fedbridge.core.internal;

import java.util.Locale;

/** Byte counts for people: in log lines and admin screens. */
public final class Sizes {

    private Sizes() {
    }

    /** {@code bytes} as 1023 B, 1.5 KiB, 255.9 MiB, 1.2 GiB. */
    public static String of(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
