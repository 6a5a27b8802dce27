package io.fedbridge.failover.integration;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * One self-signed EC key for {@code localhost} / {@code 127.0.0.1}, made with the JDK's {@code keytool} once per JVM:
 * the fake TLS brokers' key, and (its certificate) the clients' trust store.
 */
final class SelfSignedKeyStore {

    private static SelfSignedKeyStore instance;

    final Path path;
    final String password = "ks-" + UUID.randomUUID();

    private SelfSignedKeyStore(Path path) {
        this.path = path;
    }

    static synchronized SelfSignedKeyStore get() throws IOException, InterruptedException {
        if (instance == null) {
            Path dir = Files.createTempDirectory("fedbridge-failover-tls");
            SelfSignedKeyStore k = new SelfSignedKeyStore(dir.resolve("localhost.p12"));
            Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-genkeypair", "-alias", "localhost", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-dname", "CN=localhost,O=fedbridge-test", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "30",
                    "-keystore", k.path.toString(), "-storetype", "PKCS12", "-storepass", k.password))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + out);
            }
            k.path.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            instance = k;
        }
        return instance;
    }

    /** Client options trusting this key: {@code trustStore=...&trustStorePassword=...}. */
    String trustOptions(String prefix) {
        return prefix + "trustStore=" + path + "&" + prefix + "trustStorePassword=" + password;
    }

    SSLContext serverContext() throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(path)) {
            ks.load(in, password.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password.toCharArray());
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        return ctx;
    }
}
