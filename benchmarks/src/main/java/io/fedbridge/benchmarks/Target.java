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
    ACTIVEMQ("activemq", "ActiveMQ " + activeMqVersion(), ActiveMqBrokerMain.class),
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
        throw new IllegalArgumentException("target must be one of fedbridge, fedbridge-secured, fedbridge-tls, fedbridge-metrics, activemq, relay,"
                + " but was '" + key + "'");
    }

    boolean isFedbridge() {
        return this == FEDBRIDGE || isVariant();
    }

    /** A fedbridge target with something switched on that plain fedbridge has off: its cost is reported. */
    boolean isVariant() {
        return this == FEDBRIDGE_SECURED || this == FEDBRIDGE_TLS || this == FEDBRIDGE_METRICS;
    }

    /** Whether its brokers have users, rules and the federation right on. */
    boolean isSecured() {
        return this == FEDBRIDGE_SECURED || this == FEDBRIDGE_TLS;
    }

    boolean isTls() {
        return this == FEDBRIDGE_TLS;
    }

    /** From the jar's Maven metadata (the shaded jar has no ActiveMQ manifest to ask). */
    private static String activeMqVersion() {
        try (InputStream in = Target.class.getResourceAsStream("/META-INF/maven/org.apache.activemq/activemq-broker/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "Classic");
            }
        } catch (IOException e) {
            // fall through
        }
        return "Classic";
    }

    @Override
    public String toString() {
        return key;
    }
}
