/**
 * The {@code failover:(...)} client: {@link io.fedbridge.failover.FailoverClient#connect(String)} connects to one of
 * several brokers and survives their failures without losing or duplicating a message. Configuration in
 * {@link io.fedbridge.failover.FailoverConfig}; everything under {@code .internal} carries no compatibility promise.
 */
package io.fedbridge.failover;
