/**
 * Sample: a client on a {@code failover:} URI that carries on at another broker when its broker goes away. Run by a
 * test in CI.
 */
package io.fedbridge.samples.failover;
