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

    /**
     * The rows laid out as {@link #lines} in blocks no wider than {@code width}: as many columns as fit beside the
     * first in each block, every block with the first column again, so a narrow terminal shows every cell. A column
     * too wide to fit beside the first even alone gets a block of its own.
     */
    static List<String> blocks(final List<List<String>> rows, final int width)
    {
        final int columns = rows.getFirst().size();
        final int[] widths = new int[columns];
        for (final List<String> row : rows)
        {
            for (int c = 0; c < columns; c++)
            {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        final List<String> lines = new ArrayList<>();
        int from = 1;
        while (from < columns)
        {
            int to = from + 1;
            int used = widths[0] + GAP.length() + widths[from];
            while (to < columns && used + GAP.length() + widths[to] <= width)
            {
                used += GAP.length() + widths[to++];
            }
            final List<List<String>> block = new ArrayList<>();
            for (final List<String> row : rows)
            {
                final List<String> cells = new ArrayList<>(row.subList(from, to));
                cells.addFirst(row.getFirst());
                block.add(cells);
            }
            lines.addAll(lines(block));
            from = to;
        }
        return lines;
    }

    /**
     * {@code text} broken at spaces into lines no wider than {@code width}, each after the first starting with
     * {@code indent}; a word longer than a line is cut into pieces that fit.
     */
    static List<String> wrap(final String text, final int width, final String indent)
    {
        final List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (final String word : text.split(" "))
        {
            final int room = width - (lines.isEmpty() ? 0 : indent.length());
            if (!line.isEmpty() && line.length() + 1 + word.length() > room)
            {
                lines.add((lines.isEmpty() ? "" : indent) + line);
                line = new StringBuilder();
            }
            String rest = word;
            while (line.isEmpty() && rest.length() > width - (lines.isEmpty() ? 0 : indent.length()))
            {
                final int fits = width - (lines.isEmpty() ? 0 : indent.length());
                lines.add((lines.isEmpty() ? "" : indent) + rest.substring(0, fits));
                rest = rest.substring(fits);
            }
            line.append(line.isEmpty() ? "" : " ").append(rest);
        }
        lines.add((lines.isEmpty() ? "" : indent) + line);
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
