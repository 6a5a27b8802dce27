package io.fedbridge.broker.security;

import io.fedbridge.core.tls.TlsConfig;
import java.time.Clock;
import java.time.Duration;

/**
 * A broker's security: who may connect ({@link Authenticator}), what each identity may do
 * ({@link Authorizer}), TLS for its {@code ssl://} listeners, and limits against floods.
 *
 * <pre>{@code
 * SecurityConfig security = SecurityConfig.builder()
 *         .authenticator(PropertiesUserStore.load(Path.of("users.properties")))
 *         .authorizer(AuthorizationRules.load(Path.of("authorization.rules")))
 *         .tls(TlsConfig.builder().keyStore(Path.of("broker.p12")).keyStorePassword(pw).build())
 *         .build();
 * Broker.start(BrokerConfig.builder("A").listen("ssl://0.0.0.0:61614").security(security).build());
 * }</pre>
 *
 * <p>A broker without a security config ({@link #ofDefaults()}) is open, as before security existed:
 * anyone connects, {@code login}/{@code passcode} are ignored, everything is allowed. With an authenticator,
 * every connection on every listener ({@code vm://} included, so bridges too) must log in, unless anonymous
 * access is allowed. With an authorizer, every SEND and SUBSCRIBE is checked against it, default deny;
 * without one, an authenticated connection may do anything.
 *
 * @param authenticator         checks CONNECT credentials; null: no authentication (everyone is anonymous)
 * @param authorizer            checks SEND and SUBSCRIBE; null: everything is allowed
 * @param allowAnonymous        whether a connection without credentials is admitted as {@link Identity#ofAnonymous()};
 *                              default false with an authenticator, true without one
 * @param tls                   TLS for every {@code ssl://} listener (a listener URI's TLS options override it);
 *                              null: each ssl:// listener must give its own
 * @param connectionLimits      limits for every network listener (a listener URI's options override them); default none
 * @param maxFailedLogins       failed logins from one IP address before it is locked out (0 = never); default 5
 * @param loginLockout          the first lockout; each further one doubles, up to {@code maxLoginLockout}. Default 30 s
 * @param maxLoginLockout       the longest lockout, default 15 min
 * @param authenticationThreads threads that run the authenticator (password hashing is CPU-bound);
 *                              default half the processors, at least 1
 * @param clock                 the time lockouts are measured in; default the system clock
 * @param federationSecret      the federation's shared secret (at least 16 characters), or null. With it, a connection
 *                              that announces itself as a federation link must prove it (an HMAC on CONNECT, never the
 *                              secret itself), and the broker's network connectors prove it to their peers. Without it,
 *                              a broker with no authorizer trusts announced links only from this host (loopback, vm://)
 */
public record SecurityConfig(Authenticator authenticator, Authorizer authorizer, boolean allowAnonymous, TlsConfig tls,
                             ConnectionLimits connectionLimits, int maxFailedLogins, Duration loginLockout,
                             Duration maxLoginLockout, int authenticationThreads, Clock clock, String federationSecret) {

    /** A config without a federation secret. */
    public SecurityConfig(Authenticator authenticator, Authorizer authorizer, boolean allowAnonymous, TlsConfig tls,
                          ConnectionLimits connectionLimits, int maxFailedLogins, Duration loginLockout,
                          Duration maxLoginLockout, int authenticationThreads, Clock clock) {
        this(authenticator, authorizer, allowAnonymous, tls, connectionLimits, maxFailedLogins, loginLockout,
                maxLoginLockout, authenticationThreads, clock, null);
    }

    private static final SecurityConfig OPEN = builder().build();

    public SecurityConfig {
        if (authenticator == null && !allowAnonymous) {
            throw new IllegalArgumentException("allowAnonymous must be true without an authenticator (every connection is "
                    + "anonymous then), but was false");
        }
        connectionLimits = connectionLimits == null ? ConnectionLimits.ofDefaults() : connectionLimits;
        if (maxFailedLogins < 0) {
            throw new IllegalArgumentException("maxFailedLogins must be >= 0 (0 = never lock out), but was " + maxFailedLogins);
        }
        loginLockout = loginLockout == null ? Duration.ofSeconds(30) : loginLockout;
        maxLoginLockout = maxLoginLockout == null ? Duration.ofMinutes(15) : maxLoginLockout;
        if (loginLockout.isNegative() || loginLockout.isZero()) {
            throw new IllegalArgumentException("loginLockout must be > 0, but was " + loginLockout);
        }
        if (maxLoginLockout.compareTo(loginLockout) < 0) {
            throw new IllegalArgumentException("maxLoginLockout must be >= loginLockout (" + loginLockout + "), but was "
                    + maxLoginLockout);
        }
        if (authenticationThreads == 0) {
            authenticationThreads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        }
        if (authenticationThreads < 0) {
            throw new IllegalArgumentException("authenticationThreads must be > 0, but was " + authenticationThreads);
        }
        clock = clock == null ? Clock.systemUTC() : clock;
        io.fedbridge.core.internal.FederationProof.checkSecret("federationSecret", federationSecret);
    }

    /** An open broker: no authentication, no authorization, no TLS defaults, no limits. */
    public static SecurityConfig ofDefaults() {
        return OPEN;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Whether nothing is checked: no authenticator and no authorizer. */
    public boolean isOpen() {
        return authenticator == null && authorizer == null;
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.authenticator = authenticator;
        b.authorizer = authorizer;
        b.allowAnonymous = allowAnonymous;
        b.tls = tls;
        b.connectionLimits = connectionLimits;
        b.maxFailedLogins = maxFailedLogins;
        b.loginLockout = loginLockout;
        b.maxLoginLockout = maxLoginLockout;
        b.authenticationThreads = authenticationThreads;
        b.clock = clock;
        b.federationSecret = federationSecret;
        return b;
    }

    @Override
    public String toString() {
        return "SecurityConfig[authenticator=" + authenticator + ", authorizer=" + authorizer + ", allowAnonymous="
                + allowAnonymous + ", tls=" + tls + ", connectionLimits=" + connectionLimits + ", maxFailedLogins="
                + maxFailedLogins + ", loginLockout=" + loginLockout + ", maxLoginLockout=" + maxLoginLockout
                + (federationSecret == null ? "" : ", federationSecret=*****") + "]";
    }

    /** Not thread-safe. */
    public static final class Builder {
        private Authenticator authenticator;
        private Authorizer authorizer;
        private Boolean allowAnonymous;
        private TlsConfig tls;
        private ConnectionLimits connectionLimits;
        private int maxFailedLogins = 5;
        private Duration loginLockout;
        private Duration maxLoginLockout;
        private int authenticationThreads;
        private Clock clock;
        private String federationSecret;

        private Builder() {
        }

        /** See {@link SecurityConfig#federationSecret()}; null for none. */
        public Builder federationSecret(String secret) {
            this.federationSecret = secret;
            return this;
        }

        public Builder authenticator(Authenticator authenticator) {
            this.authenticator = authenticator;
            return this;
        }

        public Builder authorizer(Authorizer authorizer) {
            this.authorizer = authorizer;
            return this;
        }

        public Builder allowAnonymous(boolean allow) {
            this.allowAnonymous = allow;
            return this;
        }

        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        public Builder connectionLimits(ConnectionLimits limits) {
            this.connectionLimits = limits;
            return this;
        }

        public Builder maxFailedLogins(int max) {
            this.maxFailedLogins = max;
            return this;
        }

        public Builder loginLockout(Duration lockout) {
            this.loginLockout = lockout;
            return this;
        }

        public Builder maxLoginLockout(Duration lockout) {
            this.maxLoginLockout = lockout;
            return this;
        }

        public Builder authenticationThreads(int threads) {
            this.authenticationThreads = threads;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public SecurityConfig build() {
            boolean anonymous = allowAnonymous != null ? allowAnonymous : authenticator == null;
            return new SecurityConfig(authenticator, authorizer, anonymous, tls, connectionLimits, maxFailedLogins,
                    loginLockout, maxLoginLockout, authenticationThreads, clock, federationSecret);
        }
    }
}
