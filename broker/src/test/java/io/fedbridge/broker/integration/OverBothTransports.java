package io.fedbridge.broker.integration;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs a test once over a real TCP socket and once over the in-JVM vm:// transport. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "over {0}")
@ValueSource(strings = {"tcp", "vm"})
@interface OverBothTransports {
}
