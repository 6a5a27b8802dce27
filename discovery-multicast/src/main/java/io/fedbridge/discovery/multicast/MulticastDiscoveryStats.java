package io.fedbridge.discovery.multicast;

/**
 * A multicast discovery agent's counters at one moment. Every received datagram is counted in
 * {@code datagramsReceived} and, if it is ignored for one of the reasons below, in that reason's counter.
 *
 * @param announcementsSent      datagrams sent (heartbeats and departures)
 * @param datagramsReceived      datagrams received, whatever they held
 * @param malformedDatagrams     received datagrams that were not valid announcements (garbage, truncated, oversized,
 *                               another protocol or version): ignored
 * @param otherGroupDatagrams    announcements of another group on the same address and port, signed or not: ignored
 * @param ownDatagrams           this broker's own announcements, looped back: ignored
 * @param unsignedDatagrams      with a secret: unsigned announcements (format {@code FEDBRIDGE1}) of this group
 * @param badSignatureDatagrams  signed announcements of this group whose signature does not match this agent's
 *                               secret (another secret, or altered), or, without a secret, any signed one: ignored
 * @param staleDatagrams         signed announcements whose timestamp is further than {@code maxClockSkew} from this
 *                               broker's clock: ignored
 * @param replayedDatagrams      signed announcements seen before (copies sent again): ignored
 * @param overMaxPeersDatagrams  announcements of new peers while {@code maxPeers} peers are known: ignored
 * @param peers                  peers known now (announcing, not departed, not expired)
 */
public record MulticastDiscoveryStats(long announcementsSent, long datagramsReceived, long malformedDatagrams,
                                      long otherGroupDatagrams, long ownDatagrams, long unsignedDatagrams,
                                      long badSignatureDatagrams, long staleDatagrams, long replayedDatagrams,
                                      long overMaxPeersDatagrams, int peers) {

    /** Datagrams ignored as forged or suspect: unsigned, badly signed, stale or replayed. */
    public long rejectedDatagrams() {
        return unsignedDatagrams + badSignatureDatagrams + staleDatagrams + replayedDatagrams;
    }
}
