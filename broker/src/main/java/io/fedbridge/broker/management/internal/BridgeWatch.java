package io.fedbridge.broker.management.internal;

import io.fedbridge.core.bridge.BridgeListener;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.FederationBridge;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Follows the links of the broker's bridges: publishes link-up, link-down, link-stalled and link-resumed events, and
 * remembers since when each bridge (by name, which stays the same across its reconnects) is in its state. A link that
 * fails before it was ever up (the peer is unreachable, retried with back-off) is no link-down event: it was never up.
 */
public final class BridgeWatch implements BridgeListener {

    private record Since(BridgeState state, long millis) {
    }

    private final EventPublisher events;
    private final Map<String, Since> since = new ConcurrentHashMap<>();
    private final Set<FederationBridge> up = ConcurrentHashMap.newKeySet();

    public BridgeWatch(EventPublisher events) {
        this.events = events;
    }

    /** Since when bridge {@code name} is in {@code state} (now, if this is the first time it is seen in it). */
    public long since(String name, BridgeState state, long now) {
        Since s = since.compute(name, (k, v) -> v != null && v.state() == state ? v : new Since(state, now));
        return s.millis();
    }

    private void entered(FederationBridge b, BridgeState state) {
        since.put(b.config().name(), new Since(state, System.currentTimeMillis()));
    }

    private static Map<String, Object> describe(FederationBridge b) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("bridge", b.config().name());
        d.put("peer", io.fedbridge.core.uri.CompositeUri.parse(b.config().remoteUri()).toString()); // passwords masked
        d.put("peerBrokerId", b.remoteBrokerId());
        return d;
    }

    @Override
    public void linkUp(FederationBridge bridge) {
        up.add(bridge);
        entered(bridge, BridgeState.UP);
        events.publish("link-up", describe(bridge));
    }

    @Override
    public void linkDown(FederationBridge bridge, Throwable cause) {
        Since s = since.get(bridge.config().name());
        if (s == null || s.state() != BridgeState.DOWN) {
            entered(bridge, BridgeState.DOWN);
        }
        if (up.remove(bridge)) {
            Map<String, Object> d = describe(bridge);
            d.put("error", cause == null ? null : cause.getMessage());
            events.publish("link-down", d);
        }
    }

    @Override
    public void linkStalled(FederationBridge bridge) {
        entered(bridge, BridgeState.STALLED);
        events.publish("link-stalled", describe(bridge));
    }

    @Override
    public void linkResumed(FederationBridge bridge) {
        entered(bridge, BridgeState.UP);
        events.publish("link-resumed", describe(bridge));
    }
}
