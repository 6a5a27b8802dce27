/**
 * How the {@code fedbridge:} component works inside: message mapping, shared connections, reply queues. No
 * compatibility promise.
 */
package io.fedbridge.camel.internal;
