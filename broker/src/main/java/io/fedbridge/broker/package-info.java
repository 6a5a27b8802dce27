/**
 * The embeddable fedbridge broker node: destinations, subscriptions, dispatch, acks, transactions.
 */
package io.fedbridge.broker;
