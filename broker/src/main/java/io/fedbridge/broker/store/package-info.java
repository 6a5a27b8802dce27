/**
 * Message stores: {@link io.fedbridge.broker.store.JournalMessageStore}, the durable one (an append-only journal
 * with group commit), {@link io.fedbridge.broker.store.InMemoryMessageStore}, and
 * {@link io.fedbridge.broker.store.DedupeLog}, the broker's persisted federation-id fingerprints (batches in a MapDB
 * file), and {@link io.fedbridge.broker.store.DedupeWindow}, a bounded persistent set of ids on MapDB with an atomic
 * first-seen check, for embedders (one MapDB entry per id: tens of microseconds each, too dear for a broker's hot path).
 */
package io.fedbridge.broker.store;
