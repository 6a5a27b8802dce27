package io.fedbridge.broker;

import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.ConnectionLimits;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.tls.TlsConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The open {@code [security]} section of a {@link BrokerConfigFile}: the builders its keys go to, applied when it
 * ends.
 *
 * <p>Confined to the one parse that opened it (not thread-safe).
 */
final class SecuritySection {
    final int line;
    final Map<String, Integer> keyLines = new HashMap<>();
    final SecurityConfig.Builder security = SecurityConfig.builder();
    /** The TLS keys as written, in order (store paths resolved): built into a TlsConfig at the section's end. */
    final Map<String, String> tls = new LinkedHashMap<>();
    final ConnectionLimits.Builder limits = ConnectionLimits.builder();

    SecuritySection(int line) {
        this.line = line;
    }

    void bind(ConfigValue v, Path baseDir) {
        switch (v.key()) {
            case "users" -> security.authenticator(PropertiesUserStore.load(v.file(baseDir)));
            case "authorization" -> security.authorizer(AuthorizationRules.load(v.file(baseDir)));
            case "allowAnonymous" -> security.allowAnonymous(v.bool());
            case "maxFailedLogins" -> security.maxFailedLogins(v.integer());
            case "loginLockout" -> security.loginLockout(v.duration());
            case "maxLoginLockout" -> security.maxLoginLockout(v.duration());
            case "authenticationThreads" -> security.authenticationThreads(v.integer());
            case "maximumConnections" -> limits.maximumConnections(v.integer());
            case "maximumConnectionsPerAddress" -> limits.maximumConnectionsPerAddress(v.integer());
            case "federationSecret" -> security.federationSecret(v.raw());
            case "federationSecretFile" -> security.federationSecret(readSecret(v.file(baseDir)));
            default -> {
                // A TLS option, read as in a URI (store paths relative to this file).
                String raw = v.key().equals("keyStore") || v.key().equals("trustStore") ? v.file(baseDir).toString() : v.raw();
                tls.put(v.key(), raw);
                // Each value is checked on its line; a rule between keys (a password needs its store,
                // needClientAuth a trust store), once the section ends, whatever order the keys came in.
                Map<String, String> probe = new LinkedHashMap<>(tls);
                probe.putIfAbsent("keyStore", "placeholder.p12");
                probe.putIfAbsent("trustStore", "placeholder.p12");
                TlsConfig.fromOptions(probe, "[security]");
            }
        }
    }

    private static String readSecret(Path file) {
        try {
            return java.nio.file.Files.readString(file).strip();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read federationSecretFile " + file + ": " + e.getMessage(), e);
        }
    }

    SecurityConfig build() {
        if (keyLines.containsKey("federationSecret") && keyLines.containsKey("federationSecretFile")) {
            throw new IllegalArgumentException("give federationSecret or federationSecretFile, not both");
        }
        return security.tls(tls.isEmpty() ? null : TlsConfig.fromOptions(tls, "[security]"))
                .connectionLimits(limits.build()).build();
    }
}
