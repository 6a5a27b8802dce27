/**
 * fedbridge's Jakarta Messaging 3.1 client: {@link io.fedbridge.jms.FedbridgeConnectionFactory} over the failover
 * client, and destinations {@link io.fedbridge.jms.FedbridgeQueue} and {@link io.fedbridge.jms.FedbridgeTopic}. What
 * maps to what on the STOMP wire is in docs/jms.md.
 */
package io.fedbridge.jms;
