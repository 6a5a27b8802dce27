package io.fedbridge.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/** The child side of {@link ChildJvm}'s line protocol. */
final class ChildProtocol {

    private ChildProtocol() {
    }

    /** Announces the address clients connect to; the parent waits for this line. */
    static void ready(String uri) {
        System.out.println("READY " + uri);
        System.out.flush();
    }

    /** Blocks until the parent closes our stdin (or dies). */
    static void awaitStdinClosed() {
        InputStream in = System.in;
        byte[] buf = new byte[256];
        try {
            while (in.read(buf) >= 0) {
                // commands are not expected; anything read is ignored
            }
        } catch (IOException e) {
            // treated like EOF
        }
    }

    /**
     * Answers each command line read from stdin with the line {@code commands} returns (nothing for null), until
     * stdin closes (or the parent dies). A command that throws is answered with an {@code ERROR} line.
     */
    static void serve(Function<String, String> commands) {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = in.readLine()) != null) {
                String command = line.trim();
                if (command.isEmpty()) {
                    continue;
                }
                String answer;
                try {
                    answer = commands.apply(command);
                } catch (RuntimeException e) {
                    answer = "ERROR " + command + " failed: " + e;
                }
                if (answer != null) {
                    System.out.println(answer);
                    System.out.flush();
                }
            }
        } catch (IOException e) {
            // treated like EOF
        }
    }
}
