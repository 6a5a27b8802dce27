package io.fedbridge.samples;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code fedbridge consume}: receives until N distinct sequence numbers (header {@code seq} = 1..N) arrived or
 * nothing arrived for {@code --timeout}, then ends with {@code received=… missing=… duplicates=…}.
 */
@Command(name = "consume", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Receive numbered messages (header seq=1..N) and report missing and duplicated ones.")
final class ConsumeCommand implements Callable<Integer> {

    @Option(names = "--url", required = true, paramLabel = "URL",
            description = "Broker URI: tcp://host:port, or failover:(tcp://a:61613,tcp://b:61613)?options")
    String url;

    @Option(names = "--destination", required = true, paramLabel = "DEST", description = "e.g. /queue/orders")
    String destination;

    @Option(names = "--count", required = true, paramLabel = "N", description = "Sequence numbers expected: 1..N.")
    int count;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s",
            description = "Give up after this long without a message (e.g. 500ms, 10s, PT1M; default ${DEFAULT-VALUE}).")
    String timeout;

    @Option(names = "--ack", paramLabel = "MODE", defaultValue = "client-individual",
            description = "auto, client or client-individual (default ${DEFAULT-VALUE}).")
    String ack;

    @Mixin
    LoggingOptions logging;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        logging.apply("warn");
        Duration idle = parseDuration(timeout);
        AckMode mode;
        try {
            mode = AckMode.fromWire(ack.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--ack " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = Progress.of(out, "received", count);
        SequenceTally tally = new SequenceTally(count);
        long deliveries = 0;
        try (FailoverClient client = FailoverClient.connect(url)) {
            FailoverSubscription s = client.subscribe(SubscriptionRequest.builder(destination).ackMode(mode).build());
            while (tally.distinct() < count) {
                FailoverMessage m = s.receive(idle);
                if (m == null) {
                    break;
                }
                deliveries++;
                tally.record(m.header("seq"));
                m.ack();
                progress.update(tally.distinct());
            }
        }
        progress.done();
        int missing = count - tally.distinct();
        long duplicates = tally.duplicates();
        out.println("received=" + tally.distinct() + " missing=" + missing + " duplicates=" + duplicates);
        out.flush();
        return missing == 0 && duplicates == 0 ? 0 : 1;
    }

    private Duration parseDuration(String s) {
        try {
            Duration[] d = new Duration[1];
            io.fedbridge.core.uri.UriOptions.bind(java.util.Map.of("timeout", s), "--timeout").durationMillis("timeout", v -> d[0] = v).finish();
            if (d[0].isNegative() || d[0].isZero()) {
                throw new IllegalArgumentException("must be > 0");
            }
            return d[0];
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--timeout must be a positive duration such as 500ms, 10s or PT1M, but was '" + s + "'");
        }
    }
}
