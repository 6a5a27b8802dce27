package io.fedbridge.core.bridge.internal;

/**
 * Destination wildcards over '.'-separated names: {@code *} matches one segment, {@code >} the rest.
 * {@code /queue/orders.>} matches {@code /queue/orders.eu} and {@code /queue/orders.eu.de}.
 */
public final class Wildcards {

    private Wildcards() {
    }

    public static boolean matches(String pattern, String name) {
        if (pattern.indexOf('*') < 0 && pattern.indexOf('>') < 0) {
            return pattern.equals(name);
        }
        int slash = pattern.indexOf('/', 1);
        String prefix = slash < 0 ? "" : pattern.substring(0, slash + 1);
        if (!name.startsWith(prefix)) {
            return false;
        }
        String[] p = pattern.substring(prefix.length()).split("\\.", -1);
        String[] n = name.substring(prefix.length()).split("\\.", -1);
        for (int i = 0; i < p.length; i++) {
            if (p[i].equals(">")) {
                return n.length > i;
            }
            if (i >= n.length || !p[i].equals("*") && !p[i].equals(n[i])) {
                return false;
            }
        }
        return p.length == n.length;
    }
}
