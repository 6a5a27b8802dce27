package io.fedbridge.samples.admin;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Rows printed as aligned columns under their headings; numeric columns are right-aligned. */
final class Table {

    private final List<String> headings;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... headings) {
        this.headings = List.of(headings);
    }

    Table row(Object... cells) {
        List<String> r = new ArrayList<>(cells.length);
        for (Object c : cells) {
            r.add(c == null ? "-" : c.toString());
        }
        rows.add(r);
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintWriter out) {
        int n = headings.size();
        int[] width = new int[n];
        boolean[] numeric = new boolean[n];
        boolean[] number = new boolean[n];
        for (int i = 0; i < n; i++) {
            width[i] = headings.get(i).length();
            numeric[i] = !rows.isEmpty();
        }
        for (List<String> r : rows) {
            for (int i = 0; i < n; i++) {
                width[i] = Math.max(width[i], r.get(i).length());
                numeric[i] &= r.get(i).matches("-?[0-9][0-9.,]*|-");
                number[i] |= !r.get(i).equals("-");
            }
        }
        for (int i = 0; i < n; i++) {
            numeric[i] &= number[i];
        }
        out.println(line(headings, width, numeric));
        for (List<String> r : rows) {
            out.println(line(r, width, numeric));
        }
    }

    private static String line(List<String> cells, int[] width, boolean[] numeric) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            boolean last = i == cells.size() - 1;
            String pad = " ".repeat(width[i] - c.length());
            if (numeric[i]) {
                b.append(pad).append(c);
            } else {
                b.append(c).append(last ? "" : pad);
            }
            if (!last) {
                b.append("  ");
            }
        }
        return b.toString().stripTrailing();
    }
}
