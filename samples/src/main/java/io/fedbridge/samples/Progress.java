package io.fedbridge.samples;

import java.io.PrintWriter;

/** A one-line progress bar on a terminal; nothing otherwise (scripts read the summary line). */
final class Progress {

    private final PrintWriter out;
    private final String what;
    private final long total;
    private final boolean live;
    private long lastDraw;

    private Progress(PrintWriter out, String what, long total, boolean live) {
        this.out = out;
        this.what = what;
        this.total = total;
        this.live = live;
    }

    static Progress of(PrintWriter out, String what, long total) {
        return new Progress(out, what, total, System.console() != null);
    }

    synchronized void update(long done) {
        if (!live) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastDraw < 100_000_000L && done < total) {
            return;
        }
        lastDraw = now;
        int width = 30;
        int filled = total == 0 ? width : (int) Math.min(width, done * width / total);
        out.print("\r" + what + " " + done + "/" + total + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "]");
        out.flush();
    }

    synchronized void done() {
        if (live) {
            out.println();
            out.flush();
        }
    }
}
