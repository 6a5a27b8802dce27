/**
 * The {@code fedbridge:} Camel component: {@code fedbridge:queue:NAME}, {@code fedbridge:topic:NAME},
 * {@code fedbridge:temp-queue:NAME} and {@code fedbridge:temp-topic:NAME} endpoints over the failover client. Camel
 * finds {@link io.fedbridge.camel.FedbridgeComponent} by its scheme; the options are in
 * {@link io.fedbridge.camel.FedbridgeConfiguration}, the headers in {@link io.fedbridge.camel.FedbridgeConstants}.
 * Everything under {@code .internal} carries no compatibility promise.
 */
package io.fedbridge.camel;
