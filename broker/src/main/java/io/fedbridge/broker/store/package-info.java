/**
 * Message stores: {@link io.fedbridge.broker.store.JournalMessageStore}, the durable one (an append-only journal
 * with group commit), {@link io.fedbridge.broker.store.InMemoryMessageStore}, and
 * {@link io.fedbridge.broker.store.DedupeLog}, the broker's persisted federation-id fingerprints (batches in a MapDB
 * file).
 */
package io.fedbridge.broker.store;
