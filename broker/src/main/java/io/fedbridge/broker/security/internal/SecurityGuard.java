package io.fedbridge.broker.security.internal;

import io.fedbridge.broker.management.ManagementDestinations;
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
    private static final DestinationPattern MANAGEMENT_EVENTS = DestinationPattern.parseRule(ManagementDestinations.EVENTS);

    private final SecurityConfig config;
    private final String brokerName;
    private final LoginThrottle throttle;
    private final ThreadPoolExecutor executor;
    /** Checks federation proofs; null without a federation secret. */
    private final io.fedbridge.core.internal.FederationProof.Verifier federationProofs;

    public SecurityGuard(SecurityConfig config, String brokerName) {
        this.config = config;
        this.brokerName = brokerName;
        this.federationProofs = config.federationSecret() == null ? null
                : new io.fedbridge.core.internal.FederationProof.Verifier(config.federationSecret(), config.clock());
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
     * Null if a connection from {@code remote} that announced itself as a federation link with {@code proof} (the
     * value of {@code fedbridge-federate}) is one; else why not, for the ERROR frame. With a federation secret the proof
     * must match it. Without one, a broker with an authorizer leaves it to the {@code federate} right; a broker with
     * none trusts only links from this host (loopback or {@code vm://}), since anyone else could announce the same.
     */
    public String checkFederationLink(String proof, SocketAddress remote) {
        if (federationProofs != null) {
            String wrong = federationProofs.check(proof);
            return wrong == null ? null : "federation link refused: " + wrong;
        }
        if (config.authorizer() != null || !(remote instanceof InetSocketAddress a) || a.getAddress().isLoopbackAddress()) {
            return null;
        }
        return "federation link from " + a.getAddress().getHostAddress() + " refused: broker " + brokerName
                + " has no federationSecret and no authorization rules, so it trusts federation links from this host only; "
                + "set the same federationSecret on both brokers (or rules granting 'federate' to the bridge's user)";
    }

    /**
     * Whether a connection may use the federation headers on {@code destination}: it announced itself as a federation
     * link ({@code link}, checked by {@link #checkFederationLink}) and, with an authorizer, holds {@code federate} there.
     */
    public boolean mayFederate(Identity identity, boolean link, String destination) {
        return link && deny(identity, Operation.FEDERATE, destination) == null;
    }

    /**
     * Null if {@code identity} may SEND to {@code destination}: {@code write}; for an advisory topic (a forged advisory
     * would steer bridges and failover clients) only a federation link holding {@code federate}; for the management
     * events topic nobody (only the broker publishes there). Else why not.
     */
    public String denySend(Identity identity, boolean link, String destination) {
        if (ManagementDestinations.isReserved(destination)) {
            // the request queue never gets here (the session answers requests itself): these are the broker's events
            return destination + " is published by the broker only (management events cannot be sent by clients)";
        }
        if (isAdvisory(destination)) {
            return mayFederate(identity, link, destination) ? null : "advisory topics are written by the federation's brokers "
                    + "and links only" + (link ? " (user '" + identity.name() + "' has no federate permission on " + destination + ")"
                    : " (this connection did not announce itself as a federation link)");
        }
        return deny(identity, Operation.WRITE, destination);
    }

    /**
     * Null if {@code identity} may SUBSCRIBE to {@code destination}: {@code read}; {@code admin} (or, on a federation
     * link, {@code federate}) for an advisory topic (but {@code read} for the cluster topic failover clients follow); {@code read} and {@code admin} for a
     * wildcard that also matches advisory topics or the management events topic, such as {@code /topic/>}; {@code admin} for
     * the management events topic; nobody for the management request queue (the broker answers it). Else why not.
     */
    public String denySubscribe(Identity identity, boolean link, String destination) {
        if (destination.equals(FederationHeaders.CLUSTER_TOPIC)) {
            return deny(identity, Operation.READ, destination);
        }
        if (isAdvisory(destination)) {
            return mayFederate(identity, link, destination) ? null : deny(identity, Operation.ADMIN, destination);
        }
        if (ManagementDestinations.isReserved(destination)) {
            return ManagementDestinations.isEvents(destination) ? deny(identity, Operation.ADMIN, destination)
                    : destination + " is answered by the broker: send requests there with a reply-to, and read the answers "
                    + "on that reply-to";
        }
        String denied = deny(identity, Operation.READ, destination);
        if (denied == null && config.authorizer() != null && (destination.indexOf('*') >= 0 || destination.indexOf('>') >= 0)) {
            DestinationPattern p = DestinationPattern.parse(destination);
            if (p != null && (p.overlaps(ADVISORIES) || p.overlaps(MANAGEMENT_EVENTS))) {
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
