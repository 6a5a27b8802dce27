/**
 * End-to-end benchmarks, side by side with ActiveMQ Classic.
 */
package io.fedbridge.benchmarks;
