package io.fedbridge.core.bridge;

import java.time.Duration;

/**
 * One peer's link as its network connector sees it, at one moment, across every bridge the connector started for
 * that peer (a bridge never reconnects: each retry is a new bridge, whose own counters start at zero).
 *
 * @param peerUri     the peer's URI, as discovered
 * @param peerName    the peer broker's name from its CONNECTED frame (remembered while the link is down), or null
 *                    before the first connection and for a foreign broker
 * @param bridge      the current bridge's stats, or, while the link is down and being retried, its last bridge's
 * @param forwarded   messages forwarded to the peer by every bridge to it since the connector started
 * @param duplicates  forwards the peer dropped as duplicates, every bridge to it included
 * @param reconnects  bridges started for this peer after the first one
 * @param timeInState how long the link has been in {@code bridge.state()}; a link that is down counts from the
 *                    first failure since it was last up, its retries included
 * @param receiptLag  how long forwards have waited for the peer's receipt ({@link FederationBridge#receiptLag()}),
 *                    {@link Duration#ZERO} when none waits
 */
public record LinkStats(String peerUri, String peerName, BridgeStats bridge, long forwarded, long duplicates,
                        long reconnects, Duration timeInState, Duration receiptLag) {

    /** The link's state: {@code bridge().state()}. */
    public BridgeState state() {
        return bridge.state();
    }
}
