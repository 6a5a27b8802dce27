package io.fedbridge.benchmarks;

/**
 * Child JVM: the {@link StompRelay} on {@code tcp://127.0.0.1:0}. Prints {@code READY tcp://127.0.0.1:PORT}
 * and runs until its stdin closes.
 */
public final class RelayMain {

    private RelayMain() {
    }

    public static void main(String[] args) {
        StompRelay relay = StompRelay.start("tcp://127.0.0.1:0");
        Runtime.getRuntime().addShutdownHook(new Thread(relay::close, "fedbridge-bench-relay-stop"));
        ChildProtocol.ready(relay.connectUri());
        ChildProtocol.awaitStdinClosed();
        relay.close();
        System.exit(0);
    }
}
