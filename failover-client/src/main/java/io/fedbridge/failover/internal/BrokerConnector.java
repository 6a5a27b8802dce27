package io.fedbridge.failover.internal;

import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.ConnectionListener;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverConfig;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;

/**
 * How the failover client opens a connection to a broker: the config's settings for that broker's URI, plus the
 * producer secret every CONNECT carries; a broker learned from the federation's announcements gets no login or
 * passcode unless {@code updateURIsCredentials} is set. Every connection reports its loss to the client's listener.
 *
 * <p>Concurrency: immutable, thread-safe.
 */
final class BrokerConnector {

    private static final SecureRandom SECURE_RANDOM = new SecureRandom();

    private final FailoverConfig config;
    private final BrokerList brokers;
    private final ConnectionListener listener;
    /**
     * Sent as {@value FederationHeaders#PRODUCER_SECRET} on every CONNECT, the same to every broker, so that the
     * federation keys this client's {@code fedbridge-id}s by it: its resends after a failover deduplicate, and no other
     * client can forge its ids. Never logged, printed or put in a message.
     */
    private final String producerSecret = newProducerSecret();

    BrokerConnector(FailoverConfig config, BrokerList brokers, ConnectionListener listener) {
        this.config = config;
        this.brokers = brokers;
        this.listener = listener;
    }

    private static String newProducerSecret() {
        byte[] bytes = new byte[16];
        SECURE_RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * How to connect to {@code uri}.
     *
     * @throws IllegalArgumentException if the config's settings do not apply to {@code uri}
     */
    ClientConfig clientConfig(CompositeUri uri) {
        ClientConfig.Builder b = config.clientConfig(uri).toBuilder()
                .connectHeader(FederationHeaders.PRODUCER_SECRET, producerSecret);
        if (!config.cluster().updateURIsCredentials() && !brokers.isConfigured(uri)) {
            b.login(null).passcode(null);
        }
        return b.build();
    }

    CompletableFuture<StompConnection> connect(ClientConfig cc) {
        return StompConnection.connectAsync(cc, listener);
    }

    CompletableFuture<StompConnection> connect(CompositeUri uri) {
        return connect(clientConfig(uri));
    }
}
