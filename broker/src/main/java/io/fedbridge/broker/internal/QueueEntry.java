package io.fedbridge.broker.internal;

/** A message's place in one queue (or one topic subscription): its redelivery count and who holds it. */
final class QueueEntry {
    final BrokerMessage message;
    /** The store key this entry is persisted under, or null if it is not persisted. */
    final String storeKey;
    int redeliveryCount;
    /** When the message entered this queue (for replayDelay). */
    final long arrivalMillis = System.currentTimeMillis();
    long deliveryTag;
    /**
     * The peer broker a bridge forwarded this entry to without the peer's receipt reaching us (the link or the peer
     * died): the peer may have stored it. Until {@link #inDoubtUntil} it goes only back to that peer, whose dedupe
     * settles it; after that to anyone. Kept until the entry is delivered or a bridge settles it
     * (QueueDestination#settleInDoubt); null when not in doubt.
     */
    String inDoubtWith;
    /** A local consumer (not a bridge) took it: its removal from the store says so (see MessageStore#recoverHistory). */
    boolean consumedHere;
    long inDoubtUntil;
    /**
     * The store write of this persistent entry while it is under way, else null. Meanwhile only a bridge may take it
     * (see {@link QueueDestination#stored}): the peer stores it before its receipt, and should this broker die before
     * its own write completes, the producer's resend (same federation id) is dropped by the peer's dedupe.
     */
    java.util.concurrent.CompletableFuture<Void> storing;
    /** Lent by a federation link (see {@link Loans}): never stored, delivered to local consumers only; else null. */
    Loans.Loan loan;

    QueueEntry(BrokerMessage message, String storeKey, int redeliveryCount) {
        this.message = message;
        this.storeKey = storeKey;
        this.redeliveryCount = redeliveryCount;
    }
}
