package io.fedbridge.benchmarks;

/** A benchmark target could not be started or did not complete a scenario; names the target and its log. */
public final class BenchmarkException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BenchmarkException(String message) {
        super(message);
    }

    public BenchmarkException(String message, Throwable cause) {
        super(message, cause);
    }
}
