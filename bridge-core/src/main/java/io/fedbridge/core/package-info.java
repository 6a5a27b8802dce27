/**
 * STOMP 1.2 wire layer, composite URIs, the plain client and the SPIs every fedbridge module builds on.
 */
package io.fedbridge.core;
