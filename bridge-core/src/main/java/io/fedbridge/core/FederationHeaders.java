package io.fedbridge.core;

/**
 * The one place where fedbridge's federation extensions to STOMP are named. They are ordinary headers, so
 * any STOMP client or broker passes them through untouched.
 *
 * <table>
 * <caption>Federation headers</caption>
 * <tr><th>header</th><th>frame</th><th>meaning</th></tr>
 * <tr><td>{@value #BROKER_ID}</td><td>CONNECTED</td><td>the broker's stable id (UUID)</td></tr>
 * <tr><td>{@value #BROKER_NAME}</td><td>CONNECTED</td><td>the broker's configured name</td></tr>
 * <tr><td>{@value #BROKER_PATH}</td><td>SEND / MESSAGE</td><td>comma-separated ids of the brokers a message passed</td></tr>
 * <tr><td>{@value #FEDERATION_ID}</td><td>SEND / MESSAGE</td><td>federation-wide message id: origin broker id + ':' + sequence, used for dedupe</td></tr>
 * <tr><td>{@value #HOPS}</td><td>SEND / MESSAGE</td><td>bridges crossed so far</td></tr>
 * </table>
 */
public final class FederationHeaders {

    public static final String BROKER_ID = "fedbridge-broker-id";
    public static final String BROKER_NAME = "fedbridge-broker-name";
    public static final String BROKER_PATH = "fedbridge-broker-path";
    public static final String FEDERATION_ID = "fedbridge-id";
    public static final String HOPS = "fedbridge-hops";

    private FederationHeaders() {
    }
}
