package io.fedbridge.core.bridge.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.SubscriptionRequest;
import java.util.Map;

/**
 * Carries destination definitions ({@link FederationHeaders#DEFINITIONS_TOPIC}) one way across a bridge: subscribes to
 * the source broker's definitions (which hands the new subscriber every definition it holds first: the state exchange
 * when a link comes up) and SENDs each to the target, where only a federation link may write them. The brokers decide
 * what a definition means; the relay only copies its {@code fedbridge-definition*} headers and body. Runs on the
 * source's I/O thread and never blocks (the target's write is queued).
 */
public final class DefinitionRelay {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DefinitionRelay.class);

    private final StompConnection source;
    private final StompConnection target;

    private DefinitionRelay(StompConnection source, StompConnection target) {
        this.source = source;
        this.target = target;
    }

    /**
     * Starts relaying from {@code source} to {@code target} if both brokers grant this link the definitions topic
     * ({@link FederationHeaders#DEFINITIONS} in their CONNECTED); else says why not, once, at INFO.
     */
    public static void startIfGranted(StompConnection source, StompConnection target, String label) {
        boolean fromSource = "true".equals(source.connectedHeaders().get(FederationHeaders.DEFINITIONS));
        boolean toTarget = "true".equals(target.connectedHeaders().get(FederationHeaders.DEFINITIONS));
        if (!fromSource || !toTarget) {
            if (source.connectedHeaders().get(FederationHeaders.BROKER_ID) != null && target.connectedHeaders().get(FederationHeaders.BROKER_ID) != null) {
                LOG.info("bridge {}: carries no destination definitions: {} grants this link no federate on {} (or predates them)",
                        label, (fromSource ? target : source).config().uri(), FederationHeaders.DEFINITIONS_TOPIC);
            }
            return;
        }
        DefinitionRelay r = new DefinitionRelay(source, target);
        r.source.subscribeOnIoThread(SubscriptionRequest.of(FederationHeaders.DEFINITIONS_TOPIC), r::relay);
    }

    private void relay(ReceivedMessage m) {
        StompHeaders h = StompHeaders.of(StompHeaders.DESTINATION, FederationHeaders.DEFINITIONS_TOPIC);
        for (Map.Entry<String, String> e : m.headers().entrySet()) {
            if (e.getKey().startsWith(FederationHeaders.DEFINITION)) {
                h.add(e.getKey(), e.getValue());
            }
        }
        if (target.isConnected()) {
            target.sendFrame(new StompFrame(StompCommand.SEND, h, m.body()), false);
        }
    }
}
