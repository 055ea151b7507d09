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
        print(out, true, new int[0]);
    }

    /**
     * Prints the rows (and the header when {@code header}), each column at least as wide as
     * {@code minWidth} says, and returns the widths used: a listing printed page by page passes
     * them on, so later pages never shift left of earlier ones.
     */
    int[] print(PrintStream out, boolean header, int[] minWidth) {
        int n = rows.get(0).length;
        int[] width = new int[n];
        for (int i = 0; i < n && i < minWidth.length; i++) width[i] = minWidth[i];
        for (String[] r : rows) for (int i = 0; i < n; i++) width[i] = Math.max(width[i], r[i].codePointCount(0, r[i].length()));
        for (String[] r : header ? rows : rows.subList(1, rows.size())) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < n; i++) {
                line.append(r[i]);
                if (i < n - 1) line.append(" ".repeat(width[i] - r[i].codePointCount(0, r[i].length()) + 2));
            }
            out.println(line.toString().stripTrailing());
        }
        return width;
    }
}
