package io.fedbridge.broker.jmx;

/** JMX view of a broker: {@code io.fedbridge:type=Broker,name=NAME}. */
public interface BrokerMXBean {
    String getName();

    String getBrokerId();

    String[] getConnectUris();

    int getConnectionCount();

    long getMemoryUsed();

    long getMemoryLimit();

    long getDuplicatesDropped();

    String[] getNetworkConnectors();

    /** Adds a network connector, e.g. {@code static:(tcp://b:61613)?networkTTL=2}. */
    void addNetworkConnector(String discoveryUri);

    /** Removes a network connector; false if there was none with that URI. */
    boolean removeNetworkConnector(String discoveryUri);
}
