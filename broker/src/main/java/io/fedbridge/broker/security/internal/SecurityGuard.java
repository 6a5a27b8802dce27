package io.fedbridge.broker.security.internal;

import io.fedbridge.broker.security.AuthenticationException;
import io.fedbridge.broker.security.Authorizer;
import io.fedbridge.broker.security.Identity;
import io.fedbridge.broker.security.Operation;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.FederationHeaders;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.cert.X509Certificate;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's {@link SecurityConfig} at work: authenticates CONNECTs on its own threads (an authenticator
 * may hash or block; I/O threads must not), with the per-address {@link LoginThrottle}, and answers
 * authorization questions. One per broker; thread-safe.
 */
public final class SecurityGuard implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SecurityGuard.class);
    private static final int QUEUED_LOGINS = 1024;
    private static final SecurityGuard OPEN = new SecurityGuard(SecurityConfig.ofDefaults(), "open");
    private static final String ADVISORY_PREFIX = "/topic/fedbridge.advisory.";
    private static final DestinationPattern ADVISORIES = DestinationPattern.parseRule(ADVISORY_PREFIX + ">");

    private final SecurityConfig config;
    private final String brokerName;
    private final LoginThrottle throttle;
    private final ThreadPoolExecutor executor;

    public SecurityGuard(SecurityConfig config, String brokerName) {
        this.config = config;
        this.brokerName = brokerName;
        this.throttle = new LoginThrottle(config.maxFailedLogins(), config.loginLockout(), config.maxLoginLockout(),
                config.clock());
        if (config.authenticator() == null) {
            this.executor = null;
        } else {
            AtomicInteger n = new AtomicInteger();
            this.executor = new ThreadPoolExecutor(config.authenticationThreads(), config.authenticationThreads(), 0,
                    TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUED_LOGINS), r -> {
                        Thread t = new Thread(r, "fedbridge-" + brokerName + "-auth-" + n.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
        }
    }

    /** The guard of a broker without security: everyone is anonymous and may do everything. */
    public static SecurityGuard open() {
        return OPEN;
    }

    /** Whether CONNECT must wait for {@link #authenticate}; false for an open broker or without an authenticator. */
    public boolean authenticates() {
        return executor != null;
    }

    public SecurityConfig config() {
        return config;
    }

    /**
     * Checks CONNECT credentials. The future completes on an authentication thread (or at once) with the
     * identity, or fails with an {@link AuthenticationException} whose message is meant for the ERROR frame.
     */
    public CompletableFuture<Identity> authenticate(String login, String passcode, X509Certificate[] peerCertificates,
                                                    SocketAddress remote) {
        if (executor == null) {
            return CompletableFuture.completedFuture(Identity.ofAnonymous());
        }
        InetAddress address = remote instanceof InetSocketAddress a ? a.getAddress() : null;
        if (address != null) {
            String refused = throttle.tryBegin(address);
            if (refused != null) {
                return CompletableFuture.failedFuture(new AuthenticationException(refused));
            }
        }
        CompletableFuture<Identity> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                Identity id = null;
                AuthenticationException failure = null;
                try {
                    id = check(login, passcode, peerCertificates);
                } catch (AuthenticationException e) {
                    failure = e;
                } catch (RuntimeException e) {
                    LOG.warn("broker {}: authenticator {} failed", brokerName, config.authenticator(), e);
                    failure = new AuthenticationException("login failed: the broker could not check the credentials");
                }
                // Count the outcome before anyone hears it, so that the client's next attempt sees it.
                if (address != null) {
                    throttle.finished(address, failure == null);
                }
                if (failure == null) {
                    result.complete(id);
                } else {
                    result.completeExceptionally(failure);
                }
            });
        } catch (RejectedExecutionException e) {
            if (address != null) {
                throttle.abandoned(address);
            }
            result.completeExceptionally(new AuthenticationException("broker busy: too many logins in progress; try again later"));
        }
        return result;
    }

    private Identity check(String login, String passcode, X509Certificate[] certs) throws AuthenticationException {
        Identity id = config.authenticator().authenticate(login, passcode, certs);
        if (id != null) {
            return id;
        }
        if (config.allowAnonymous()) {
            return Identity.ofAnonymous();
        }
        throw login == null
                ? new AuthenticationException("login required: this broker does not accept anonymous connections")
                : AuthenticationException.loginFailed(login);
    }

    /**
     * Null if {@code identity} may SEND to {@code destination}: {@code write}, or {@code admin} for an advisory
     * topic (a forged advisory would steer bridges). Else why not.
     */
    public String denySend(Identity identity, String destination) {
        return deny(identity, isAdvisory(destination) ? Operation.ADMIN : Operation.WRITE, destination);
    }

    /**
     * Null if {@code identity} may SUBSCRIBE to {@code destination}: {@code read}; {@code admin} for an advisory
     * topic (but {@code read} for the cluster topic failover clients follow); {@code read} and {@code admin} for a
     * wildcard that also matches advisory topics, such as {@code /topic/>}. Else why not.
     */
    public String denySubscribe(Identity identity, String destination) {
        if (destination.equals(FederationHeaders.CLUSTER_TOPIC)) {
            return deny(identity, Operation.READ, destination);
        }
        if (isAdvisory(destination)) {
            return deny(identity, Operation.ADMIN, destination);
        }
        String denied = deny(identity, Operation.READ, destination);
        if (denied == null && config.authorizer() != null && (destination.indexOf('*') >= 0 || destination.indexOf('>') >= 0)) {
            DestinationPattern p = DestinationPattern.parse(destination);
            if (p != null && p.overlaps(ADVISORIES)) {
                denied = deny(identity, Operation.ADMIN, destination);
            }
        }
        return denied;
    }

    private static boolean isAdvisory(String destination) {
        return destination.startsWith(ADVISORY_PREFIX);
    }

    /**
     * Null if {@code identity} may perform {@code operation} on {@code destination}; else why not, e.g.
     * {@code user 'bob' has no write permission on /queue/payroll}.
     */
    public String deny(Identity identity, Operation operation, String destination) {
        Authorizer a = config.authorizer();
        if (a == null) {
            return null;
        }
        boolean allowed;
        try {
            allowed = a.isAllowed(identity, operation, destination);
        } catch (RuntimeException e) {
            LOG.warn("broker {}: authorizer {} failed on {} {}", brokerName, a, operation, destination, e);
            allowed = false;
        }
        return allowed ? null : "user '" + identity.name() + "' has no " + operation.wireName() + " permission on " + destination;
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
