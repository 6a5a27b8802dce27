package io.fedbridge.metrics.internal;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.store.JournalMessageStore;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.bridge.LinkStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether a broker is ready for traffic: its listeners bound (it runs), its store writable, its disk above the
 * {@code minFreeDisk} watermark, and each link of its network connectors up, or down for less than the grace period
 * (a peer restarting, a link still connecting after start). Stateless; thread-safe.
 */
public final class Readiness {

    /** One check: its name, whether it passed, and what it saw. */
    public record Check(String name, boolean ok, String detail) {
    }

    /** The outcome: ready when every check passed, and its JSON for {@code /readyz}. */
    public record Result(boolean ready, List<Check> checks, String json) {
    }

    private final Broker broker;
    private final Duration linkGrace;

    public Readiness(Broker broker, Duration linkGrace) {
        this.broker = broker;
        this.linkGrace = linkGrace;
    }

    public Result check() {
        List<Check> checks = new ArrayList<>();
        checks.add(new Check("listeners", broker.isRunning(),
                broker.isRunning() ? "listening on " + broker.connectUris() + " and " + broker.vmUri() : "broker stopped"));
        String storeFailure = broker.store() instanceof JournalMessageStore j && j.failure() != null ? j.failure().getMessage() : null;
        checks.add(new Check("store", storeFailure == null, storeFailure == null ? "writable" : storeFailure));
        boolean low = broker.isDiskSpaceLow();
        checks.add(new Check("disk", !low, low ? "free disk below minFreeDisk=" + broker.config().resourceLimits().minFreeDisk()
                + " bytes: persistent sends wait" : "above minFreeDisk"));
        java.util.Map<String, Object> ha = broker.haStatus();
        if (ha != null) {
            boolean primary = "primary".equals(ha.get("role"));
            checks.add(new Check("ha", primary, (primary ? "primary" : "backup (" + ha.get("state") + ")") + " of HA group "
                    + ha.get("group") + ", epoch " + ha.get("epoch") + (primary ? "" : ": refuses clients; the primary is "
                    + ha.get("primary"))));
        }
        for (LinkStats l : broker.links()) {
            boolean up = l.state() == BridgeState.UP || l.state() == BridgeState.STALLED;
            boolean ok = up || l.timeInState().compareTo(linkGrace) < 0;
            String detail = l.state() + " for " + seconds(l.timeInState()) + (up ? "" : ok ? ", within linkGrace " + seconds(linkGrace)
                    : ", longer than linkGrace " + seconds(linkGrace)) + (!up && l.bridge().lastError() != null
                    ? ": " + l.bridge().lastError() : "");
            checks.add(new Check("link " + l.peerUri(), ok, detail));
        }
        boolean ready = checks.stream().allMatch(Check::ok);
        StringBuilder b = new StringBuilder("{\"status\":\"").append(ready ? "UP" : "DOWN").append("\",\"broker\":")
                .append(Json.string(broker.name())).append(",\"checks\":[");
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            b.append(i == 0 ? "" : ",").append("{\"name\":").append(Json.string(c.name())).append(",\"status\":\"")
                    .append(c.ok() ? "UP" : "DOWN").append("\",\"detail\":").append(Json.string(c.detail())).append('}');
        }
        return new Result(ready, List.copyOf(checks), b.append("]}").toString());
    }

    private static String seconds(Duration d) {
        return Json.number(d.toMillis() / 1000.0) + " s";
    }
}
