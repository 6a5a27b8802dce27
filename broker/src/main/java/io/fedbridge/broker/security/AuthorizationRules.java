package io.fedbridge.broker.security;

import io.fedbridge.broker.security.internal.DestinationPattern;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Authorization by destination pattern, operation and principal, with default deny: an operation on a
 * destination is allowed only if the <em>most specific</em> pattern that has an entry for that operation and
 * matches the destination lists the identity's user, one of its groups, or {@code *}.
 *
 * <p>The rules file, one entry a line ({@code #} starts a comment line):
 * <pre>
 * # pattern                      operations         principals
 * /queue/orders.&gt;              read,write         group:apps, user:auditor
 * /queue/orders.audit            read               user:auditor
 * /topic/prices.&gt;              read               *
 * /topic/fedbridge.advisory.&gt;   admin              group:bridges
 * /queue/&gt;                       read,write,federate group:bridges
 * &gt;                              read,write,admin   group:admins
 * </pre>
 * <ul>
 *   <li>pattern: {@code >} (every destination) or a destination with wildcards as in subscriptions:
 *       {@code *} = one '.'-separated segment, {@code >} = the rest;</li>
 *   <li>operations: comma-separated {@code read} (SUBSCRIBE), {@code write} (SEND), {@code admin}
 *       (advisories), {@code federate} (the federation right: what a bridge forwards with federation headers and
 *       where it opens network subscriptions; see {@link Operation#FEDERATE}), or {@code all} (all four);</li>
 *   <li>principals: comma- or space-separated {@code user:NAME}, {@code group:NAME}, or {@code *} for every
 *       connection (anonymous ones are user and group {@value Identity#ANONYMOUS}).</li>
 * </ul>
 * Above, members of {@code apps} may send to {@code /queue/orders.audit} (the most specific {@code write}
 * entry is {@code /queue/orders.>}) but not read it (the most specific {@code read} entry names only
 * {@code auditor}). Entries with equally specific patterns that both match add up. A wildcard subscription
 * such as {@code /topic/prices.>} is allowed only if every destination it can match is.
 *
 * <p>Immutable and thread-safe; {@link #isAllowed} is a scan of the entries, with no allocation beyond
 * parsing the destination.
 */
public final class AuthorizationRules implements Authorizer {

    /**
     * One line of the rules.
     *
     * @param pattern    the destination pattern
     * @param operations what it allows
     * @param users      user names it allows
     * @param groups     group names it allows
     * @param everyone   whether it allows every identity ({@code *})
     */
    public record Entry(String pattern, Set<Operation> operations, Set<String> users, Set<String> groups,
                        boolean everyone) {
        public Entry {
            DestinationPattern.parseRule(Objects.requireNonNull(pattern, "pattern"));
            operations = Set.copyOf(operations);
            if (operations.isEmpty()) {
                throw new IllegalArgumentException("operations must not be empty for pattern '" + pattern + "'");
            }
            users = Set.copyOf(users);
            groups = Set.copyOf(groups);
            if (!everyone && users.isEmpty() && groups.isEmpty()) {
                throw new IllegalArgumentException("principals must not be empty for pattern '" + pattern + "'");
            }
        }

        boolean allows(Identity identity) {
            if (everyone || users.contains(identity.name())) {
                return true;
            }
            for (String g : identity.groups()) {
                if (groups.contains(g)) {
                    return true;
                }
            }
            return false;
        }
    }

    private record Compiled(Entry entry, DestinationPattern pattern, long specificity) {
    }

    private final List<Entry> entries;
    private final List<Compiled> compiled;

    private AuthorizationRules(List<Entry> entries) {
        this.entries = List.copyOf(entries);
        List<Compiled> c = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            DestinationPattern p = DestinationPattern.parseRule(e.pattern());
            c.add(new Compiled(e, p, p.specificity()));
        }
        this.compiled = List.copyOf(c);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Reads a rules file (UTF-8). Errors name the file and line. */
    public static AuthorizationRules load(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read authorization rules " + file + ": " + e, e);
        }
    }

    /** Parses the text of a rules file; {@code source} names it in error messages. */
    public static AuthorizationRules parse(String text, String source) {
        Builder b = builder();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+", 3);
            if (parts.length < 3) {
                throw new IllegalArgumentException(source + ":" + (i + 1) + ": an entry is 'pattern operations principals', "
                        + "e.g. '/queue/orders.> read,write group:apps', but was '" + line + "'");
            }
            try {
                Set<Operation> ops = EnumSet.noneOf(Operation.class);
                for (String op : parts[1].split(",")) {
                    if (op.equalsIgnoreCase("all")) {
                        ops.addAll(EnumSet.allOf(Operation.class));
                    } else {
                        ops.add(Operation.parse(op));
                    }
                }
                b.allow(parts[0], ops, parts[2].split("[,\\s]+"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + ":" + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return b.build();
    }

    public List<Entry> entries() {
        return entries;
    }

    @Override
    public boolean isAllowed(Identity identity, Operation operation, String destination) {
        DestinationPattern asked = DestinationPattern.parse(destination);
        if (asked == null) {
            return false;
        }
        // The most specific entries that cover everything asked for decide; more specific entries that only
        // overlap it decide for part of it, so they must allow too.
        long best = -1;
        for (Compiled c : compiled) {
            if (c.specificity > best && c.entry.operations().contains(operation) && c.pattern.covers(asked)) {
                best = c.specificity;
            }
        }
        if (best < 0) {
            return false;
        }
        boolean allowedAtBest = false;
        for (Compiled c : compiled) {
            if (!c.entry.operations().contains(operation) || c.specificity < best) {
                continue;
            }
            if (c.specificity == best && c.pattern.covers(asked)) {
                allowedAtBest |= c.entry.allows(identity);
            } else if (c.specificity > best && c.pattern.overlaps(asked) && !c.entry.allows(identity)) {
                return false;
            }
        }
        return allowedAtBest;
    }

    @Override
    public String toString() {
        return "AuthorizationRules[" + entries.size() + " entries]";
    }

    /** Not thread-safe. */
    public static final class Builder {
        private final List<Entry> entries = new ArrayList<>();

        private Builder() {
        }

        /**
         * Adds an entry.
         *
         * @param pattern    e.g. {@code /queue/orders.>}
         * @param operations what it allows
         * @param principals {@code user:NAME}, {@code group:NAME} or {@code *}
         */
        public Builder allow(String pattern, Set<Operation> operations, String... principals) {
            Set<String> users = new LinkedHashSet<>();
            Set<String> groups = new LinkedHashSet<>();
            boolean everyone = false;
            for (String p : principals) {
                String t = p.strip();
                if (t.isEmpty()) {
                    continue;
                }
                if (t.equals("*")) {
                    everyone = true;
                } else if (t.startsWith("user:")) {
                    String u = t.substring(5);
                    Identity.checkName("user", u);
                    users.add(u);
                } else if (t.startsWith("group:")) {
                    String g = t.substring(6);
                    Identity.checkName("group", g);
                    groups.add(g);
                } else {
                    throw new IllegalArgumentException("principal must be user:NAME, group:NAME or *, but was '" + t + "'");
                }
            }
            entries.add(new Entry(pattern, operations, users, groups, everyone));
            return this;
        }

        /** Adds an entry for one operation. */
        public Builder allow(String pattern, Operation operation, String... principals) {
            return allow(pattern, EnumSet.of(operation), principals);
        }

        public AuthorizationRules build() {
            return new AuthorizationRules(entries);
        }
    }
}
