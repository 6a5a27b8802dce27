/**
 * The admin commands of {@code fedbridge} ({@code stat}, {@code queues}, {@code queue purge}, {@code events}, …): clients
 * of the management API that every fedbridge broker answers on {@code /queue/fedbridge.management} (see docs/operate.md).
 */
package io.fedbridge.samples.admin;
