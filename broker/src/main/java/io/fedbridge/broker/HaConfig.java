package io.fedbridge.broker;

import io.fedbridge.core.uri.CompositeUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A broker's membership of a high-availability group (config keys {@code ha.group}, {@code ha.brokers},
 * {@code ha.replicate}, {@code ha.zookeeper}): one member is the primary and serves clients, the others are backups
 * that replicate its store and refuse clients. Started with {@code io.fedbridge.ha.HaMember} (module
 * {@code fedbridge-ha}); see docs/ha.md.
 *
 * @param group                   the group's name; a broker belongs to at most one group
 * @param brokers                 every member's client URI (the members' {@code listen} URIs as the others reach them),
 *                                the primary included; a backup looks for the primary among them, and clients'
 *                                {@code failover:(…)} URIs list the same
 * @param replicate               what is replicated by default: {@code ALL} (persistent messages, their removal,
 *                                durable subscriptions; the default), {@code CONFIGURATION} (durable subscriptions
 *                                only) or {@code NONE}
 * @param zookeeper               ZooKeeper's connect string ({@code host:port,…}) when ZooKeeper decides who is
 *                                primary; null (default) = every member starts as a backup and waits for
 *                                {@code fedbridge ha promote}
 * @param backupTimeout           how long the primary waits for a READY backup's acknowledgement before it drops the
 *                                backup from the READY set (with a WARN); default 5 s
 * @param zookeeperSessionTimeout the ZooKeeper session's timeout: a primary cut from ZooKeeper stops receipting
 *                                within about two thirds of it, and its successor is chosen after it; default 10 s
 */
public record HaConfig(String group, List<String> brokers, Replicate replicate, String zookeeper,
                       Duration backupTimeout, Duration zookeeperSessionTimeout) {

    /** What a group replicates by default ({@code ha.replicate}). */
    public enum Replicate {
        /** Persistent messages and their removal, redelivery counts and durable subscriptions. */
        ALL,
        /** Durable subscriptions only: messages stay on the primary. */
        CONFIGURATION,
        /** Nothing: the group only elects a primary. */
        NONE;

        /** Parses {@code all}, {@code configuration} or {@code none}, in any case. */
        public static Replicate parse(String value) {
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("ha.replicate must be one of all, configuration, none, but was '" + value + "'");
            }
        }
    }

    public static final Duration DEFAULT_BACKUP_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_ZOOKEEPER_SESSION_TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public HaConfig {
        Objects.requireNonNull(group, "ha.group");
        if (!GROUP.matcher(group).matches()) {
            throw new IllegalArgumentException("ha.group must be 1-64 characters of [A-Za-z0-9._-], but was '" + group + "'");
        }
        brokers = List.copyOf(brokers == null ? List.of() : brokers);
        if (brokers.isEmpty()) {
            throw new IllegalArgumentException("ha.brokers must list the group's members' URIs, but was empty (group " + group + ")");
        }
        for (String b : brokers) {
            CompositeUri uri = CompositeUri.parse(b); // names the bad URI
            if (uri.isComposite()) {
                throw new IllegalArgumentException("ha.brokers must list plain member URIs (tcp://host:port), but has '" + b + "'");
            }
        }
        replicate = replicate == null ? Replicate.ALL : replicate;
        if (zookeeper != null && zookeeper.isBlank()) {
            zookeeper = null;
        }
        backupTimeout = backupTimeout == null ? DEFAULT_BACKUP_TIMEOUT : backupTimeout;
        if (backupTimeout.isNegative() || backupTimeout.isZero()) {
            throw new IllegalArgumentException("ha.backupTimeout must be positive, but was " + backupTimeout);
        }
        zookeeperSessionTimeout = zookeeperSessionTimeout == null ? DEFAULT_ZOOKEEPER_SESSION_TIMEOUT : zookeeperSessionTimeout;
        if (zookeeperSessionTimeout.toMillis() < 1000) {
            throw new IllegalArgumentException("ha.zookeeperSessionTimeout must be at least 1s, but was " + zookeeperSessionTimeout);
        }
    }

    public static Builder builder(String group) {
        return new Builder().group(group);
    }

    public Builder toBuilder() {
        Builder b = new Builder().group(group).replicate(replicate).zookeeper(zookeeper).backupTimeout(backupTimeout)
                .zookeeperSessionTimeout(zookeeperSessionTimeout);
        b.brokers.addAll(brokers);
        return b;
    }

    /** Builds an {@link HaConfig}; its methods carry the config keys' names ({@code ha.group} is {@link #group}). */
    public static final class Builder {
        private String group;
        private final List<String> brokers = new ArrayList<>();
        private Replicate replicate;
        private String zookeeper;
        private Duration backupTimeout;
        private Duration zookeeperSessionTimeout;

        /** {@code ha.group}. */
        public Builder group(String group) {
            this.group = group;
            return this;
        }

        /** {@code ha.brokers}: adds members' URIs (a comma-separated list is split). */
        public Builder brokers(String... uris) {
            for (String u : uris) {
                for (String part : u.split(",")) {
                    if (!part.isBlank()) {
                        brokers.add(part.trim());
                    }
                }
            }
            return this;
        }

        /** {@code ha.brokers}: adds members' URIs. */
        public Builder brokers(List<String> uris) {
            return brokers(uris.toArray(String[]::new));
        }

        /** {@code ha.replicate}. */
        public Builder replicate(Replicate replicate) {
            this.replicate = replicate;
            return this;
        }

        /** {@code ha.replicate}: {@code all}, {@code configuration} or {@code none}. */
        public Builder replicate(String replicate) {
            this.replicate = Replicate.parse(replicate);
            return this;
        }

        /** {@code ha.zookeeper}: {@code host:port,…}; null = promotion by hand. */
        public Builder zookeeper(String connectString) {
            this.zookeeper = connectString;
            return this;
        }

        /** {@code ha.backupTimeout}. */
        public Builder backupTimeout(Duration timeout) {
            this.backupTimeout = timeout;
            return this;
        }

        /** {@code ha.zookeeperSessionTimeout}. */
        public Builder zookeeperSessionTimeout(Duration timeout) {
            this.zookeeperSessionTimeout = timeout;
            return this;
        }

        public HaConfig build() {
            return new HaConfig(group, brokers, replicate, zookeeper, backupTimeout, zookeeperSessionTimeout);
        }
    }
}
