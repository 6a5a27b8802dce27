package io.fedbridge.broker.jmx;

/** JMX view of a bridge: {@code io.fedbridge:type=Bridge,broker=NAME,bridge="..."}. */
public interface BridgeMXBean {
    String getName();

    /** CONNECTING, UP, STALLED or DOWN. */
    String getState();

    String getLastError();

    long getForwarded();

    long getPending();

    long getAcked();

    long getDuplicates();

    int getNetworkSubscriptions();

    int getRemoteConsumers();
}
