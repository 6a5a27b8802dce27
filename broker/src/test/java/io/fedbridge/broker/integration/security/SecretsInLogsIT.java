package io.fedbridge.broker.integration.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link SecureFederationMain} in a child JVM with every logger at DEBUG, its output captured, and greps
 * that output for every secret the scenario used: store passwords, user passwords, the bridge's password, a
 * wrong password a client tried, and the stored password hashes.
 */
class SecretsInLogsIT extends SecurityTestSupport {

    @TempDir
    Path tmp;

    @Test
    void shouldKeepEverySecretOutOfTheLogsErrorsConfigsAndJmx() throws Exception {
        String alicePassword = "alice-secret-" + System.nanoTime();
        String bridgePassword = "bridge-secret-" + System.nanoTime();
        String wrongPassword = "wrong-secret-" + System.nanoTime();
        String aliceLine = userLine("alice", alicePassword, "apps");
        String bridgeLine = userLine("bridge", bridgePassword, "bridges");
        String aliceHash = aliceLine.substring(aliceLine.indexOf("pbkdf2:"), aliceLine.indexOf(';'));
        String bridgeHash = bridgeLine.substring(bridgeLine.indexOf("pbkdf2:"), bridgeLine.indexOf(';'));

        Path log = tmp.resolve("child.log");
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-Dio.netty.leakDetection.level=paranoid",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-cp", System.getProperty("java.class.path"), SecureFederationMain.class.getName())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.put("FB_STORE_PASSWORD", certs().password());
        env.put("FB_ALICE_PASSWORD", alicePassword);
        env.put("FB_BRIDGE_PASSWORD", bridgePassword);
        env.put("FB_WRONG_PASSWORD", wrongPassword);
        env.put("FB_TRUST_STORE", certs().trustStore().toString());
        env.put("FB_SERVER_KEY_STORE", certs().serverKeyStore().toString());
        env.put("FB_USERS", aliceLine + "\n" + bridgeLine + "\n");
        Process p = pb.start();
        try {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.readString(log);
        assertThat(p.exitValue()).as("child exit code; output:\n%s", output).isZero();
        assertThat(output).contains("SCENARIO DONE")
                .as("the scenario really went through the secret-handling paths")
                .contains("bridge vm://A->ssl://127.0.0.1", "received on B: ")
                .contains("login failed for user 'alice'", "login failed for user 'mallory'")
                .contains("SEND denied: user 'bridge' has no write permission on /queue/restricted.x")
                .contains("SEND denied: user 'alice' has no write permission on /queue/other")
                .contains("SUBSCRIBE denied: user 'alice' has no admin permission")
                .contains("keystore password was incorrect")
                .contains("keyStorePassword=*****", "trustStorePassword=*****", "passcode=*****", "password=*****")
                .contains("JMX io.fedbridge:type=Broker")
                .doesNotContain("LEAK:");
        for (String secret : List.of(certs().password(), alicePassword, bridgePassword, wrongPassword, aliceHash, bridgeHash)) {
            assertThat(output).as("a secret in the child's output").doesNotContain(secret);
        }
    }
}
