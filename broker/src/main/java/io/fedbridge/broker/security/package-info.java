/**
 * Security of a broker node: who may connect, what each identity may do, TLS on listeners, and limits
 * against floods. Configure it with {@link io.fedbridge.broker.security.SecurityConfig} on
 * {@link io.fedbridge.broker.BrokerConfig.Builder#security}; a broker without one is open, as before.
 *
 * <h2>Authentication</h2>
 * At CONNECT, the {@link io.fedbridge.broker.security.Authenticator} checks the {@code login} and
 * {@code passcode} headers, or on an {@code ssl://} listener with {@code needClientAuth}/{@code wantClientAuth}
 * the client's verified certificate. It runs on the broker's authentication threads, never an I/O thread.
 * A wrong or unknown login is answered with an ERROR frame ({@code login failed for user 'x': unknown user or
 * wrong passcode}) and the connection is closed. After {@code maxFailedLogins} failures in a row from one IP
 * address, that address is refused without any password check for {@code loginLockout} (doubling up to
 * {@code maxLoginLockout}); at most four logins per address are checked at once. Every listener is secured,
 * {@code vm://} included, so bridges and in-JVM clients log in too.
 * {@link io.fedbridge.broker.security.PropertiesUserStore} reads a users file with PBKDF2 hashes.
 *
 * <h2>Authorization</h2>
 * With an {@link io.fedbridge.broker.security.Authorizer}, every SEND needs {@code write} on its destination and
 * every SUBSCRIBE {@code read} (a wildcard subscription: on everything it can match); advisory topics
 * ({@code /topic/fedbridge.advisory.*}) need {@code admin}, except the cluster topic failover clients follow,
 * which needs {@code read}. A SEND forwarded by a bridge is checked like any other, against the identity the
 * bridge logged in with, so a bridge can neither read nor deliver what that identity may not. Denials are
 * ERROR frames ({@code SEND denied: user 'bridge' has no write permission on /queue/payroll}) that close the
 * connection; nothing is delivered. {@link io.fedbridge.broker.security.AuthorizationRules} reads a rules file.
 *
 * <h2>TLS and limits</h2>
 * {@code ssl://} listeners take {@link io.fedbridge.core.tls.TlsConfig} options on their URI, over
 * {@link io.fedbridge.broker.security.SecurityConfig#tls()}; every network listener takes
 * {@link io.fedbridge.broker.security.ConnectionLimits} options ({@code maximumConnections},
 * {@code maximumConnectionsPerAddress}). See {@link io.fedbridge.broker.security.ListenerConfig}.
 *
 * <h2>What a bridge needs</h2>
 * The identity in a network connector's {@code userName}/{@code password} must exist on both brokers. On its
 * own broker it needs {@code read} on what it forwards (and {@code admin} on the advisories for a duplex
 * bridge); on the peer, {@code admin} on {@code /topic/fedbridge.advisory.>} and {@code write} on what it
 * forwards.
 *
 * <h2>Secrets</h2>
 * Passwords never appear in logs, ERROR frames, exception messages, JMX or {@code toString()}: configs mask
 * them, URIs mask every {@code *password}/{@code *passcode} option, and the users file holds only hashes.
 */
package io.fedbridge.broker.security;
