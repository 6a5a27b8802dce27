package io.fedbridge.broker.security;

import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Who a connection is: a user name and the groups it belongs to, as an {@link Authenticator} established them
 * at CONNECT. Authorization rules name users and groups ({@link AuthorizationRules}).
 *
 * @param name      the user name, e.g. {@code alice}; {@value #ANONYMOUS} for an anonymous connection
 * @param groups    the user's groups; an anonymous connection is in the group {@value #ANONYMOUS}
 * @param anonymous whether the connection presented no credentials
 */
public record Identity(String name, Set<String> groups, boolean anonymous) {

    /** The user and group name of anonymous connections. */
    public static final String ANONYMOUS = "anonymous";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]{1,128}");
    private static final Identity ANONYMOUS_IDENTITY = new Identity(ANONYMOUS, Set.of(ANONYMOUS), true);

    public Identity {
        checkName("name", name);
        groups = Set.copyOf(Objects.requireNonNull(groups, "groups"));
        for (String g : groups) {
            checkName("group", g);
        }
    }

    /** An authenticated user. */
    public static Identity of(String name, Set<String> groups) {
        return new Identity(name, groups, false);
    }

    public static Identity ofAnonymous() {
        return ANONYMOUS_IDENTITY;
    }

    static void checkName(String what, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must be 1-128 letters, digits, '.', '_', '@' or '-', but was '"
                    + name + "'");
        }
    }
}
