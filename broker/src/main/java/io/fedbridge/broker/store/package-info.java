/**
 * Message stores: {@link io.fedbridge.broker.store.JournalMessageStore}, the durable one (an append-only journal
 * with group commit), {@link io.fedbridge.broker.store.InMemoryMessageStore}, and
 * {@link io.fedbridge.broker.store.DedupeWindow}, a bounded persistent set of federation message ids on MapDB.
 */
package io.fedbridge.broker.store;
