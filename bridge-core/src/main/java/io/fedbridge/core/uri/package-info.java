/**
 * The one place where fedbridge parses URIs: {@link io.fedbridge.core.uri.CompositeUri} for the grammar
 * ({@code tcp://host:61613?k=v}, {@code failover:(tcp://a:61613,tcp://b:61613)?randomize=false}, nested
 * composites) and {@link io.fedbridge.core.uri.UriOptions} for binding options to config builders.
 */
package io.fedbridge.core.uri;
