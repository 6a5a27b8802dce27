package io.fedbridge.broker.internal;

import io.fedbridge.core.bridge.internal.Wildcards;
import java.util.List;

/** Destination naming: {@code /queue/NAME}, {@code /topic/NAME}, {@code /temp-queue/NAME}, {@code /temp-topic/NAME}. */
final class Destinations {

    static final String QUEUE = "/queue/";
    static final String TOPIC = "/topic/";
    static final String TEMP_QUEUE = "/temp-queue/";
    static final String TEMP_TOPIC = "/temp-topic/";
    static final List<String> PREFIXES = List.of(QUEUE, TOPIC, TEMP_QUEUE, TEMP_TOPIC);

    private Destinations() {
    }

    /** Null if valid, else the reason. */
    static String validate(String destination) {
        if (destination == null || destination.isEmpty()) {
            return "missing destination header";
        }
        for (String p : PREFIXES) {
            if (destination.startsWith(p)) {
                if (destination.length() == p.length()) {
                    return "destination '" + destination + "' has no name after " + p;
                }
                return null;
            }
        }
        return "unknown destination type in '" + destination + "': destinations start with " + String.join(", ", PREFIXES);
    }

    static boolean isTopic(String destination) {
        return destination.startsWith(TOPIC) || destination.startsWith(TEMP_TOPIC);
    }

    static boolean isTemp(String destination) {
        return destination.startsWith(TEMP_QUEUE) || destination.startsWith(TEMP_TOPIC);
    }

    static boolean isWildcard(String destination) {
        return destination.indexOf('*') >= 0 || destination.indexOf('>') >= 0;
    }

    /**
     * Matches a topic name against a subscription pattern over '.'-separated segments: {@code *} matches
     * one segment, {@code >} the rest (one or more segments).
     */
    static boolean matches(String pattern, String name) {
        return Wildcards.matches(pattern, name);
    }

    static String prefixOf(String destination) {
        for (String p : PREFIXES) {
            if (destination.startsWith(p)) {
                return p;
            }
        }
        return null;
    }
}
