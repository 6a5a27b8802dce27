/**
 * JMS message selectors (the SQL-92 conditional expression subset of JMS 2.0 &sect;3.8.1) evaluated over
 * STOMP headers. Start at {@link io.fedbridge.core.selector.Selector#parse(String)}.
 */
package io.fedbridge.core.selector;
