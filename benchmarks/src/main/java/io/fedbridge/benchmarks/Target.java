package io.fedbridge.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Properties;

/** What a benchmark run is pointed at; each runs in its own child JVM. */
enum Target {
    FEDBRIDGE("fedbridge", "fedbridge", FedbridgeBrokerMain.class),
    /** fedbridge with users, rules and the federation right checked on every frame (tcp://). */
    FEDBRIDGE_SECURED("fedbridge-secured", "fedbridge+sec", FedbridgeBrokerMain.class),
    /** The same over ssl:// (TLS 1.3) for every connection, the bridges' included. */
    FEDBRIDGE_TLS("fedbridge-tls", "fedbridge+TLS", FedbridgeBrokerMain.class),
    /** fedbridge with its metrics endpoint on (Micrometer, Prometheus), scraped every 5 s. */
    FEDBRIDGE_METRICS("fedbridge-metrics", "fedbridge+metrics", FedbridgeBrokerMain.class),
    ACTIVEMQ("activemq", "ActiveMQ " + version("activemq-broker", "Classic"), ActiveMqBrokerMain.class),
    /** A fedbridge HA group of two members, one primary and one READY backup ({@code ha} benchmark only). */
    FEDBRIDGE_HA("fedbridge-ha", "fedbridge HA pair", HaMemberMain.class),
    /** An Artemis primary/backup pair with the replication HA policy ({@code ha} benchmark only). */
    ARTEMIS_HA("artemis-ha", "Artemis " + version("artemis-server", "") + " HA pair", ArtemisHaMain.class),
    /** A fedbridge broker forwarding over one bridge to an Artemis server ({@code foreign} benchmark only). */
    FEDBRIDGE_ARTEMIS("fedbridge-artemis", "fedbridge -> Artemis", FedbridgeBrokerMain.class),
    /** Two Artemis servers, the first forwarding to the second with a core bridge ({@code foreign} benchmark only). */
    ARTEMIS_BRIDGE("artemis-bridge", "Artemis core bridge", ArtemisBrokerMain.class),
    /** A fedbridge broker forwarding over one bridge to a RabbitMQ node's STOMP plugin ({@code foreign} benchmark only). */
    FEDBRIDGE_RABBITMQ("fedbridge-rabbitmq", "fedbridge -> RabbitMQ", FedbridgeBrokerMain.class),
    /** Two RabbitMQ nodes, the first forwarding to the second with a shovel ({@code foreign} benchmark only). */
    RABBITMQ_SHOVEL("rabbitmq-shovel", "RabbitMQ shovel", RabbitMqNodeMain.class),
    RELAY("relay", "relay ceiling", RelayMain.class);

    final String key;
    final String title;
    final Class<?> mainClass;

    Target(String key, String title, Class<?> mainClass) {
        this.key = key;
        this.title = title;
        this.mainClass = mainClass;
    }

    static Target of(String key) {
        for (Target t : values()) {
            if (t.key.equals(key.trim().toLowerCase(Locale.ROOT))) {
                return t;
            }
        }
        throw new IllegalArgumentException("target must be one of " + String.join(", ",
                java.util.Arrays.stream(values()).map(t -> t.key).toList()) + ", but was '" + key + "'");
    }

    boolean isFedbridge() {
        return this == FEDBRIDGE || isVariant();
    }

    /** A fedbridge target with something switched on that plain fedbridge has off: its cost is reported. */
    boolean isVariant() {
        return this == FEDBRIDGE_SECURED || this == FEDBRIDGE_TLS || this == FEDBRIDGE_METRICS || this == FEDBRIDGE_HA;
    }

    /** Whether its brokers have users, rules and the federation right on. */
    boolean isSecured() {
        return this == FEDBRIDGE_SECURED || this == FEDBRIDGE_TLS;
    }

    /** A pair with a foreign broker in it, or a foreign product's own forwarding ({@code foreign} benchmark). */
    boolean isForeign() {
        return this == FEDBRIDGE_ARTEMIS || this == ARTEMIS_BRIDGE || this == FEDBRIDGE_RABBITMQ || this == RABBITMQ_SHOVEL;
    }

    /** Whether the load client's consumers are on an Artemis server (which reads activemq.prefetchSize as bytes). */
    boolean consumesFromArtemis() {
        return this == ARTEMIS_HA || this == FEDBRIDGE_ARTEMIS || this == ARTEMIS_BRIDGE;
    }

    /** Whether RabbitMQ nodes are part of it (they need Debian's rabbitmq-server package). */
    boolean needsRabbitMq() {
        return this == FEDBRIDGE_RABBITMQ || this == RABBITMQ_SHOVEL;
    }

    boolean isTls() {
        return this == FEDBRIDGE_TLS;
    }

    /** An org.apache.activemq artifact's version, from the jar's Maven metadata (the shaded jar has no manifest to ask). */
    static String version(String artifact, String otherwise) {
        try (InputStream in = Target.class.getResourceAsStream("/META-INF/maven/org.apache.activemq/" + artifact + "/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", otherwise);
            }
        } catch (IOException e) {
            // fall through
        }
        return otherwise;
    }

    @Override
    public String toString() {
        return key;
    }
}
