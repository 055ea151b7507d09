package lake.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Aligned columns for people: a header and rows, each column as wide as its widest cell, two spaces apart. */
final class Columns {
    private final List<String[]> rows = new ArrayList<>();

    Columns(String... header) {
        rows.add(header);
    }

    Columns row(Object... cells) {
        String[] r = new String[cells.length];
        for (int i = 0; i < cells.length; i++) r[i] = cells[i] == null ? "-" : String.valueOf(cells[i]);
        rows.add(r);
        return this;
    }

    void print(PrintStream out) {
        int n = rows.get(0).length;
        int[] width = new int[n];
        for (String[] r : rows) for (int i = 0; i < n; i++) width[i] = Math.max(width[i], r[i].codePointCount(0, r[i].length()));
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < n; i++) {
                line.append(r[i]);
                if (i < n - 1) line.append(" ".repeat(width[i] - r[i].codePointCount(0, r[i].length()) + 2));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
