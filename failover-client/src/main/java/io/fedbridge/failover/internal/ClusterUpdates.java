package io.fedbridge.failover.internal;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverEvent;
import java.util.List;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The federation's announcements of its brokers ({@link ClusterHeaders}), with {@code updateURIsSupported}: the brokers
 * the connected broker names on CONNECTED and later on its cluster topic join the ones to try (as the
 * {@link LearnedBrokerFilter} allows), and a rebalance it asks for (with {@code rebalanceUpdateURIs}) moves the client
 * to an announced broker without a failure.
 *
 * <p>Concurrency: announcements arrive on the connection's I/O thread and are applied on the engine, where everything
 * else here runs; one from a connection that is no longer the current one is ignored.
 */
final class ClusterUpdates {

    /** The id of the cluster topic's subscription, reserved on the client. */
    static final String SUBSCRIPTION_ID = "fedbridge-failover-cluster";

    private static final Logger LOG = LoggerFactory.getLogger(ClusterUpdates.class);

    private final DefaultFailoverClient client;
    private final String name;
    private final FailoverConfig config;
    private final BrokerList brokers;
    private final BrokerConnector connector;
    private final LearnedBrokerFilter filter;
    private final BackupPool backups;
    private final Random random;
    private final ClientThreads threads;

    ClusterUpdates(DefaultFailoverClient client, String name, FailoverConfig config, BrokerList brokers,
                   BrokerConnector connector, BackupPool backups, Random random, ClientThreads threads) {
        this.client = client;
        this.name = name;
        this.config = config;
        this.brokers = brokers;
        this.connector = connector;
        this.filter = new LearnedBrokerFilter(config.cluster(), name);
        this.backups = backups;
        this.random = random;
        this.threads = threads;
    }

    /** Subscribes the cluster topic on the connection being restored. Caller holds the client's lock. */
    void subscribe(StompConnection c) {
        c.subscribe(SubscriptionRequest.builder(ClusterHeaders.CLUSTER_TOPIC).ackMode(AckMode.AUTO)
                .header(StompHeaders.ID, SUBSCRIPTION_ID).build(), m -> onMessage(c, m));
    }

    private void onMessage(StompConnection c, ReceivedMessage m) {
        if (!ClusterHeaders.CLUSTER_TOPIC.equals(m.destination())) {
            LOG.debug("{}: ignoring a MESSAGE from {} to {} on the cluster subscription", name, DefaultFailoverClient.uriOf(c),
                    m.destination());
            return;
        }
        String uris = m.header(ClusterHeaders.CLUSTER_URIS);
        boolean rebalance = "true".equals(m.header(ClusterHeaders.CLUSTER_REBALANCE));
        threads.runOnEngine(() -> apply(c, uris, rebalance));
    }

    /** Applies {@code from}'s announced brokers ({@link ClusterHeaders#CLUSTER_URIS} value) if it is still current. */
    void apply(StompConnection from, String value, boolean rebalance) {
        if (!config.updateURIsSupported() || value == null || client.isTerminal()) {
            return;
        }
        CompositeUri cur = client.currentUriIf(from);
        if (cur == null) {
            return;
        }
        List<CompositeUri> announced = filter.accept(ClusterHeaders.parse(value), cur, brokers);
        boolean changed = brokers.updateLearned(announced);
        if (changed || rebalance) {
            LOG.info("{}: {} announces brokers {}{}", name, cur.withoutOptions(), announced, rebalance ? " and asks to rebalance" : "");
            threads.emit(new FailoverEvent.UrisUpdated(client.knownUris(), rebalance));
        }
        if (changed) {
            backups.ensure();
        }
        if (rebalance && config.rebalanceUpdateURIs() && !announced.isEmpty()) {
            CompositeUri target = config.randomize() ? announced.get(random.nextInt(announced.size())) : announced.get(0);
            if (!BrokerList.same(target, cur)) {
                rebalanceTo(target, "rebalance requested by " + cur.withoutOptions());
            }
        }
    }

    /** Moves to {@code target} (a backup connection if one is ready); stays where it is if that fails. */
    void rebalanceTo(CompositeUri target, String reason) {
        if (client.isTerminal() || !client.isConnected()) {
            return;
        }
        CompositeUri uri = brokers.resolve(target);
        StompConnection backup = backups.take(uri);
        if (backup != null) {
            client.switchTo(uri, backup, reason);
            return;
        }
        ClientConfig cc;
        try {
            cc = connector.clientConfig(uri);
        } catch (IllegalArgumentException e) {
            LOG.debug("{}: cannot rebalance to {}: {}", name, uri, e.getMessage());
            return;
        }
        connector.connect(cc).whenComplete((c, e) -> threads.runOnEngine(() -> {
            if (e != null) {
                LOG.info("{}: cannot rebalance to {}: {}; staying", name, uri.withoutOptions(),
                        DefaultFailoverClient.describe(DefaultFailoverClient.unwrap(e)));
            } else {
                client.switchTo(uri, c, reason);
            }
        }));
    }

    /** Announced brokers the filter refused, for the stats. */
    long ignored() {
        return filter.ignored();
    }
}
