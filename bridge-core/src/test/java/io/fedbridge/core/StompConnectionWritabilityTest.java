package io.fedbridge.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A bridge subscribes and unsubscribes while holding its lock, on whatever thread changed the demand; the event loop
 * that would drain the connection may be waiting for that lock. Such control frames must never wait for a congested
 * channel (a mesh's brokers closing one after another deadlocked on it).
 */
class StompConnectionWritabilityTest {

    @Test
    void shouldSubscribeAndUnsubscribeOnTheIoThreadsTermsWithoutWaitingForACongestedChannel() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Socket> peer = CompletableFuture.supplyAsync(() -> acceptAndNeverReadAgain(server));
            StompConnection c = StompConnection.connect("tcp://127.0.0.1:" + server.getLocalPort());
            Thread filler = new Thread(() -> {
                byte[] body = new byte[64 * 1024];
                try {
                    while (true) {
                        c.sendWithoutReceipt(Message.builder("/queue/fill").body(body).build());
                    }
                } catch (RuntimeException closed) {
                    // the test ends by closing the connection
                }
            }, "filler");
            filler.setDaemon(true);
            try {
                filler.start();
                // The peer reads nothing: once the socket's buffers and the channel's high-water mark are full, an
                // ordinary send from this (non-I/O) thread waits for the channel to drain.
                Awaitility.await("the filler waits for a congested channel").atMost(Duration.ofSeconds(20))
                        .until(() -> filler.getState() == Thread.State.TIMED_WAITING);

                CompletableFuture<Void> confirmed = new CompletableFuture<>();
                Subscription s = CompletableFuture.supplyAsync(() -> c.subscribeOnIoThread(
                        SubscriptionRequest.builder("/queue/q").ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> { }, confirmed))
                        .get(5, TimeUnit.SECONDS);
                assertThat(confirmed).as("no receipt can come from a peer that reads nothing").isNotDone();
                CompletableFuture.runAsync(s::unsubscribeAfterReceipt).get(5, TimeUnit.SECONDS);
                CompletableFuture.runAsync(() -> c.subscribeOnIoThread(SubscriptionRequest.of("/queue/r"), m -> { }).unsubscribe())
                        .get(5, TimeUnit.SECONDS);
            } finally {
                peer.get(5, TimeUnit.SECONDS).close();
                c.close();
            }
        }
    }

    /** Reads the CONNECT frame, answers CONNECTED, and then reads nothing more. */
    private static Socket acceptAndNeverReadAgain(ServerSocket server) {
        try {
            Socket s = server.accept();
            InputStream in = s.getInputStream();
            int b;
            while ((b = in.read()) > 0) {
                // up to the NUL that ends CONNECT
            }
            OutputStream out = s.getOutputStream();
            out.write("CONNECTED\nversion:1.2\nheart-beat:0,0\n\n\0".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return s;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
