package io.fedbridge.broker.security;

import java.security.cert.X509Certificate;

/**
 * Checks the credentials a connection presents at CONNECT: the STOMP {@code login} and {@code passcode}
 * headers and, on an {@code ssl://} listener that asks for them, the client's certificate chain (already
 * verified against the listener's trust store by TLS).
 *
 * <p>Called on the broker's authentication threads, never on an I/O thread, so an implementation may block
 * (hash a password, ask a directory). It must be thread-safe.
 *
 * <pre>{@code
 * Authenticator a = (login, passcode, certs) -> "app".equals(login) && "s3cret".equals(passcode)
 *         ? Identity.of("app", Set.of("apps")) : null;
 * }</pre>
 */
@FunctionalInterface
public interface Authenticator {

    /**
     * @param login            the {@code login} header, or null
     * @param passcode         the {@code passcode} header, or null; never log it
     * @param peerCertificates the client's verified certificate chain, leaf first, or null (no TLS, or no
     *                         certificate)
     * @return the identity, or null if no credentials were presented that this authenticator knows (the
     *         broker then admits the connection as {@link Identity#ofAnonymous()} only if anonymous access is
     *         allowed)
     * @throws AuthenticationException if credentials were presented and are wrong
     */
    Identity authenticate(String login, String passcode, X509Certificate[] peerCertificates)
            throws AuthenticationException;
}
