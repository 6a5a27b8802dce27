/**
 * The {@code multicast://} discovery agent. Lands with the multicast discovery issue.
 */
package io.fedbridge.discovery.multicast;
