package io.fedbridge.ha.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.internal.FederationProof;
import io.fedbridge.ha.HaMember;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication stream carries every stored message: only a link holding the federation right (a proof of the
 * federation secret, or with authorization rules a user granted 'federate' on /topic/fedbridge.ha.GROUP) may ask for it.
 */
class HaControlPlaneIT {

    private static final String SECRET = "a-federation-secret-of-the-group";
    private static final String PASSWORD = "pw-" + System.nanoTime();

    @TempDir
    Path dir;

    @Test
    void withAFederationSecretAClientWithoutTheProofCannotAskForTheStream() throws Exception {
        String uri = "tcp://127.0.0.1:" + HaGroupConfigs.freePort();
        BrokerConfig config = BrokerConfig.builder("cp-1").listen(uri).dataDirectory(dir.resolve("cp-1"))
                .security(SecurityConfig.builder().federationSecret(SECRET).build())
                .ha(h -> h.group("cp").brokers(List.of(uri))).build();
        try (HaMember member = HaMember.start(config)) {
            member.promote(true);
            assertThat(member.awaitPrimary(Duration.ofSeconds(30))).isTrue();

            assertThatThrownBy(() -> StompConnection.connect(backup(uri, "cp", false, null, null, null)))
                    .hasMessageContaining("fedbridge-ha-backup needs a link that holds the federation right");
            assertThatThrownBy(() -> StompConnection.connect(backup(uri, "cp", true, "a-secret-that-is-not-the-groups", null, null)))
                    .hasMessageContaining("federation link refused");
            try (StompConnection real = StompConnection.connect(backup(uri, "cp", true, SECRET, null, null))) {
                assertThat(real.connectedHeaders().get("ha-epoch")).isEqualTo("1");
            }
        }
    }

    @Test
    void withAuthorizationRulesOnlyAUserGrantedFederateOnTheGroupsStreamGetsIt() throws Exception {
        String uri = "tcp://127.0.0.1:" + HaGroupConfigs.freePort();
        PropertiesUserStore users = PropertiesUserStore.parse(
                "ha = " + PropertiesUserStore.hash(PASSWORD.toCharArray(), 10_000) + "; groups=ha\n"
                        + "alice = " + PropertiesUserStore.hash(PASSWORD.toCharArray(), 10_000) + "; groups=apps\n", "users");
        AuthorizationRules rules = AuthorizationRules.parse("""
                /topic/fedbridge.ha.>   federate     group:ha
                /queue/>          read,write   group:apps, group:ha
                """, "rules");
        BrokerConfig config = BrokerConfig.builder("cp-2").listen(uri).dataDirectory(dir.resolve("cp-2"))
                .security(SecurityConfig.builder().authenticator(users).authorizer(rules).build())
                .ha(h -> h.group("cp2").brokers(List.of(uri))).build();
        try (HaMember member = HaMember.start(config)) {
            member.promote(true);
            assertThat(member.awaitPrimary(Duration.ofSeconds(30))).isTrue();

            assertThatThrownBy(() -> StompConnection.connect(backup(uri, "cp2", true, null, "alice", PASSWORD)))
                    .hasMessageContaining("user 'alice' lacks the federate right on /topic/fedbridge.ha.cp2");
            try (StompConnection real = StompConnection.connect(backup(uri, "cp2", true, null, "ha", PASSWORD))) {
                assertThat(real.connectedHeaders().get("ha-epoch")).isEqualTo("1");
            }
        }
    }

    /**
     * A CONNECT asking for {@code group}'s stream; {@code federate}: announced as a federation link, with a proof of
     * {@code secret} (null: the unsigned announcement); with a login if {@code login} is not null.
     */
    private static ClientConfig backup(String uri, String group, boolean federate, String secret, String login, String passcode) {
        ClientConfig.Builder b = ClientConfig.builder(uri).heartBeats(Duration.ZERO).connectTimeout(Duration.ofSeconds(10))
                .connectHeader("fedbridge-ha-backup", group).connectHeader("fedbridge-ha-member", "impostor");
        if (federate) {
            b.connectHeader(FederationHeaders.FEDERATE, FederationProof.create(secret, Clock.systemUTC()));
        }
        if (login != null) {
            b.login(login).passcode(passcode);
        }
        return b.build();
    }
}
