package io.fedbridge.jms;

import io.fedbridge.failover.FailoverConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * How a {@link FedbridgeConnectionFactory} connects and what its connections accept. Build one with {@link #builder}, or
 * from properties ({@link #fromProperties}); each property maps to the builder method of the same name.
 *
 * <table>
 * <caption>Properties</caption>
 * <tr><th>property</th><th>default</th><th>meaning</th></tr>
 * <tr><td>brokerURL</td><td>(required)</td><td>any failover client URI: {@code failover:(tcp://a:61613,tcp://b:61613)?…}
 *     or {@code tcp://host:61613}; its options are the failover client's (see {@link FailoverConfig})</td></tr>
 * <tr><td>userName, password</td><td>none</td><td>login and passcode of every connection, unless
 *     {@code createConnection(user, password)} names others</td></tr>
 * <tr><td>clientID</td><td>none</td><td>the JMS client identifier (STOMP {@code client-id}) of connections from this
 *     factory; needed for unshared durable subscriptions. Only one live connection may hold it.</td></tr>
 * <tr><td>prefetch</td><td>0 = the broker's default</td><td>messages the broker may send a consumer ahead of its
 *     acknowledgements</td></tr>
 * <tr><td>trustedPackages</td><td>none</td><td>comma-separated package names (and their sub-packages) whose classes
 *     {@code ObjectMessage.getObject()} may deserialize; without it every ObjectMessage body is refused</td></tr>
 * <tr><td>trustAllPackages</td><td>false</td><td>deserialize any class (only for senders you trust entirely)</td></tr>
 * </table>
 *
 * @param brokerUrl         the failover client URI, validated here
 * @param userName          login, or null
 * @param password          passcode, or null
 * @param clientId          JMS client identifier, or null
 * @param prefetch          consumer prefetch, 0 = broker default, else at least 1
 * @param trustedPackages   packages ObjectMessage may deserialize
 * @param trustAllPackages  deserialize any class
 */
public record FedbridgeJmsConfig(String brokerUrl, String userName, String password, String clientId, int prefetch,
                                 List<String> trustedPackages, boolean trustAllPackages) {

    private static final Pattern PACKAGE = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
    private static final List<String> KEYS = List.of("brokerURL", "userName", "password", "clientID", "prefetch",
            "trustedPackages", "trustAllPackages");

    public FedbridgeJmsConfig {
        if (brokerUrl == null || brokerUrl.isBlank()) {
            throw new IllegalArgumentException("brokerURL must be a fedbridge URI such as failover:(tcp://a:61613,tcp://b:61613), "
                    + "but was '" + brokerUrl + "'");
        }
        FailoverConfig.fromUri(brokerUrl); // fails naming the bad option or URI
        if (clientId != null && clientId.isBlank()) {
            throw new IllegalArgumentException("clientID must not be blank, but was '" + clientId + "'");
        }
        if (prefetch < 0) {
            throw new IllegalArgumentException("prefetch must be >= 0 (0 = the broker's default), but was " + prefetch);
        }
        trustedPackages = List.copyOf(trustedPackages == null ? List.of() : trustedPackages);
        for (String p : trustedPackages) {
            if (!PACKAGE.matcher(p).matches()) {
                throw new IllegalArgumentException("trustedPackages must be Java package names, but contained '" + p + "'");
            }
        }
    }

    public static Builder builder(String brokerUrl) {
        return new Builder().brokerURL(brokerUrl);
    }

    public static FedbridgeJmsConfig of(String brokerUrl) {
        return builder(brokerUrl).build();
    }

    /**
     * Reads the properties of the table above, e.g. from a file or Spring's {@code @ConfigurationProperties}.
     *
     * @throws IllegalArgumentException for an unknown key (listing the valid ones) or a bad value
     */
    public static FedbridgeJmsConfig fromProperties(Properties properties) {
        Builder b = new Builder();
        for (String key : new TreeSet<>(properties.stringPropertyNames())) {
            b.set(key, properties.getProperty(key));
        }
        return b.build();
    }

    public Builder toBuilder() {
        return new Builder().brokerURL(brokerUrl).userName(userName).password(password).clientID(clientId)
                .prefetch(prefetch).trustedPackages(trustedPackages).trustAllPackages(trustAllPackages);
    }

    /** The failover client's config for a connection with these credentials and client id. */
    public FailoverConfig failoverConfig(String user, String pass, String clientIdentifier) {
        FailoverConfig.Builder b = FailoverConfig.fromUri(brokerUrl).toBuilder();
        if (user != null) {
            b.nested("login", user);
        }
        if (pass != null) {
            b.nested("passcode", pass);
        }
        if (clientIdentifier != null) {
            b.clientId(clientIdentifier);
        }
        return b.build();
    }

    @Override
    public String toString() {
        return "FedbridgeJmsConfig[brokerURL=" + brokerUrl + ", userName=" + userName + ", password=" + (password == null ? null : "***")
                + ", clientID=" + clientId + ", prefetch=" + prefetch + ", trustedPackages=" + trustedPackages
                + ", trustAllPackages=" + trustAllPackages + "]";
    }

    public static final class Builder {
        private String brokerUrl;
        private String userName;
        private String password;
        private String clientId;
        private int prefetch;
        private List<String> trustedPackages = new ArrayList<>();
        private boolean trustAllPackages;

        private Builder() {
        }

        public Builder brokerURL(String url) {
            this.brokerUrl = url;
            return this;
        }

        public Builder userName(String user) {
            this.userName = user;
            return this;
        }

        public Builder password(String pass) {
            this.password = pass;
            return this;
        }

        public Builder clientID(String id) {
            this.clientId = id;
            return this;
        }

        public Builder prefetch(int n) {
            this.prefetch = n;
            return this;
        }

        public Builder trustedPackages(List<String> packages) {
            this.trustedPackages = new ArrayList<>(packages);
            return this;
        }

        public Builder trustAllPackages(boolean all) {
            this.trustAllPackages = all;
            return this;
        }

        /** Sets one property by its name (the table in {@link FedbridgeJmsConfig}). */
        public Builder set(String key, String value) {
            switch (key) {
                case "brokerURL" -> brokerURL(value);
                case "userName" -> userName(value);
                case "password" -> password(value);
                case "clientID" -> clientID(value);
                case "prefetch" -> prefetch(parseInt(key, value));
                case "trustedPackages" -> trustedPackages(split(value));
                case "trustAllPackages" -> trustAllPackages(parseBoolean(key, value));
                default -> throw new IllegalArgumentException("unknown fedbridge JMS property '" + key + "'; valid properties are: "
                        + String.join(", ", KEYS));
            }
            return this;
        }

        public FedbridgeJmsConfig build() {
            return new FedbridgeJmsConfig(brokerUrl, userName, password, clientId, prefetch, trustedPackages, trustAllPackages);
        }

        private static List<String> split(String value) {
            List<String> out = new ArrayList<>();
            for (String s : value.split(",")) {
                if (!s.isBlank()) {
                    out.add(s.trim());
                }
            }
            return Collections.unmodifiableList(out);
        }

        private static int parseInt(String key, String value) {
            try {
                return Integer.parseInt(value.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be an integer, but was '" + value + "'", e);
            }
        }

        private static boolean parseBoolean(String key, String value) {
            String v = value.trim();
            if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
                throw new IllegalArgumentException(key + " must be true or false, but was '" + value + "'");
            }
            return Boolean.parseBoolean(v);
        }
    }

}
