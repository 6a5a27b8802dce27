package io.fedbridge.broker.internal;

import io.fedbridge.broker.security.AuthenticationException;
import io.fedbridge.broker.security.internal.SecurityGuard;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.internal.HeartBeatHandler;
import io.fedbridge.core.internal.HeartBeats;
import io.fedbridge.core.internal.PipelineNames;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CONNECT on one {@link ServerSession}: negotiates the protocol version and heart-beats, checks a federation link's
 * announcement, authenticates (on the security guard's threads), admits or refuses the connection on an HA member and
 * for a queue replica, claims the client-id, answers CONNECTED, and hands an HA backup's or a replica's link over to
 * its replication handler. Owns what the CONNECT frame asked for until the connection is established.
 *
 * <p>Runs on the connection's I/O thread (the event loop), like the session whose state it sets; only the password
 * check runs elsewhere, and its outcome comes back to the event loop.
 */
final class SessionConnect {

    private static final Logger LOG = LoggerFactory.getLogger(ServerSession.class);
    private static final List<String> VERSIONS = List.of("1.2", "1.1", "1.0");
    private static final long HEART_BEAT_FLOOR = 50;

    private final ServerSession session;
    private final BrokerCore core;
    private final SecurityGuard guard;
    /** The {@code fedbridge-producer-secret} of CONNECT, until {@link #completeConnect} turns it into the session's id scope. */
    private String producerSecret;
    /** The CONNECT's headers when it asked for an HA group's replication stream; else null. */
    private StompHeaders haBackupConnect;
    private boolean haAdminRequest;
    /** The CONNECT's headers when it asked for a queue's replication stream ({@link QueueReplicas#SOURCE_HEADER}); else null. */
    private StompHeaders replicaConnect;

    SessionConnect(ServerSession session, BrokerCore core, SecurityGuard guard) {
        this.session = session;
        this.core = core;
        this.guard = guard;
    }

    void onConnect(ChannelHandlerContext ctx, StompFrame f) {
        String accept = f.header(StompHeaders.ACCEPT_VERSION);
        String chosen = null;
        if (accept == null) {
            chosen = "1.0";
        } else {
            List<String> offered = List.of(accept.replace(" ", "").split(","));
            for (String v : VERSIONS) {
                if (offered.contains(v)) {
                    chosen = v;
                    break;
                }
            }
        }
        if (chosen == null) {
            session.error("unsupported protocol version(s) '" + accept + "': this broker speaks STOMP 1.0, 1.1 and 1.2", null, null);
            return;
        }
        session.version = chosen;
        session.clientId = f.header("client-id");
        String federate = f.header(FederationHeaders.FEDERATE);
        if (federate != null) {
            String refused = guard.checkFederationLink(federate, ctx.channel().remoteAddress());
            if (refused != null) {
                session.error("CONNECT refused: " + refused, null, f.header(StompHeaders.RECEIPT));
                return;
            }
            session.federationLink = true;
        }
        if (f.header(HaGate.BACKUP_HEADER) != null) {
            if (!session.federationLink) {
                session.error("CONNECT refused: " + HaGate.BACKUP_HEADER + " needs a link that holds the federation right ("
                        + FederationHeaders.FEDERATE + ")", null, f.header(StompHeaders.RECEIPT));
                return;
            }
            haBackupConnect = f.headers();
        }
        haAdminRequest = "true".equals(f.header(HaGate.ADMIN_HEADER));
        if (f.header(QueueReplicas.SOURCE_HEADER) != null) {
            replicaConnect = f.headers();
        }
        producerSecret = f.header(FederationHeaders.PRODUCER_SECRET);
        if (producerSecret != null && producerSecret.length() < ProducerIds.MIN_SECRET_LENGTH) {
            session.error("CONNECT refused: " + FederationHeaders.PRODUCER_SECRET + " must be at least " + ProducerIds.MIN_SECRET_LENGTH
                    + " characters, but was " + producerSecret.length(), null, f.header(StompHeaders.RECEIPT));
            return;
        }
        long[] client;
        try {
            client = HeartBeats.parse(f.header(StompHeaders.HEART_BEAT));
        } catch (IllegalArgumentException e) {
            session.error(e.getMessage(), null, null);
            return;
        }
        // Meet a client that wants faster heart-beats than our default offer (down to a floor), as ActiveMQ
        // does: a bridge with heartBeat=500ms must notice a dead link in ~1.5 s, not in 3x our 10 s default.
        long offer = core.config.heartBeat().toMillis();
        long sendOffer = offer == 0 ? 0 : client[1] > 0 ? Math.max(HEART_BEAT_FLOOR, Math.min(offer, client[1])) : offer;
        long receiveOffer = offer == 0 ? 0 : client[0] > 0 ? Math.max(HEART_BEAT_FLOOR, Math.min(offer, client[0])) : offer;
        HeartBeats beats = HeartBeats.negotiate(sendOffer, receiveOffer, client[0], client[1]);
        if (guard.authenticates()) {
            authenticate(ctx, f, sendOffer, receiveOffer, beats);
            return;
        }
        completeConnect(ctx, sendOffer, receiveOffer, beats);
    }

    /**
     * Checks the CONNECT's credentials on the security guard's threads (hashing a password must not stall an
     * I/O thread); frames that arrive meanwhile wait in the session's deferred frames, as for a paused producer.
     */
    private void authenticate(ChannelHandlerContext ctx, StompFrame f, long sendOffer, long receiveOffer, HeartBeats beats) {
        Channel ch = ctx.channel();
        session.paused = true;
        ch.config().setAutoRead(false);
        guard.authenticate(f.header(StompHeaders.LOGIN), f.header(StompHeaders.PASSCODE),
                io.fedbridge.core.tls.internal.SslContexts.peerCertificates(ch), ch.remoteAddress())
                .whenComplete((id, e) -> ch.eventLoop().execute(() -> {
                    if (session.state != ServerSession.State.AWAITING_CONNECT) {
                        return; // closed meanwhile
                    }
                    if (e != null) {
                        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
                        String why = cause instanceof AuthenticationException ? cause.getMessage() : "login failed";
                        core.hook.loginFailed(f.header(StompHeaders.LOGIN), String.valueOf(ch.remoteAddress()), why);
                        session.error(why, null, f.header(StompHeaders.RECEIPT));
                        return;
                    }
                    session.identity = id;
                    LOG.debug("broker {}: {} from {} is user '{}'", core.config.name(), session.id(), ch.remoteAddress(), id.name());
                    completeConnect(ctx, sendOffer, receiveOffer, beats);
                    session.resumeReading();
                }));
    }

    private void completeConnect(ChannelHandlerContext ctx, long sendOffer, long receiveOffer, HeartBeats beats) {
        HaGate ha = core.haGate;
        StompHeaders haConnected = new StompHeaders();
        if (haBackupConnect != null) {
            // The stream carries every stored message: with authorization rules, the link's user needs 'federate' on it.
            String stream = "/topic/fedbridge.ha." + haBackupConnect.get(HaGate.BACKUP_HEADER); // its name in the rules
            String refused = ha == null ? "broker " + core.config.name() + " is not a member of an HA group"
                    : !guard.mayFederate(session.identity, session.federationLink, stream) ? "user '" + session.identity.name()
                    + "' lacks the federate right on " + stream + ", which an HA backup's link needs"
                    : ha.refuseBackup(haBackupConnect, session.identity, haConnected);
            if (refused != null) {
                session.error("CONNECT refused: " + refused, null, null);
                return;
            }
        } else if (ha != null) {
            String refused = ha.refuseClient(haAdminRequest);
            if (refused != null) {
                refuseForPrimary(refused, ha.primaryUri());
                return;
            }
            session.backupAdmin = ha.isBackup();
        }
        String replicaRefused = replicaConnect == null ? null : core.replicas.refuseSource(replicaConnect, session.identity, session.federationLink, guard);
        if (replicaRefused != null) {
            session.error("CONNECT refused: " + replicaRefused, null, null);
            return;
        }
        if (session.clientId != null) {
            if (!core.claimClientId(session.clientId, session)) {
                // ActiveMQ's rule: a second live connection with one client-id would share its durable subscriptions.
                session.error("CONNECT refused: client-id '" + session.clientId + "' is already in use by another connection to broker "
                        + core.config.name(), null, null);
                return;
            }
            session.clientIdClaimed = true;
        }
        session.idScope = ProducerIds.scope(session.identity, producerSecret, core.brokerId, session.id());
        session.tempOwner = core.temps.connected(session.identity, producerSecret, session.tempOwner);
        producerSecret = null;
        session.dedupeShare = session.identity.anonymous() ? session.idScope : "user:" + session.identity.name();
        StompHeaders h = new StompHeaders();
        h.add(StompHeaders.VERSION, session.version);
        h.add(StompHeaders.SERVER, ServerSession.SERVER);
        h.add(StompHeaders.SESSION, session.id());
        h.add(StompHeaders.HEART_BEAT, sendOffer + "," + receiveOffer);
        h.add(FederationHeaders.BROKER_ID, core.brokerId);
        h.add(FederationHeaders.BROKER_NAME, core.config.name());
        h.add(FederationHeaders.CLUSTER_URIS, core.clusterUris());
        h.add(FederationHeaders.ORDERED_RECEIPTS, "true");
        h.add(FederationHeaders.VOUCHED_IDS, "true");
        if (session.federationLink) {
            h.add(FederationHeaders.ACK_THROUGH, "true");
        }
        if (session.federationLink && session.mayFederate(FederationHeaders.IN_DOUBT_TOPIC)) {
            h.add(FederationHeaders.IN_DOUBT, "true"); // else a bridge's SUBSCRIBE there would be refused, and the link with it
        }
        if (!core.temps.graceFor(session.tempOwner).isZero()) {
            h.add(FederationHeaders.TEMP_RECONNECT_GRACE, Long.toString(core.temps.graceFor(session.tempOwner).toMillis()));
        }
        if (session.federationLink && session.mayFederate(FederationHeaders.DEFINITIONS_TOPIC)) {
            h.add(FederationHeaders.DEFINITIONS, "true");
        }
        haConnected.forEach(h::add);
        session.state = ServerSession.State.CONNECTED;
        session.sessionLimits.disarmConnectDeadline();
        ctx.writeAndFlush(new StompFrame(StompCommand.CONNECTED, h));
        if (beats.sendMillis() > 0 || beats.receiveMillis() > 0) {
            ctx.pipeline().addBefore(PipelineNames.DECODER, PipelineNames.HEART_BEAT, new HeartBeatHandler(beats));
        }
        if (haBackupConnect != null) {
            // The link now carries the group's replication stream, not a client's frames.
            core.unregister(session);
            if (session.clientIdClaimed) {
                core.releaseClientId(session.clientId, session);
                session.clientIdClaimed = false;
            }
            ctx.pipeline().replace(session, "fedbridge-ha-replication", ha.newReplicationHandler(haBackupConnect));
        } else if (replicaConnect != null) {
            core.unregister(session); // the link now carries one queue's replication stream
            ctx.pipeline().replace(session, "fedbridge-queue-replication", core.replicas.newSourceHandler(replicaConnect));
        }
    }

    /** A backup's answer to a client: an ERROR naming the primary, so that a failover client moves there. */
    private void refuseForPrimary(String message, String primary) {
        session.state = ServerSession.State.CLOSED;
        StompHeaders h = new StompHeaders();
        h.add(StompHeaders.MESSAGE, message);
        h.add(StompHeaders.CONTENT_TYPE, "text/plain");
        if (primary != null) {
            h.add(HaGate.PRIMARY_HEADER, primary);
        }
        LOG.debug("broker {}: refusing connection {} from {}: {}", core.config.name(), session.id(), session.channel.remoteAddress(), message);
        session.channel.writeAndFlush(new StompFrame(StompCommand.ERROR, h, message.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .addListener(ChannelFutureListener.CLOSE);
    }
}
