package io.fedbridge.discovery.multicast;

import io.fedbridge.core.discovery.DiscoveryListener;
import io.fedbridge.core.discovery.PeerInfo;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records listener calls as {@code "discovered <uri>"} / {@code "lost <uri>"}, and the peers they named. */
final class RecordingListener implements DiscoveryListener {

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<PeerInfo> peers = new CopyOnWriteArrayList<>();

    @Override
    public void peerDiscovered(PeerInfo peer) {
        events.add("discovered " + peer.uri());
        peers.add(peer);
    }

    @Override
    public void peerLost(PeerInfo peer) {
        events.add("lost " + peer.uri());
        peers.add(peer);
    }

    List<String> events() {
        return List.copyOf(events);
    }

    /** The peer of each event, in order. */
    List<PeerInfo> peers() {
        return List.copyOf(peers);
    }

    long count(String event) {
        return events.stream().filter(event::equals).count();
    }

    void clear() {
        events.clear();
        peers.clear();
    }
}
