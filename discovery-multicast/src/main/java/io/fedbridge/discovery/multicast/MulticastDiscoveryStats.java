package io.fedbridge.discovery.multicast;

/**
 * A multicast discovery agent's counters at one moment.
 *
 * @param announcementsSent   datagrams sent (heartbeats and departures)
 * @param datagramsReceived   datagrams received, whatever they held
 * @param malformedDatagrams  received datagrams that were not valid announcements (garbage, truncated, oversized,
 *                            another protocol or version): ignored
 * @param otherGroupDatagrams valid announcements of another group on the same address and port: ignored
 * @param ownDatagrams        this broker's own announcements, looped back: ignored
 * @param peers               peers known now (announcing, not departed, not expired)
 */
public record MulticastDiscoveryStats(long announcementsSent, long datagramsReceived, long malformedDatagrams,
                                      long otherGroupDatagrams, long ownDatagrams, int peers) {
}
