package io.fedbridge.samples;

import picocli.CommandLine.Option;

/**
 * {@code --verbose}, shared by every subcommand, and the log level each subcommand starts with.
 *
 * <p>slf4j-simple reads its settings when the first logger is created, so {@link #apply(String)} must run
 * before anything logs. A level given on the command line with {@code -D} always wins.
 */
final class LoggingOptions {

    static final String VERBOSE = "--verbose";
    static final String DEFAULT_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";
    static final String FEDBRIDGE_LEVEL = "org.slf4j.simpleLogger.log.io.fedbridge";

    @Option(names = {"-v", VERBOSE}, description = "Log fedbridge at DEBUG and print the stack trace of an error.")
    boolean verbose;

    /** Sets the default level (unless given with -D), and DEBUG for fedbridge with --verbose. */
    void apply(String defaultLevel) {
        if (System.getProperty(DEFAULT_LEVEL) == null) {
            System.setProperty(DEFAULT_LEVEL, defaultLevel);
        }
        if (verbose) {
            System.setProperty(FEDBRIDGE_LEVEL, "debug");
        }
    }
}
