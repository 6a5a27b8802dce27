package io.fedbridge.benchmarks;

import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.tls.TlsConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The security of the {@code fedbridge-secured} and {@code fedbridge-tls} targets: a load-client user {@code bench}
 * that may read and write, a bridge user {@code bridge} with the federation right, rules checked on every frame, and
 * for TLS a self-signed key (EC P-256, for 127.0.0.1) made with the JDK's keytool in the run's log directory.
 * Benchmark credentials only: they protect nothing.
 */
final class BenchSecurity {

    static final String PASSWORD = "bench-password";
    private static final String RULES = """
            /queue/>                    read,write          user:bench
            /topic/>                    read,write          user:bench
            /queue/>                    read,write,federate user:bridge
            /topic/>                    read,write,federate user:bridge
            /topic/fedbridge.advisory.> admin,federate      user:bridge
            """;

    private BenchSecurity() {
    }

    /** The broker child's extra arguments. */
    static List<String> brokerArgs(boolean tls, Path logs) throws IOException {
        List<String> a = new ArrayList<>(List.of("--secure"));
        if (tls) {
            a.add("--tls");
            a.add(keyStore(logs).toString());
        }
        return a;
    }

    static String clientOptions() {
        return "login=bench&passcode=" + PASSWORD;
    }

    static String bridgeOptions() {
        return "userName=bridge&password=" + PASSWORD;
    }

    /** URI options that make a client trust the benchmark's key. */
    static String trustOptions(Path logs) throws IOException {
        keyStore(logs);
        return "trustStore=" + trustStore(logs) + "&trustStorePassword=" + PASSWORD;
    }

    /** In the broker child. */
    static SecurityConfig brokerSecurity(Path keyStore) {
        String users = "bench = " + PropertiesUserStore.hash(PASSWORD.toCharArray(), PropertiesUserStore.MIN_ITERATIONS) + "\n"
                + "bridge = " + PropertiesUserStore.hash(PASSWORD.toCharArray(), PropertiesUserStore.MIN_ITERATIONS) + "\n";
        SecurityConfig.Builder b = SecurityConfig.builder().authenticator(PropertiesUserStore.parse(users, "bench users"))
                .authorizer(AuthorizationRules.parse(RULES, "bench rules"));
        if (keyStore != null) {
            b.tls(TlsConfig.builder().keyStore(keyStore).keyStorePassword(PASSWORD).build());
        }
        return b.build();
    }

    private static Path trustStore(Path logs) {
        return logs.resolve("bench-trust.p12");
    }

    private static synchronized Path keyStore(Path logs) throws IOException {
        Path key = logs.resolve("bench-key.p12");
        if (Files.exists(key) && Files.exists(trustStore(logs))) {
            return key;
        }
        Path cert = logs.resolve("bench-cert.pem");
        keytool("-genkeypair", "-alias", "bench", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "7", "-storetype", "PKCS12", "-keystore", key.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "bench", "-keystore", key.toString(), "-storepass", PASSWORD, "-file", cert.toString());
        keytool("-importcert", "-noprompt", "-alias", "bench", "-file", cert.toString(), "-storetype", "PKCS12", "-keystore",
                trustStore(logs).toString(), "-storepass", PASSWORD);
        return key;
    }

    private static void keytool(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("keytool " + args[0] + " failed: " + out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running keytool", e);
        } finally {
            p.destroy();
        }
    }
}
