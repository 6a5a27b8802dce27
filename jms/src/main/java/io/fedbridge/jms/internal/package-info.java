/** The JMS client's implementation; no compatibility promise. */
package io.fedbridge.jms.internal;
