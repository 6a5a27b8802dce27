package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.testing.ChildBroker;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.ConnectionClosedException;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.Transaction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills (SIGKILL) a broker in a child JVM while transacted workers commit as fast as they can — each commit sends a
 * job's result to one queue and five audit records to another, then acknowledges the job — restarts it on the same
 * data directory, and checks that every commit, in doubt at the kill or not, was applied entirely or not at all:
 * every job has exactly one result and five audit records (a commit applied in part would keep some of its sends and
 * lose its ack, so the job would come again and be done twice, or keep some audit records of five).
 */
class TransactionCrashIT extends BrokerTestSupport {

    private static final String JOBS = "/queue/tx.jobs";
    private static final String RESULTS = "/queue/tx.results";
    private static final String AUDIT = "/queue/tx.audit";
    private static final String JOB = "job";
    private static final String FENCE = "fence";
    private static final int KILLS = 3;
    private static final int WORKERS = 4;
    private static final int JOBS_PER_RUN = 1_000;
    /** Commits in flight per worker (each job's commit is sent without waiting for the one before). */
    private static final int PREFETCH = 50;
    private static final int WINDOW = 200;
    /** Audit records each job's commit sends, after its result and before its ack. */
    private static final int AUDIT_RECORDS = 5;
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final byte[] BODY = new byte[200];

    @TempDir
    Path tmp;

    @Test
    void shouldApplyEveryCommitInDoubtAtAKill9EntirelyOrNotAtAll() throws Exception {
        Path data = tmp.resolve("data");
        AtomicLong lastJob = new AtomicLong();
        // job -> the run whose broker receipted its commit
        Map<Long, Integer> committed = new ConcurrentHashMap<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        for (int run = 1; run <= KILLS; run++) {
            int thisRun = run;
            int killAfter = ThreadLocalRandom.current().nextInt(100, 601);
            AtomicInteger commits = new AtomicInteger();
            AtomicBoolean armed = new AtomicBoolean();
            try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-" + run + ".log"))) {
                addJobs(connect(client(broker)), lastJob, JOBS_PER_RUN);
                List<StompConnection> workers = new ArrayList<>();
                for (int w = 0; w < WORKERS; w++) {
                    workers.add(connect(client(broker)));
                }
                for (StompConnection c : workers) {
                    c.subscribeAndWait(SubscriptionRequest.builder(JOBS).ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(PREFETCH).build(), m -> {
                        CompletableFuture<Void> commit = work(c, m, m.header(JOB));
                        if (commit != null) {
                            long job = Long.parseLong(m.header(JOB));
                            commit.thenRun(() -> {
                                Integer before = committed.put(job, thisRun);
                                if (before != null) {
                                    violations.add("job " + job + " committed in run " + before + " and again in run " + thisRun);
                                }
                                if (commits.incrementAndGet() >= killAfter && armed.get()) {
                                    broker.kill(); // while the other workers' commits are on their way
                                }
                            });
                        }
                    }, WAIT);
                }
                armed.set(true);
                for (StompConnection c : workers) {
                    assertThat(c.closeFuture()).as("worker connection closed by the kill in run %s", run).succeedsWithin(WAIT);
                }
                assertThat(commits.get()).as("receipted commits before the kill").isGreaterThanOrEqualTo(killAfter);
            }
        }

        Map<Long, Integer> results;
        Map<Long, Integer> audits;
        try (ChildBroker broker = ChildBroker.start(data, tmp.resolve("broker-final.log"))) {
            finishJobs(broker, committed);
            StompConnection c = connect(client(broker));
            results = drain(c, RESULTS);
            audits = drain(c, AUDIT);
        }
        assertThat(violations).isEmpty();
        TreeMap<Long, Integer> notOnce = new TreeMap<>();
        for (long job = 1; job <= lastJob.get(); job++) {
            int r = results.getOrDefault(job, 0);
            int a = audits.getOrDefault(job, 0);
            if (r != 1 || a != AUDIT_RECORDS) {
                notOnce.put(job, r * 10 + a);
            }
        }
        assertThat(notOnce).as("jobs without exactly one result and %s audit records (value: results*10 + audits), of %s jobs",
                AUDIT_RECORDS, lastJob.get()).isEmpty();
    }

    /** One job, one transaction: its result to two queues and its ack; null if the broker is gone. */
    private static CompletableFuture<Void> work(StompConnection c, ReceivedMessage m, String job) {
        try {
            Transaction tx = c.begin();
            if (job != null) {
                tx.send(Message.builder(RESULTS).persistent(true).header(JOB, job).body(BODY).build());
                for (int i = 0; i < AUDIT_RECORDS; i++) {
                    tx.send(Message.builder(AUDIT).persistent(true).header(JOB, job).body(BODY).build());
                }
            }
            m.ack(tx);
            return tx.commit();
        } catch (ConnectionClosedException e) {
            return null;
        }
    }

    private static void addJobs(StompConnection c, AtomicLong lastJob, int count) throws Exception {
        Semaphore window = new Semaphore(WINDOW);
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            assertThat(window.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("a receipt within %s", WAIT).isTrue();
            long job = lastJob.incrementAndGet();
            sent.add(c.send(Message.builder(JOBS).persistent(true).header(JOB, Long.toString(job)).body(BODY).build())
                    .whenComplete((v, e) -> window.release()));
        }
        assertThat(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))).as("every job stored").succeedsWithin(WAIT);
        c.close();
    }

    /** One worker does the jobs left, in order, up to a fence sent after them; returns once all are committed. */
    private void finishJobs(ChildBroker broker, Map<Long, Integer> committed) throws Exception {
        StompConnection c = connect(client(broker));
        CompletableFuture<Void> fenced = new CompletableFuture<>();
        List<CompletableFuture<Void>> commits = new CopyOnWriteArrayList<>();
        c.subscribeAndWait(SubscriptionRequest.builder(JOBS).ackMode(AckMode.CLIENT_INDIVIDUAL).prefetch(PREFETCH).build(), m -> {
            CompletableFuture<Void> commit = work(c, m, m.header(JOB));
            assertThat(commit).as("the final run's broker is alive").isNotNull();
            commits.add(commit);
            if (m.header(FENCE) != null) {
                fenced.complete(null);
            } else {
                commit.thenRun(() -> committed.put(Long.parseLong(m.header(JOB)), KILLS + 1));
            }
        }, WAIT);
        c.send(Message.builder(JOBS).persistent(true).header(FENCE, "true").build()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(fenced).as("every job left was handed to the worker").succeedsWithin(WAIT);
        assertThat(CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new))).as("every commit receipted")
                .succeedsWithin(WAIT);
        c.close();
    }

    /** How many messages {@code queue} holds per job (consumed up to a fence). */
    private static Map<Long, Integer> drain(StompConnection c, String queue) throws Exception {
        c.send(Message.builder(queue).persistent(true).header(FENCE, "true").build()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        Map<Long, Integer> count = new ConcurrentHashMap<>();
        CompletableFuture<Void> fenced = new CompletableFuture<>();
        c.subscribeAndWait(SubscriptionRequest.builder(queue).ackMode(AckMode.AUTO).build(), m -> {
            if (m.header(FENCE) != null) {
                fenced.complete(null);
            } else {
                count.merge(Long.parseLong(m.header(JOB)), 1, Integer::sum);
            }
        }, WAIT);
        assertThat(fenced).as("%s drained up to its fence", queue).succeedsWithin(WAIT);
        return count;
    }

    private ClientConfig client(ChildBroker broker) {
        return ClientConfig.builder(broker.uri()).heartBeats(Duration.ZERO).connectTimeout(WAIT).build();
    }
}
