package io.fedbridge.broker.jmx;

/** JMX view of a broker: {@code io.fedbridge:type=Broker,name=NAME}. */
public interface BrokerMXBean {
    String getName();

    String getBrokerId();

    String[] getConnectUris();

    int getConnectionCount();

    long getMemoryUsed();

    long getMemoryLimit();

    /** Times the memory reached the limit and paused producers since the broker started. */
    long getMemoryLimitReached();

    /** Producer connections paused now, waiting for memory. */
    int getMemoryPausedConnections();

    long getDuplicatesDropped();

    String[] getNetworkConnectors();

    /** Adds a network connector, e.g. {@code static:(tcp://b:61613)?networkTTL=2}. */
    void addNetworkConnector(String discoveryUri);

    /** Removes a network connector; false if there was none with that URI. */
    boolean removeNetworkConnector(String discoveryUri);

    /** Topics with subscribers (or sent to), as management lists them. */
    String[] getTopics();

    /** Connection ids (what {@link #closeConnection} takes), bridges' included. */
    String[] getConnections();

    /** Removes the messages waiting in a queue; returns how many. Fails naming the queue if there is none. */
    int purgeQueue(String destination);

    /** Deletes a queue without consumers, with its messages; returns how many it held. */
    int deleteQueue(String destination);

    /** Closes a connection (its client gets an ERROR saying so). Fails naming it if there is none. */
    void closeConnection(String id);
}
