package io.fedbridge.broker;

/**
 * Something that runs beside a broker, found with {@link java.util.ServiceLoader} on the broker's class path: it is
 * started once the broker listens and closed before the broker stops. The module {@code fedbridge-metrics} provides
 * the one that serves {@link BrokerConfig#metrics()}.
 */
public interface BrokerExtension {

    /**
     * Starts this extension for {@code broker} if the broker's configuration asks for it.
     *
     * @return what to close when the broker stops (also what {@link Broker#extension(Class)} finds), or null when the
     *         configuration does not ask for this extension
     * @throws RuntimeException if it cannot start: the broker then fails to start, with this as the cause
     */
    AutoCloseable start(Broker broker);
}
