/**
 * The fedbridge command line and runnable samples.
 */
package io.fedbridge.samples;
