package io.fedbridge.benchmarks;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The benchmark command line.
 *
 * <pre>
 * mvn -q -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/fedbridge-benchmarks.jar throughput [--runs 3] [--messages N] [--size 1024]
 *      [--rate 1000] [--targets fedbridge,activemq,relay]
 * java -jar benchmarks/target/fedbridge-benchmarks.jar persistent|bridge|fanout|discovery|jms|ha|foreign [--runs 3] …
 * java -jar benchmarks/target/fedbridge-benchmarks.jar soak --minutes 60
 * java -Xmx2g -jar benchmarks/target/fedbridge-benchmarks.jar scale [--sizes 8,16,32]
 * java -jar benchmarks/target/fedbridge-benchmarks.jar consumers [--consumers 10000]
 * </pre>
 */
@Command(name = "fedbridge-benchmarks", mixinStandardHelpOptions = true, version = "fedbridge benchmarks 0.1",
        description = "End-to-end benchmarks of fedbridge, side by side with ActiveMQ Classic and a bare STOMP relay.",
        subcommands = {ThroughputCommand.class, PersistentCommand.class, BridgeCommand.class, FanoutCommand.class,
                DiscoveryCommand.class, FailoverCommand.class, JmsCommand.class, HaCommand.class, ForeignCommand.class, SoakCommand.class,
                ScaleCommand.class, ConsumersCommand.class, DefinitionsCommand.class, CommandLine.HelpCommand.class})
public final class BenchmarkMain implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchmarkMain()).execute(args));
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
