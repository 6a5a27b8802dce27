package io.fedbridge.broker.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link RabbitMqServer} for a whole test class (a node takes seconds to start), for every module's RabbitMQ
 * tests: {@code @RegisterExtension static final RabbitMqExtension RABBIT = new RabbitMqExtension();}. Where the
 * package is not installed the class is skipped and the reason printed ({@link RabbitMqServer#unavailableReason()});
 * after the class the node is shut down and its directory deleted. Tests share the node: each uses its own queue names.
 */
public final class RabbitMqExtension implements BeforeAllCallback, AfterAllCallback {

    /** The peer URI options for RabbitMQ's default virtual host and its default guest user. */
    public static final String GUEST = "host=/&login=guest&passcode=guest";

    private Path dir;
    private RabbitMqServer server;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        String reason = RabbitMqServer.unavailableReason();
        if (reason != null) {
            System.out.println(context.getDisplayName() + " skipped: " + reason);
        }
        Assumptions.assumeTrue(reason == null, reason);
        dir = Files.createTempDirectory("fedbridge-rabbitmq");
        server = RabbitMqServer.start(dir);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            server = null;
            if (dir != null) {
                try (var files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
                dir = null;
            }
        }
    }

    /** The running node (only inside the class's tests). */
    public RabbitMqServer server() {
        if (server == null) {
            throw new IllegalStateException("no RabbitMQ node: the extension starts one before the class's tests");
        }
        return server;
    }

    /** {@code tcp://127.0.0.1:PORT?host=/&login=guest&passcode=guest}: a peer or client URI for the node. */
    public String guestUri() {
        return server().stompUri() + "?" + GUEST;
    }
}
