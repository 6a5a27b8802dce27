package io.fedbridge.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerConfigFile;
import io.fedbridge.broker.ConfigFileException;
import io.fedbridge.core.tls.ClientAuth;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code [security]} section of the broker config file. */
class SecuritySectionTest {

    @TempDir
    Path dir;

    @Test
    void shouldReadUsersRulesTlsAndLimitsRelativeToTheFile() throws Exception {
        Files.writeString(dir.resolve("users.properties"),
                "alice = " + PropertiesUserStore.hash("pw".toCharArray(), PropertiesUserStore.MIN_ITERATIONS) + "; groups=apps\n");
        Files.writeString(dir.resolve("authorization.rules"), "/queue/> read,write group:apps\n");
        BrokerConfig c = BrokerConfigFile.parse("""
                name = A
                listen = ssl://127.0.0.1:0
                [security]
                users = users.properties
                authorization = authorization.rules
                maxFailedLogins = 3
                loginLockout = 1m
                keyStore = broker.p12
                keyStorePassword = s3cret
                needClientAuth = true
                trustStore = ca.p12
                maximumConnectionsPerAddress = 20
                """, "broker.conf", dir).build();
        SecurityConfig s = c.security();
        assertThat(s.authenticator().authenticate("alice", "pw", null)).isEqualTo(Identity.of("alice", Set.of("apps")));
        assertThat(s.authorizer().isAllowed(Identity.of("alice", Set.of("apps")), Operation.WRITE, "/queue/a")).isTrue();
        assertThat(s.allowAnonymous()).isFalse();
        assertThat(s.maxFailedLogins()).isEqualTo(3);
        assertThat(s.loginLockout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(s.tls().keyStore()).isEqualTo(dir.resolve("broker.p12"));
        assertThat(s.tls().clientAuth()).isEqualTo(ClientAuth.NEED);
        assertThat(s.connectionLimits()).isEqualTo(new ConnectionLimits(0, 20));
        assertThat(c.toString()).doesNotContain("s3cret");
    }

    @Test
    void shouldReportBadKeysAndValuesWithTheirLineButNeverASecret() {
        assertThatThrownBy(() -> BrokerConfigFile.parse("[security]\nuser = u.properties\n", "b.conf", dir))
                .isInstanceOf(ConfigFileException.class)
                .hasMessageContaining("b.conf:2: unknown key 'user' in [security]")
                .hasMessageContaining("did you mean 'users'?");
        assertThatThrownBy(() -> BrokerConfigFile.parse("[security]\nusers = missing.properties\n", "b.conf", dir))
                .hasMessageContaining("b.conf:2:").hasMessageContaining("cannot read users file");
        assertThatThrownBy(() -> BrokerConfigFile.parse("[security]\nallowAnonymous = false\n", "b.conf", dir))
                .hasMessageContaining("b.conf:1: invalid section [security]: allowAnonymous must be true without an authenticator");
        assertThatThrownBy(() -> BrokerConfigFile.parse("[security]\n[security]\n", "b.conf", dir))
                .hasMessageContaining("b.conf:2: duplicate section [security] (first on line 1)");
        assertThatThrownBy(() -> BrokerConfigFile.parse("[security]\ntrustStorePassword = s3cret\n", "b.conf", dir))
                .hasMessageContaining("trustStorePassword must come with a trustStore")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
        assertThatThrownBy(() -> BrokerConfigFile.parse("[security]\nkeyStore = k.p12\nneedClientAuth = true\n", "b.conf", dir))
                .hasMessageContaining("b.conf:1: invalid section [security]: needClientAuth requires trustStore");
    }
}
