package io.xmit.deploy;

import java.util.ArrayList;
import java.util.List;

/**
 * A table of text cells laid out in columns as wide as their widest cell, two spaces apart: the first column (the
 * row's name) to the left, the figures to the right.
 */
final class Table
{
    private static final String GAP = "  ";

    private Table()
    {
    }

    /** The rows as lines; each row has as many cells as the first. */
    static List<String> lines(final List<List<String>> rows)
    {
        final int[] widths = new int[rows.getFirst().size()];
        for (final List<String> row : rows)
        {
            for (int c = 0; c < widths.length; c++)
            {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        final List<String> lines = new ArrayList<>();
        for (final List<String> row : rows)
        {
            final StringBuilder line = new StringBuilder(row.getFirst());
            line.append(" ".repeat(widths[0] - row.getFirst().length()));
            for (int c = 1; c < widths.length; c++)
            {
                line.append(GAP).append(" ".repeat(widths[c] - row.get(c).length())).append(row.get(c));
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /** Rows as columns: the first row's names down the first column. */
    static List<List<String>> transpose(final List<List<String>> rows)
    {
        final List<List<String>> columns = new ArrayList<>();
        for (int c = 0; c < rows.getFirst().size(); c++)
        {
            final List<String> column = new ArrayList<>();
            for (final List<String> row : rows)
            {
                column.add(row.get(c));
            }
            columns.add(column);
        }
        return columns;
    }
}
