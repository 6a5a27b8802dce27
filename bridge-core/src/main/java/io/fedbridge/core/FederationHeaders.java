package io.fedbridge.core;

/**
 * The one place where fedbridge's federation extensions to STOMP are named. They are ordinary headers, so
 * any STOMP client or broker passes them through untouched.
 *
 * <table>
 * <caption>Federation headers</caption>
 * <tr><th>header</th><th>frame</th><th>meaning</th></tr>
 * <tr><td>{@value #BROKER_ID}</td><td>CONNECTED</td><td>the broker's stable id (UUID)</td></tr>
 * <tr><td>{@value #BROKER_NAME}</td><td>CONNECTED</td><td>the broker's configured name</td></tr>
 * <tr><td>{@value #BROKER_PATH}</td><td>SEND / MESSAGE</td><td>comma-separated ids of the brokers a message passed</td></tr>
 * <tr><td>{@value #FEDERATION_ID}</td><td>SEND / MESSAGE</td><td>federation-wide message id: origin broker id + ':' + sequence, used for dedupe</td></tr>
 * <tr><td>{@value #HOPS}</td><td>SEND / MESSAGE</td><td>bridges crossed so far</td></tr>
 * <tr><td>{@value #DUPLICATE}</td><td>RECEIPT</td><td>"true" when the broker dropped the SEND as a duplicate federation id</td></tr>
 * <tr><td>{@value #ORDERED_RECEIPTS}</td><td>CONNECTED</td><td>"true": the receipt of a SEND carrying a broker path is written
 *     only after every such SEND before it on the connection was accepted, so it covers them all</td></tr>
 * <tr><td>{@value #RECEIPT_ONLY}</td><td>SEND</td><td>"true": not a message; only its ordered receipt is wanted</td></tr>
 * <tr><td>{@value #DUPLICATES}</td><td>RECEIPT</td><td>of such a SEND: how many such SENDs since the previous such receipt
 *     (this one included) were dropped as duplicates</td></tr>
 * <tr><td>{@value #NETWORK_CONSUMER}</td><td>SUBSCRIBE</td><td>"true": a bridge's network subscription</td></tr>
 * <tr><td>{@value #ORIGIN_CONSUMER}</td><td>SUBSCRIBE / advisory / lent SEND</td><td>federation-wide id of the consumer the demand comes from (a lent message is for)</td></tr>
 * <tr><td>{@value #CONSUMER_PATH}</td><td>SUBSCRIBE / advisory</td><td>comma-separated ids of the brokers the demand passed, origin first</td></tr>
 * <tr><td>{@value #EXCLUDE_BROKER}</td><td>SUBSCRIBE</td><td>never dispatch messages whose broker path contains this id</td></tr>
 * <tr><td>{@value #MAX_HOPS}</td><td>SUBSCRIBE</td><td>never dispatch messages that already crossed this many bridges</td></tr>
 * <tr><td>{@value #CONSUMER_RANK}</td><td>SUBSCRIBE / advisory</td><td>federation-wide rank of the consumer the demand comes
 *     from, on destinations whose active consumers are limited; the lowest ranks are the active ones</td></tr>
 * <tr><td>{@value #ACK_THROUGH}</td><td>CONNECTED / SUBSCRIBE</td><td>"true": the broker takes lent messages; the network
 *     subscription's messages are lent (acknowledged only when the remote consumer acknowledges them)</td></tr>
 * <tr><td>{@value #BORROWED}</td><td>SEND / RECEIPT</td><td>SEND: "true", a lent message; RECEIPT: {@code acked} or
 *     {@code returned}, once the consumer settled it</td></tr>
 * <tr><td>{@value #REDELIVERIES}</td><td>SEND / MESSAGE</td><td>how many times the forwarding broker delivered the message
 *     of an exclusive queue before: the receiving broker counts them as its own (its consumer sees it redelivered)</td></tr>
 * <tr><td>{@value #BORROW_CONFIRM}</td><td>RECEIPT / SEND</td><td>RECEIPT: "true", the consumer's ACK waits for the
 *     lender; SEND: the receipt id of a lent message whose acknowledgement the lender's source confirmed</td></tr>
 * </table>
 *
 * <p>Consumer advisories: a SUBSCRIBE to {@value #CONSUMER_ADVISORY_TOPIC} first receives one
 * {@code consumer-added} event per existing consumer, then an event for every consumer added or removed.
 * Events are MESSAGE frames whose headers are {@value #ADVISORY} ({@code consumer-added} or
 * {@code consumer-removed}), {@value #ORIGIN_CONSUMER}, {@value #ADVISORY_DESTINATION},
 * {@value #ADVISORY_SELECTOR} (if any), {@value #CONSUMER_PATH}, {@value #NETWORK_CONSUMER} and {@value #CONSUMER_RANK} (if any).
 */
public final class FederationHeaders {

    public static final String BROKER_ID = "fedbridge-broker-id";
    public static final String BROKER_NAME = "fedbridge-broker-name";
    public static final String BROKER_PATH = "fedbridge-broker-path";
    public static final String FEDERATION_ID = "fedbridge-id";
    public static final String HOPS = "fedbridge-hops";
    public static final String DUPLICATE = "fedbridge-duplicate";
    /** CONNECTED: "true" when receipts of forwarded SENDs are ordered and cumulative (a bridge may ask for fewer). */
    public static final String ORDERED_RECEIPTS = "fedbridge-ordered-receipts";
    /**
     * SEND, to a broker with ordered receipts: "true" = route nothing, just answer with an ordered receipt (a bridge
     * settling forwards it sent without asking for one).
     */
    public static final String RECEIPT_ONLY = "fedbridge-receipt-only";
    /** RECEIPT of a forwarded SEND, with ordered receipts: duplicates dropped since the previous such receipt. */
    public static final String DUPLICATES = "fedbridge-duplicates";
    public static final String NETWORK_CONSUMER = "fedbridge-network-consumer";
    public static final String ORIGIN_CONSUMER = "fedbridge-origin-consumer";
    public static final String CONSUMER_PATH = "fedbridge-consumer-path";
    public static final String EXCLUDE_BROKER = "fedbridge-exclude-broker";
    public static final String MAX_HOPS = "fedbridge-max-hops";
    /**
     * SUBSCRIBE / advisory: the consumer's federation-wide rank, {@code TIME/ORIGIN-CONSUMER-ID} (TIME: 13 decimal digits,
     * epoch ms), on a destination whose active consumers are limited. Ranks compare as strings; a bridge carries a
     * consumer with a rank on a network subscription of its own (no conduit), so every broker sees every rank.
     */
    public static final String CONSUMER_RANK = "fedbridge-consumer-rank";
    /**
     * Forwarding without ownership transfer ("ack-through", docs/cluster.md), for queues with a federation-wide exclusive
     * consumer. CONNECTED, to a federation link: "true" when this broker takes {@link #BORROWED} messages. SUBSCRIBE, on a
     * network subscription: "true" = what it receives is lent, so its unacknowledged messages are never in doubt (they
     * go back to the head of the queue at once when the subscription ends).
     */
    public static final String ACK_THROUGH = "fedbridge-ack-through";
    /**
     * SEND from a federation link holding {@code federate}: "true", the message is lent, not handed over ({@link #REDELIVERIES}
     * says how often its lender delivered it before), and {@link #ORIGIN_CONSUMER} names
     * the borrower's consumer it is lent for. The borrower delivers it to that consumer only, stores nothing, and answers the SEND's receipt only when that consumer settled it: with this
     * header {@code acked} (the lender acknowledges its copy) or {@code returned} (it was not consumed; the lender keeps
     * it). From an ordinary client it is ignored like every federation header.
     */
    public static final String BORROWED = "fedbridge-borrowed";
    public static final String BORROWED_ACKED = "acked";
    /**
     * SEND from a federation link (kept on the message): how many times the broker it comes from delivered it before, set
     * by bridges on messages of queues with a federation-wide exclusive consumer. The receiving broker starts its own
     * count there, so a consumer that gets a message another consumer may have had sees it {@code redelivered}.
     */
    public static final String REDELIVERIES = "fedbridge-redeliveries";
    public static final String BORROWED_RETURNED = "returned";
    /**
     * RECEIPT of a {@link #BORROWED} SEND: "true" = the consumer asked for a receipt of its ACK, which waits for the
     * lender; the lender answers, once its source confirmed its own ACK, with a SEND (no destination) carrying this header
     * and the borrowed SEND's receipt id.
     */
    public static final String BORROW_CONFIRM = "fedbridge-borrow-confirm";
    /** SUBSCRIBE: a network subscription may take back messages that came from its peer, after they waited this long (ms) with no local consumer. */
    public static final String REPLAY_DELAY = "fedbridge-replay-delay";
    /** SUBSCRIBE: with replay, "true" = only when no local consumer's selector matches the message. */
    public static final String REPLAY_SELECTOR_AWARE = "fedbridge-replay-selector-aware";
    /** SEND / MESSAGE: how many times a message was replayed back toward consumers (part of the dedupe key). */
    public static final String REPLAYS = "fedbridge-replays";
    /** RECEIPT of a queue SEND: messages waiting in that queue for a consumer, after this one. */
    public static final String QUEUE_PENDING = "fedbridge-queue-pending";

    /** The reserved topic on which a broker publishes consumer advisories. */
    public static final String CONSUMER_ADVISORY_TOPIC = "/topic/fedbridge.advisory.consumer";
    public static final String ADVISORY = "fedbridge-advisory";
    public static final String ADVISORY_DESTINATION = "fedbridge-advisory-destination";
    public static final String ADVISORY_SELECTOR = "fedbridge-advisory-selector";
    public static final String CONSUMER_ADDED = "consumer-added";
    public static final String CONSUMER_REMOVED = "consumer-removed";

    /**
     * Destination definitions (see the broker's docs/cluster.md): a SUBSCRIBE (a federation link's) first receives every
     * definition the broker holds, tombstones included, then each change it applies. Bridges relay them to their peer;
     * only federation links may SEND here. A message carries {@value #DEFINITION}, {@value #DEFINITION_VERSION},
     * {@value #DEFINITION_DELETED} and the policy as {@code key=value} lines in its body.
     */
    public static final String DEFINITIONS_TOPIC = "/topic/fedbridge.advisory.definitions";
    /**
     * CONNECTED, to a federation link: "true" when this link may read and write {@link #DEFINITIONS_TOPIC} (it holds
     * {@code federate} there). A bridge relays definitions only between two brokers that both say so.
     */
    public static final String DEFINITIONS = "fedbridge-definitions";
    /** On a {@link #DEFINITIONS_TOPIC} message: the destination defined; every header of a definition starts with it. */
    public static final String DEFINITION = "fedbridge-definition";
    /** On a {@link #DEFINITIONS_TOPIC} message: {@code COUNTER:BROKER-ID}, the definition's version. */
    public static final String DEFINITION_VERSION = "fedbridge-definition-version";
    /** On a {@link #DEFINITIONS_TOPIC} message: "true" for a deletion (a tombstone). */
    public static final String DEFINITION_DELETED = "fedbridge-definition-deleted";

    /**
     * CONNECTED, and messages on {@link #CLUSTER_TOPIC}: the client connector URIs of this broker (first) and of
     * the brokers it is bridged with, comma-separated. Failover clients add them to their list.
     */
    public static final String CLUSTER_URIS = "fedbridge-cluster-uris";
    /** On a {@link #CLUSTER_TOPIC} message, "true": clients should spread out again over the list. */
    public static final String CLUSTER_REBALANCE = "fedbridge-cluster-rebalance";
    /** A subscriber first gets the current cluster list, then one message per change. */
    public static final String CLUSTER_TOPIC = "/topic/fedbridge.advisory.cluster";

    /**
     * CONNECT: this connection is a bridge or HA link of the federation. The value is a proof of the federation
     * secret ({@code v1:<epoch-ms>:<nonce>:<hmac>}, see {@code FederationProof}) or, for a broker without a secret,
     * {@code "true"}. A broker grants the federation right only to connections whose proof it checks (see the
     * Security documentation); an ordinary client's federation headers are ignored or refused.
     */
    public static final String FEDERATE = "fedbridge-federate";
    /**
     * CONNECT: a secret the client chose (at least 16 characters, never sent anywhere else). A broker keys the
     * client's own {@link #FEDERATION_ID}s by it (and the login), so they deduplicate only this client's resends,
     * on every broker of the federation, and no other client can forge them.
     */
    public static final String PRODUCER_SECRET = "fedbridge-producer-secret";
    /**
     * CONNECTED: "true" when every {@link #FEDERATION_ID} on a MESSAGE from this broker was minted or scoped by a
     * broker of the federation, never taken verbatim from a client; failover clients use such ids to drop
     * redeliveries after a failover, and ignore {@link #FEDERATION_ID} from brokers without it.
     */
    public static final String VOUCHED_IDS = "fedbridge-vouched-ids";
    /**
     * CONNECTED: milliseconds for which this connection's temporary queues, and the replies sent to them, outlive it on
     * the brokers that hold them; a client reconnecting with the same {@link #PRODUCER_SECRET} within it gets the same
     * names back, on any broker of the federation. Absent: its temporary queues end with the connection.
     */
    public static final String TEMP_RECONNECT_GRACE = "fedbridge-temp-reconnect-grace";

    /*
     * Settling forwards left in doubt by a dead link. A broker that forwarded a queue message over a link which died
     * before the peer's receipt came keeps the message for that peer only (BrokerConfig.inDoubtHold): the peer may have
     * stored it, and may even have delivered it. When a bridge between the two comes up again it asks the peer, message
     * by message, and tells the broker the answer, so the copy is dropped (the peer has it) or released to anyone at
     * once (the peer never stored it): whether or not the peer still has a consumer of that queue.
     */

    /**
     * CONNECTED, to a federation link: "true" when this broker lists the forwards it holds in doubt for a peer on
     * {@link #IN_DOUBT_TOPIC}, answers {@link #IN_DOUBT_PROBE} SENDs and takes {@link #IN_DOUBT_SETTLE} SENDs.
     */
    public static final String IN_DOUBT = "fedbridge-in-doubt";
    /**
     * A federation link's SUBSCRIBE here, with {@link #NETWORK_CONSUMER} and {@link #EXCLUDE_BROKER} naming the peer,
     * receives one MESSAGE per forward this broker holds in doubt for that peer: the message's headers (its own
     * {@code message-id} included), no body, {@link #ADVISORY} = {@value #IN_DOUBT_ADVISORY} and
     * {@link #ADVISORY_DESTINATION} naming its queue. A snapshot, taken at SUBSCRIBE (doubts arise only when a link
     * dies, and the bridge subscribes on each new link). Other subscribers receive nothing.
     */
    public static final String IN_DOUBT_TOPIC = "/topic/fedbridge.advisory.in-doubt";
    public static final String IN_DOUBT_ADVISORY = "in-doubt";
    /**
     * SEND from a federation link holding {@code federate} on its destination, with {@link #FEDERATION_ID} (and
     * {@link #REPLAYS}) as the forward would carry them: not a message; the RECEIPT's {@link #IN_DOUBT_STATE} says
     * whether this broker has accepted that forward.
     */
    public static final String IN_DOUBT_PROBE = "fedbridge-in-doubt-probe";
    /**
     * RECEIPT of an {@link #IN_DOUBT_PROBE}: {@value #IN_DOUBT_STORED} (accepted here, whether or not consumed since),
     * {@value #IN_DOUBT_ABSENT} (never accepted, or forgotten: older than the dedupe window) or {@value #IN_DOUBT_PENDING}
     * (being stored right now: ask again).
     */
    public static final String IN_DOUBT_STATE = "fedbridge-in-doubt-state";
    public static final String IN_DOUBT_STORED = "stored";
    public static final String IN_DOUBT_ABSENT = "absent";
    public static final String IN_DOUBT_PENDING = "pending";
    /**
     * SEND from a federation link holding {@code federate} on its destination (a queue), with {@link #IN_DOUBT_MESSAGE}
     * and {@link #EXCLUDE_BROKER} naming the peer: not a message; settles that forward if this broker still holds it in
     * doubt for that peer. {@value #IN_DOUBT_STORED}: the peer has it, the copy here is removed;
     * {@value #IN_DOUBT_ABSENT}: the peer never had it, the copy here goes to any consumer at once.
     */
    public static final String IN_DOUBT_SETTLE = "fedbridge-in-doubt-settle";
    /** Of an {@link #IN_DOUBT_SETTLE}: the {@code message-id} this broker gave the forward. */
    public static final String IN_DOUBT_MESSAGE = "fedbridge-in-doubt-message";

    /** Splits a comma-separated broker path; empty for null or blank. */
    public static java.util.List<String> parsePath(String path) {
        if (path == null || path.isBlank()) {
            return java.util.List.of();
        }
        return java.util.List.of(path.split(","));
    }

    private FederationHeaders() {
    }
}
