package io.fedbridge.broker.integration.security;

import io.fedbridge.core.tls.TlsConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Key stores and trust stores the tests make for themselves with the JDK's {@code keytool}: a test CA, a server
 * certificate for {@code localhost}/{@code 127.0.0.1}, one naming another host, a client certificate for
 * {@code alice}, and a client certificate with the same subject from a rogue CA nobody trusts. EC P-256 keys,
 * valid for 30 days. Made once per JVM (about 20 keytool runs, some seconds) in a temporary directory removed
 * at exit; every store has the same random password, {@link #password()}, a secret tests look for in logs.
 */
public final class TestCertificates {

    static final String ALICE_DN = "CN=alice,OU=clients,O=fedbridge-test";

    private static TestCertificates instance;

    private final Path dir;
    private final String password = "store-" + UUID.randomUUID();

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    public static synchronized TestCertificates get() {
        if (instance == null) {
            try {
                Path dir = Files.createTempDirectory("fedbridge-test-certs");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                TestCertificates c = new TestCertificates(dir);
                c.generate();
                instance = c;
            } catch (IOException e) {
                throw new IllegalStateException("cannot create test certificates", e);
            }
        }
        return instance;
    }

    public String password() {
        return password;
    }

    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    public Path serverKeyStore() {
        return dir.resolve("server.p12");
    }

    Path wrongHostKeyStore() {
        return dir.resolve("wrong-host.p12");
    }

    Path aliceKeyStore() {
        return dir.resolve("alice.p12");
    }

    Path rogueAliceKeyStore() {
        return dir.resolve("rogue-alice.p12");
    }

    /** A listener's TLS: the server certificate, and the test CA to check client certificates with. */
    public TlsConfig serverTls() {
        return TlsConfig.builder().keyStore(serverKeyStore()).keyStorePassword(password)
                .trustStore(trustStore()).trustStorePassword(password).build();
    }

    /** A client's TLS: trusts the test CA, no client certificate. */
    public TlsConfig clientTls() {
        return TlsConfig.builder().trustStore(trustStore()).trustStorePassword(password).build();
    }

    /** The same, as URI options. */
    public String clientTlsOptions() {
        return "trustStore=" + trustStore() + "&trustStorePassword=" + password;
    }

    private void generate() {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CompletableFuture<Void> ca = CompletableFuture.runAsync(() -> makeCa("ca", "CN=fedbridge-test-ca"), pool)
                    .thenRun(() -> keytool("-importcert", "-noprompt", "-alias", "ca", "-file", file("ca.pem"),
                            "-keystore", file("truststore.p12"), "-storetype", "PKCS12", "-storepass", password));
            CompletableFuture<Void> rogue = CompletableFuture.runAsync(() -> makeCa("rogue-ca", "CN=rogue-ca"), pool);
            List<CompletableFuture<Void>> all = new ArrayList<>();
            all.add(ca.thenRunAsync(() -> makeSigned("ca", "server", "CN=localhost,O=fedbridge-test",
                    "SAN=dns:localhost,ip:127.0.0.1"), pool));
            all.add(ca.thenRunAsync(() -> makeSigned("ca", "wrong-host", "CN=wrong.example,O=fedbridge-test",
                    "SAN=dns:wrong.example"), pool));
            all.add(ca.thenRunAsync(() -> makeSigned("ca", "alice", ALICE_DN, null), pool));
            all.add(rogue.thenRunAsync(() -> makeSigned("rogue-ca", "rogue-alice", ALICE_DN, null), pool));
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        } finally {
            pool.shutdownNow();
        }
    }

    private void makeCa(String name, String dn) {
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dn, "-ext", "bc:c",
                "-validity", "30", "-keystore", file(name + ".p12"), "-storetype", "PKCS12", "-storepass", password);
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", file(name + ".p12"), "-storepass", password,
                "-file", file(name + ".pem"));
    }

    private void makeSigned(String ca, String name, String dn, String san) {
        String ks = file(name + ".p12");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dn, "-validity", "30",
                "-keystore", ks, "-storetype", "PKCS12", "-storepass", password);
        keytool("-certreq", "-alias", name, "-keystore", ks, "-storepass", password, "-file", file(name + ".csr"));
        List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore", file(ca + ".p12"),
                "-storepass", password, "-infile", file(name + ".csr"), "-outfile", file(name + ".pem"), "-rfc",
                "-validity", "30", "-ext", "EKU=serverAuth,clientAuth"));
        if (san != null) {
            gencert.add("-ext");
            gencert.add(san);
        }
        keytool(gencert.toArray(String[]::new));
        try {
            // The reply with its whole chain, so keytool installs it without the CA in the key store.
            Files.writeString(dir.resolve(name + "-chain.pem"), Files.readString(dir.resolve(name + ".pem"))
                    + Files.readString(dir.resolve(ca + ".pem")));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        keytool("-importcert", "-noprompt", "-alias", name, "-file", file(name + "-chain.pem"), "-keystore", ks,
                "-storepass", password);
    }

    private String file(String name) {
        return dir.resolve(name).toString();
    }

    private void keytool(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.add("-J-XX:TieredStopAtLevel=1");
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("keytool " + args[0] + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running keytool", e);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort at exit
        }
    }
}
