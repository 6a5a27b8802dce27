package io.fedbridge.broker;

/** What a destination does when a send would exceed {@code maxNumMsgs} or {@code maxTotalMsgBytes}. */
public enum LimitBehavior {
    /** Stop reading the producer's connection until there is room again (back-pressure, nothing rejected). */
    FLOW_CONTROL,
    /** Reject the new message with an ERROR frame naming the limit (the default, as in OpenMQ). */
    REJECT_NEWEST,
    /** Accept the new message and remove the oldest pending one (to the dead-letter queue if {@code useDMQ}). */
    REMOVE_OLDEST
}
