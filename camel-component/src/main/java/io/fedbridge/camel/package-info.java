/**
 * The {@code fedbridge:} Camel component. Lands with the Camel component issue.
 */
package io.fedbridge.camel;
