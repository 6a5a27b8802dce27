/**
 * Sample: embedding fedbridge broker nodes and the bridges between them in Java code. Run by a test in CI.
 */
package io.fedbridge.samples.embedding;
