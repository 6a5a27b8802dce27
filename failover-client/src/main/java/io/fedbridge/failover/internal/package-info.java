/**
 * The failover client's machinery: the reconnect engine, the send buffer, the delivery log. No compatibility promise.
 */
package io.fedbridge.failover.internal;
