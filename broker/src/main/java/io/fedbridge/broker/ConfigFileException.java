package io.fedbridge.broker;

/**
 * A config file that cannot be read or is not valid, thrown by {@link BrokerConfigFile}. The message starts
 * with the file and, where one line is to blame, its number, then names the key and the value:
 * {@code broker.conf:12: maxNumMsgs must be -1 (unlimited) or >= 1, but was 0}.
 *
 * <p>It is an {@link IllegalArgumentException}, like every other invalid configuration, so callers that
 * already handle those need nothing new.
 */
public class ConfigFileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final int line;

    ConfigFileException(String source, int line, String detail, Throwable cause) {
        super(location(source, line) + ": " + detail, cause);
        this.source = source;
        this.line = line;
    }

    /** The file as it was named to {@link BrokerConfigFile#load} (or the source name given to {@code parse}). */
    public String source() {
        return source;
    }

    /** The 1-based line the problem is on, or 0 when it concerns the file as a whole (e.g. it does not exist). */
    public int line() {
        return line;
    }

    private static String location(String source, int line) {
        return line > 0 ? source + ":" + line : source;
    }
}
