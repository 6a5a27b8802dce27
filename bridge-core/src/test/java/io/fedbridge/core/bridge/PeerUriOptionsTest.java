package io.fedbridge.core.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A bridge's local and peer URIs carry options for their own connection: client options such as {@code host}, and the dialect's. */
class PeerUriOptionsTest {

    private ServerSocket server;
    private final List<String> connectFrames = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startFakeBroker() throws IOException {
        server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "fake-stomp-broker");
        t.setDaemon(true);
        t.start();
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }

    @Test
    void shouldSendThePeerUrisHostOptionAsTheConnectHostHeader() {
        // RabbitMQ reads the host header as its virtual host: "Virtual host '127.0.0.1' access denied" without this.
        String local = "tcp://127.0.0.1:" + server.getLocalPort();
        String peer = local + "?host=/&heartBeatSend=0&heartBeatReceive=0";
        try (FederationBridge b = FederationBridge.start(BridgeConfig.builder(local, peer).heartBeat(Duration.ZERO).build())) {
            b.awaitUp(Duration.ofSeconds(10));
        }

        assertThat(connectFrames).hasSize(2);
        assertThat(connectFrames).filteredOn(f -> f.contains("\nhost:/\n")).as("the peer's CONNECT").hasSize(1);
        assertThat(connectFrames).filteredOn(f -> f.contains("\nhost:127.0.0.1\n")).as("the local CONNECT keeps the URI's host")
                .hasSize(1);
    }

    @Test
    void shouldLetThePeerUrisLoginOverrideTheBridgesUserName() {
        String local = "tcp://127.0.0.1:" + server.getLocalPort();
        String peer = local + "?login=rabbit&passcode=secret";
        try (FederationBridge b = FederationBridge.start(BridgeConfig.builder(local, peer).userName("bridge").password("pw")
                .heartBeat(Duration.ZERO).build())) {
            b.awaitUp(Duration.ofSeconds(10));
        }

        assertThat(connectFrames).filteredOn(f -> f.contains("\nlogin:rabbit\n") && f.contains("\npasscode:secret\n")).hasSize(1);
        assertThat(connectFrames).filteredOn(f -> f.contains("\nlogin:bridge\n")).hasSize(1);
    }

    @Test
    void shouldRefuseAnUnknownPeerUriOptionListingTheValidOnes() {
        assertThatThrownBy(() -> BridgeConfig.builder("vm://A", "tcp://rabbit:61613?hots=/").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option 'hots'")
                .hasMessageContaining("remoteUri 'tcp://rabbit:61613?hots=/'")
                .hasMessageContaining("host").hasMessageContaining("dialect").hasMessageContaining("destinationMap");
    }

    @Test
    void shouldRefuseABadDialectOrDestinationMapNamingTheOption() {
        assertThatThrownBy(() -> BridgeConfig.builder("vm://A", "tcp://b:61613?dialect=qpid").build())
                .hasMessageContaining("dialect").hasMessageContaining("qpid").hasMessageContaining("RABBITMQ");
        assertThatThrownBy(() -> BridgeConfig.builder("vm://A", "tcp://b:61613?destinationMap=/queue/a").build())
                .hasMessageContaining("destinationMap").hasMessageContaining("fedbridgeName=peerName");
        assertThatThrownBy(() -> BridgeConfig.builder("vm://A", "tcp://b:61613?destinationMap=/queue/a.>=/amq/queue/a").build())
                .hasMessageContaining("end in '>' on both sides");
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                sockets.add(s);
                Thread t = new Thread(() -> serve(s), "fake-stomp-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Answers the CONNECT, then reads and ignores everything else (DISCONNECT gets its receipt). */
    private void serve(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            String frame;
            while ((frame = readFrame(in)) != null) {
                if (frame.startsWith("CONNECT\n") || frame.startsWith("STOMP\n")) {
                    connectFrames.add(frame);
                    out.write("CONNECTED\nversion:1.2\nheart-beat:0,0\nserver:fake/1.0\n\n\0".getBytes(StandardCharsets.UTF_8));
                } else if (frame.contains("\nreceipt:")) {
                    String id = frame.substring(frame.indexOf("\nreceipt:") + 9);
                    id = id.substring(0, id.indexOf('\n'));
                    out.write(("RECEIPT\nreceipt-id:" + id + "\n\n\0").getBytes(StandardCharsets.UTF_8));
                }
                out.flush();
            }
        } catch (IOException e) {
            // the bridge closed the connection
        }
    }

    private static String readFrame(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == 0) {
                String f = b.toString(StandardCharsets.UTF_8);
                return f.stripLeading();
            }
            b.write(c);
        }
        return null;
    }
}
