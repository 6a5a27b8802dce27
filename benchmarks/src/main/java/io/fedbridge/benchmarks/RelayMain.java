package io.fedbridge.benchmarks;

/**
 * Child JVM: the {@link StompRelay} on {@code tcp://127.0.0.1:0}. Prints {@code READY tcp://127.0.0.1:PORT}
 * and runs until its stdin closes. With {@code --network-connector static:(URI)} (as the benchmarks start a
 * chain of brokers) it passes every SEND on to the relay at URI. Other broker options are ignored.
 */
public final class RelayMain {

    private RelayMain() {
    }

    public static void main(String[] args) {
        String upstream = null;
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--network-connector")) {
                io.fedbridge.core.uri.CompositeUri nc = io.fedbridge.core.uri.CompositeUri.parse(args[i + 1]);
                if (!nc.scheme().equals("static") || nc.components().size() != 1) {
                    throw new BenchmarkException("relay: --network-connector must be static:(URI), but was '" + args[i + 1] + "'");
                }
                upstream = nc.components().get(0).toUnmaskedString();
            }
        }
        StompRelay relay = StompRelay.start("tcp://127.0.0.1:0", upstream);
        Runtime.getRuntime().addShutdownHook(new Thread(relay::close, "fedbridge-bench-relay-stop"));
        ChildProtocol.ready(relay.connectUri());
        ChildProtocol.awaitStdinClosed();
        relay.close();
        System.exit(0);
    }
}
