/**
 * The {@code static:(uri,uri,...)} discovery agent. Lands with the bridges issue.
 */
package io.fedbridge.discovery.staticlist;
