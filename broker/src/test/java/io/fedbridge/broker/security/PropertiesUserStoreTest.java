package io.fedbridge.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.Set;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.junit.jupiter.api.Test;

class PropertiesUserStoreTest {

    private static final int ITERATIONS = PropertiesUserStore.MIN_ITERATIONS;

    private static String hash(String pw) {
        return PropertiesUserStore.hash(pw.toCharArray(), ITERATIONS);
    }

    @Test
    void shouldHashWithPbkdf2AndTheDocumentedFormat() throws Exception {
        String h = hash("correct horse");
        String[] parts = h.split(":");
        assertThat(parts).hasSize(4);
        assertThat(parts[0]).isEqualTo("pbkdf2");
        assertThat(parts[1]).isEqualTo(Integer.toString(ITERATIONS));
        byte[] salt = Base64.getDecoder().decode(parts[2]);
        byte[] expected = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                .generateSecret(new PBEKeySpec("correct horse".toCharArray(), salt, ITERATIONS, 256)).getEncoded();
        assertThat(Base64.getDecoder().decode(parts[3])).isEqualTo(expected);
        assertThat(hash("correct horse")).as("a fresh salt every time").isNotEqualTo(h);
        assertThat(PropertiesUserStore.hash("x".toCharArray())).startsWith("pbkdf2:" + PropertiesUserStore.DEFAULT_ITERATIONS + ":");
    }

    @Test
    void shouldAuthenticateUsersWithTheirGroups() throws Exception {
        PropertiesUserStore store = PropertiesUserStore.parse("""
                # users
                alice = %s; groups=apps, admins
                bob   = %s
                """.formatted(hash("a-pw"), hash("b-pw")), "users");
        assertThat(store.users()).containsExactly("alice", "bob");
        assertThat(store.authenticate("alice", "a-pw", null)).isEqualTo(Identity.of("alice", Set.of("apps", "admins")));
        assertThat(store.authenticate("bob", "b-pw", null).groups()).isEmpty();
        assertThatThrownBy(() -> store.authenticate("alice", "b-pw", null))
                .isInstanceOf(AuthenticationException.class)
                .hasMessage("login failed for user 'alice': unknown user or wrong passcode");
        assertThatThrownBy(() -> store.authenticate("carol", "b-pw", null))
                .hasMessage("login failed for user 'carol': unknown user or wrong passcode");
        assertThatThrownBy(() -> store.authenticate("alice", null, null)).isInstanceOf(AuthenticationException.class);
        assertThatThrownBy(() -> store.authenticate("x\nINFO forged log line", "p", null))
                .as("a login goes to the log: no line breaks").hasMessageContaining("'x?INFO forged log line'");
        assertThat(store.authenticate(null, null, null)).as("no credentials: the broker decides").isNull();
    }

    @Test
    void shouldRejectMalformedFilesNamingTheLineButNotTheSecret() {
        String h = hash("pw");
        assertThatThrownBy(() -> PropertiesUserStore.parse("alice = " + h + "\nalice = " + h, "u.properties"))
                .hasMessage("u.properties:2: user 'alice' appears twice");
        assertThatThrownBy(() -> PropertiesUserStore.parse("alice = plain-text-password", "u.properties"))
                .hasMessageContaining("u.properties:1: user 'alice': credential must be 'pbkdf2:<iterations>:<saltBase64>:<hashBase64>' or '-'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("plain-text-password"));
        assertThatThrownBy(() -> PropertiesUserStore.parse("alice = pbkdf2:1000:AAAAAAAAAAAAAAAAAAAAAA==:"
                + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "u"))
                .hasMessageContaining("iterations must be >= 10000, but was 1000");
        assertThatThrownBy(() -> PropertiesUserStore.parse("alice = " + h + "; roles=x", "u"))
                .hasMessageContaining("unknown field 'roles'; fields are groups and dn");
        assertThatThrownBy(() -> PropertiesUserStore.parse("al ice = " + h, "u"))
                .hasMessageContaining("user name must be");
        assertThatThrownBy(() -> PropertiesUserStore.parse("alice = -", "u"))
                .hasMessageContaining("neither a password hash nor a dn");
    }

    @Test
    void shouldGiveCertificateOnlyUsersNoPassword() throws Exception {
        // Mapping a verified certificate to its user is covered end to end by TlsIT (mutual TLS).
        PropertiesUserStore store = PropertiesUserStore.parse(
                "broker-b = -; groups=bridges; dn=CN=broker-b, OU=fedbridge, O=example\n", "users");
        assertThat(store.users()).containsExactly("broker-b");
        assertThatThrownBy(() -> store.authenticate("broker-b", "anything", null))
                .isInstanceOf(AuthenticationException.class);
        assertThatThrownBy(() -> PropertiesUserStore.parse("a = -; dn=CN=x\nb = -; dn=cn=x\n", "users"))
                .hasMessageContaining("users:2: user 'b' has the same dn as another user");
    }
}
