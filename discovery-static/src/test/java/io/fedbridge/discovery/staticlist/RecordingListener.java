package io.fedbridge.discovery.staticlist;

import io.fedbridge.core.discovery.DiscoveryListener;
import io.fedbridge.core.discovery.PeerInfo;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** Records listener calls as {@code "discovered <uri>"} / {@code "lost <uri>"}, with the calling threads. */
final class RecordingListener implements DiscoveryListener {

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private volatile Consumer<PeerInfo> onDiscovered = peer -> { };

    /** Runs {@code action} inside each {@code peerDiscovered}, after recording it. */
    RecordingListener onDiscovered(Consumer<PeerInfo> action) {
        onDiscovered = action;
        return this;
    }

    @Override
    public void peerDiscovered(PeerInfo peer) {
        events.add("discovered " + peer.uri());
        threads.add(Thread.currentThread());
        onDiscovered.accept(peer);
    }

    @Override
    public void peerLost(PeerInfo peer) {
        events.add("lost " + peer.uri());
        threads.add(Thread.currentThread());
    }

    List<String> events() {
        return List.copyOf(events);
    }

    List<Thread> threads() {
        return List.copyOf(threads);
    }

    long count(String event) {
        return events.stream().filter(event::equals).count();
    }

    void clear() {
        events.clear();
        threads.clear();
    }
}
