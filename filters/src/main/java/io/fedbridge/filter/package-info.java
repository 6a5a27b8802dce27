/**
 * Conditional bridge filters. Lands with the conditional filters issue.
 */
package io.fedbridge.filter;
