package io.fedbridge.broker.security;

/**
 * Credentials were presented and are wrong: unknown user, wrong passcode, unknown certificate. The message
 * goes to the client in the ERROR frame and to the broker's log, so it must never contain the passcode; it
 * should not tell an unknown user from a wrong passcode either.
 */
public class AuthenticationException extends Exception {
    private static final long serialVersionUID = 1L;

    public AuthenticationException(String message) {
        super(message);
    }

    /**
     * The standard failure for a login: {@code login failed for user 'alice': unknown user or wrong passcode},
     * the same for both causes. The login is shown at most 64 characters long with control characters replaced,
     * since it comes from the client and goes to the log.
     */
    public static AuthenticationException loginFailed(String login) {
        return new AuthenticationException("login failed for user '" + printable(login) + "': unknown user or wrong passcode");
    }

    static String printable(String s) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), 64));
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            sb.append(Character.isISOControl(c) ? '?' : c);
        }
        return s.length() > 64 ? sb.append("...").toString() : sb.toString();
    }
}
