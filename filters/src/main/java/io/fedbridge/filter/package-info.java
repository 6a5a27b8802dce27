/**
 * The conditional bridge filters, after ActiveMQ's {@code ConditionalNetworkBridgeFilterFactory} and RabbitMQ's
 * queue federation: {@link io.fedbridge.filter.ReplayWhenNoConsumers}, {@link io.fedbridge.filter.RateLimit},
 * {@link io.fedbridge.filter.ForwardOnlyWhenIdle}. Conduit (dedupe of identical remote subscriptions),
 * selector-aware forwarding, include/exclude patterns and demand forwarding itself are built into the bridge
 * engine ({@code conduitSubscriptions}, {@code dynamicallyIncludedDestinations}, {@code excludedDestinations}).
 *
 * <p>On a network-connector URI the options apply to every destination; in Java,
 * {@code BridgeConfig.Builder.filter(pattern, filter)} applies a filter to one destination pattern. This module
 * registers {@link io.fedbridge.filter.ConditionalFiltersProvider} for the URI options.
 */
package io.fedbridge.filter;
