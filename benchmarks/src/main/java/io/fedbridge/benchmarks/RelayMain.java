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
                String nc = args[i + 1];
                if (!nc.startsWith("static:(") || !nc.endsWith(")")) {
                    throw new BenchmarkException("relay: --network-connector must be static:(URI), but was '" + nc + "'");
                }
                upstream = nc.substring("static:(".length(), nc.length() - 1);
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
