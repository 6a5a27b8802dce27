/**
 * The {@code failover:(...)} client. Lands with the failover client issue.
 */
package io.fedbridge.failover;
