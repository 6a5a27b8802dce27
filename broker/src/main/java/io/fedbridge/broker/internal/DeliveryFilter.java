package io.fedbridge.broker.internal;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.selector.Selector;

/**
 * What a subscription accepts: its selector and, for a bridge's network subscription, the loop and TTL
 * guards — never a message that already passed the peer, never one that crossed {@code maxHops} bridges.
 * Applied where messages are routed, so a message a subscription does not accept never waits in it.
 *
 * @param selector       the JMS selector, or null
 * @param excludeBroker  a broker id; messages whose broker path contains it are not accepted; or null
 * @param maxHops        messages that crossed this many bridges already are not accepted; 0 = no limit
 */
record DeliveryFilter(Selector selector, String excludeBroker, int maxHops) {

    static DeliveryFilter of(Selector selector, String excludeBroker, int maxHops) {
        if (selector == null && excludeBroker == null && maxHops <= 0) {
            return null;
        }
        return new DeliveryFilter(selector, excludeBroker, maxHops);
    }

    boolean accepts(StompHeaders h) {
        return accepts(h, excludeBroker != null || maxHops > 0 ? h.get(FederationHeaders.BROKER_PATH) : null);
    }

    /** The same for a message whose broker path was read once, when it entered the broker. */
    boolean accepts(BrokerMessage m) {
        return accepts(m.headers, m.brokerPath);
    }

    private boolean accepts(StompHeaders h, String path) {
        if (excludeBroker != null || maxHops > 0) {
            if (path != null && !path.isEmpty()) {
                if (excludeBroker != null && path.contains(excludeBroker)) {
                    return false;
                }
                if (maxHops > 0 && hops(path) >= maxHops) {
                    return false;
                }
            }
        }
        return selector == null || selector.matches(h::get);
    }

    private static int hops(String path) {
        int n = 1;
        for (int i = 0; i < path.length(); i++) {
            if (path.charAt(i) == ',') {
                n++;
            }
        }
        return n;
    }
}
