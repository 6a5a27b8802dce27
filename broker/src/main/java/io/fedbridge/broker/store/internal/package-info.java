/**
 * The journal behind {@code JournalMessageStore}: format, replay index, writer. No compatibility promise.
 */
package io.fedbridge.broker.store.internal;
