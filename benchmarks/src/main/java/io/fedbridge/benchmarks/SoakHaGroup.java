package io.fedbridge.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The HA position of the chaos soak ({@code soak --ha}): an HA group of two members ({@link HaMemberMain} child JVMs,
 * each with its own port and data directory) whose primary ZooKeeper chooses (a {@link ZooKeeperMain} child JVM).
 * Bridges and failover clients address the group by both members' URIs. Killing the position is {@code kill -9} of its
 * current primary: ZooKeeper promotes the other member once the dead one's session expires, then the killed member
 * restarts on its port and data directory and joins as a backup. If the backup was not READY when its primary died,
 * it cannot be promoted: the killed member restarts after the scheduler's pause and stands again as the primary of
 * record (docs/ha.md).
 *
 * <p>Threads: the soak's scheduler thread starts, kills and stops members; its sampler thread only sends
 * {@code sample}. Each member's command and answer are serialized on the member, so no caller reads another's answer.
 */
final class SoakHaGroup {

    /** ZooKeeper's tickTime: it grants sessions of 2 to 20 ticks. */
    static final int ZK_TICK_MILLIS = 1000;
    /** ha.zookeeperSessionTimeout of the members: a kill -9 of the primary is followed by a promotion after this. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);
    private static final Duration PROMOTION_BOUND = SESSION_TIMEOUT.plusSeconds(60);

    private final String name;
    private final String group;
    private final Soak.Settings settings;
    private final BiConsumer<String, String> events;
    private final List<Member> members = new ArrayList<>();
    private ChildJvm zookeeper;
    private String zookeeperConnect;
    private int promotions;

    /**
     * @param name   the position's name in the mesh ({@code B4}); its members are {@code B4a} and {@code B4b}
     * @param events where kills, promotions and warnings go (kind, detail)
     */
    SoakHaGroup(String name, Soak.Settings settings, BiConsumer<String, String> events) throws IOException {
        this.name = name;
        this.group = "soak-" + name.toLowerCase(java.util.Locale.ROOT);
        this.settings = settings;
        this.events = events;
        for (String suffix : List.of("a", "b")) {
            members.add(new Member(name + suffix, HaCommand.freePort(), settings.workDir().resolve(name + suffix)));
        }
    }

    /** The members' client URIs, in {@code ha.brokers} order. */
    List<String> uris() {
        return members.stream().map(Member::uri).toList();
    }

    List<Integer> ports() {
        return members.stream().map(m -> m.port).toList();
    }

    /** Promotions of a backup that followed a kill of its primary. */
    int promotions() {
        return promotions;
    }

    /**
     * Starts ZooKeeper if it is not running and every member that is not, then waits for a primary and for its backup to
     * be READY (so the scheduler's first kill of the group can be followed by a promotion).
     */
    void ensureRunning() {
        if (zookeeper == null) {
            try {
                zookeeper = ChildJvm.start(name + "-zookeeper", settings.jvmArgs(), settings.classPath(), ZooKeeperMain.class,
                        List.of(Integer.toString(ZK_TICK_MILLIS)), settings.workDir().resolve("logs"));
            } catch (IOException e) {
                throw new BenchmarkException("cannot start ZooKeeper for HA group " + group, e);
            }
            zookeeperConnect = zookeeper.awaitLine("READY ", Duration.ofSeconds(90)).split("\\s+")[0];
        }
        members.forEach(Member::ensureRunning);
        Member primary = awaitRole(members, "primary", Duration.ofSeconds(120));
        if (primary == null) {
            throw new BenchmarkException("HA group " + group + " elected no primary within 120 s; see " + settings.workDir().resolve("logs"));
        }
        Member backup = members.get(1 - members.indexOf(primary));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!"ready".equals(backup.status().get("state"))) {
            if (System.nanoTime() > deadline) {
                events.accept("warning", name + ": " + backup.name + " not a READY backup within 120 s");
                return;
            }
            Soak.parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /**
     * {@code kill -9} of the primary (after waiting for one, up to a minute), the other member's promotion awaited if
     * it was a READY backup, then the killed member restarted no sooner than {@code downMillis} after the kill.
     * Returns false if there was no primary to kill.
     */
    boolean killPrimary(long downMillis) {
        Member primary = awaitRole(members, "primary", Duration.ofSeconds(60));
        if (primary == null) {
            events.accept("warning", name + ": no primary to kill within 60 s");
            return false;
        }
        Member other = members.get(1 - members.indexOf(primary));
        String otherState = other.status().getOrDefault("state", "down");
        events.accept("kill", name + " primary " + primary.name + " (kill -9; " + other.name + " is " + otherState
                + "; restart as a backup after " + downMillis + " ms)");
        long killed = System.nanoTime();
        primary.kill();
        if (otherState.equals("ready")) {
            if (awaitRole(List.of(other), "primary", PROMOTION_BOUND) != null) {
                promotions++;
                events.accept("promote", name + ": " + other.name + " promoted in "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed) + " ms");
            } else {
                events.accept("warning", name + ": " + other.name + " not promoted within " + PROMOTION_BOUND.toSeconds() + " s");
            }
        }
        Soak.parkUntil(killed + TimeUnit.MILLISECONDS.toNanos(downMillis));
        primary.ensureRunning();
        return true;
    }

    /** Samples of every running member, as {@code (member index, sample)}; a member killed meanwhile is skipped. */
    void sample(BiConsumer<Integer, ProcessSample> into) {
        for (int i = 0; i < members.size(); i++) {
            try {
                String line = members.get(i).ask("sample", "SAMPLE ");
                if (line != null) {
                    into.accept(i, ProcessSample.parse(line));
                }
            } catch (BenchmarkException e) {
                // killed meanwhile: no sample this time
            }
        }
    }

    void stop() {
        members.forEach(Member::stop);
        if (zookeeper != null) {
            zookeeper.close();
            zookeeper = null;
        }
    }

    /** The first of {@code candidates} whose role is {@code role}, polled every 100 ms until {@code timeout}; else null. */
    private static Member awaitRole(List<Member> candidates, String role, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (Member m : candidates) {
                if (role.equals(m.status().get("role"))) {
                    return m;
                }
            }
            if (System.nanoTime() > deadline) {
                return null;
            }
            Soak.parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** One member: its name, port and data directory stay across kills. */
    private final class Member {
        final String name;
        final int port;
        final Path data;
        final Object io = new Object();
        int run;
        volatile ChildJvm jvm;

        Member(String name, int port, Path data) {
            this.name = name;
            this.port = port;
            this.data = data;
        }

        String uri() {
            return "tcp://127.0.0.1:" + port;
        }

        /** The answer to {@code command} after {@code prefix}, or null if the member is not running. */
        String ask(String command, String prefix) {
            ChildJvm c = jvm;
            if (c == null) {
                return null;
            }
            synchronized (io) {
                c.send(command);
                return c.awaitLine(prefix, Duration.ofSeconds(30));
            }
        }

        /** {@code role}, {@code state} and {@code epoch}; empty while the member is down or does not answer. */
        Map<String, String> status() {
            try {
                String line = ask("status", "STATUS ");
                return line == null ? Map.of() : Results.keyValues(line);
            } catch (BenchmarkException e) {
                return Map.of();
            }
        }

        void ensureRunning() {
            if (jvm != null) {
                return;
            }
            List<String> args = List.of("--name", name, "--port", Integer.toString(port), "--data", data.toString(),
                    "--group", group, "--brokers", String.join(",", uris()), "--zookeeper", zookeeperConnect,
                    "--session-timeout-ms", Long.toString(SESSION_TIMEOUT.toMillis()));
            jvm = Soak.startRetrying(settings, "HA member " + name, () -> name + "-" + ++run, HaMemberMain.class, args).jvm();
        }

        void kill() {
            ChildJvm c = jvm;
            jvm = null;
            Soak.killNine(name, c);
        }

        void stop() {
            ChildJvm c = jvm;
            jvm = null;
            if (c != null) {
                c.close();
            }
        }
    }
}
