package io.fedbridge.core.discovery;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What an agent may know about the broker it works for.
 *
 * @param brokerId      the local broker's id
 * @param brokerName    the local broker's name
 * @param advertiseUris connector URIs peers should use to reach this broker (multicast announces them)
 * @param scheduler     for back-off timers and heartbeats
 * @param clock         time source
 */
public record DiscoveryContext(String brokerId, String brokerName, List<String> advertiseUris,
                               ScheduledExecutorService scheduler, Clock clock) {
    public DiscoveryContext {
        advertiseUris = List.copyOf(advertiseUris);
    }
}
