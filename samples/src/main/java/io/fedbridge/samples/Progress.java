package io.fedbridge.samples;

import java.io.PrintWriter;

/**
 * Shows how far the demo got: a bar redrawn in place on a terminal, a few plain lines otherwise (so logs
 * and pipes stay readable). {@link #update} is called from one thread, repeatedly.
 */
interface Progress {

    void update(int sent, int received);

    /** Draws the final state; nothing is drawn after this. */
    void finish(int sent, int received);

    static Progress of(PrintWriter out, int total, boolean terminal) {
        return terminal ? new Bar(out, total) : new Lines(out, total);
    }

    /** {@code \r}-redrawn bar for a terminal. */
    final class Bar implements Progress {
        private static final int WIDTH = 30;
        private final PrintWriter out;
        private final int total;
        private final String format;

        Bar(PrintWriter out, int total) {
            this.out = out;
            this.total = total;
            int digits = Integer.toString(total).length();
            this.format = "\rsent %" + digits + "d/%d  received %" + digits + "d/%d  [%s] %3d%%";
        }

        @Override
        public void update(int sent, int received) {
            int filled = total == 0 ? WIDTH : (int) ((long) received * WIDTH / total);
            String bar = "#".repeat(filled) + " ".repeat(WIDTH - filled);
            out.printf(format, sent, total, received, total, bar, percent(received, total));
            out.flush();
        }

        @Override
        public void finish(int sent, int received) {
            update(sent, received);
            out.println();
            out.flush();
        }
    }

    /** One line each time another quarter of the messages has been received. */
    final class Lines implements Progress {
        private static final int STEPS = 4;
        private final PrintWriter out;
        private final int total;
        private int printedSteps;

        Lines(PrintWriter out, int total) {
            this.out = out;
            this.total = total;
        }

        @Override
        public void update(int sent, int received) {
            int steps = total == 0 ? STEPS : (int) ((long) received * STEPS / total);
            if (steps > printedSteps) {
                printedSteps = steps;
                out.printf("received %d/%d (%d%%), sent %d%n", received, total, percent(received, total), sent);
                out.flush();
            }
        }

        @Override
        public void finish(int sent, int received) {
            update(sent, received);
        }
    }

    private static int percent(int part, int total) {
        return total == 0 ? 100 : (int) ((long) part * 100 / total);
    }
}
