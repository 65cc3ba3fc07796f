package io.xmit.deploy;

import java.io.Console;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Where a command's output goes: a terminal, where the live views redraw in place and fit its width, or a pipe or a
 * file, where they print one block per interval and keep every column.
 *
 * @param interactive standard output is a terminal.
 * @param columns     the width a line must fit on a terminal ({@code $COLUMNS}, else the terminal's own);
 *                    {@link Integer#MAX_VALUE} when piped.
 */
public record Terminal(boolean interactive, int columns)
{
    /** Output to a pipe or a file: nothing redrawn, nothing cut. */
    public static final Terminal PIPED = new Terminal(false, Integer.MAX_VALUE);
    /** A terminal whose width cannot be read, as wide as terminals open by default. */
    static final int DEFAULT_COLUMNS = 80;
    /** The narrowest width honoured: below it a live line would be all ellipsis. */
    static final int MIN_COLUMNS = 20;

    public Terminal
    {
        if (columns < MIN_COLUMNS)
        {
            throw new IllegalArgumentException("columns " + columns + " is narrower than " + MIN_COLUMNS);
        }
    }

    /** This process's standard output: a terminal of {@code $COLUMNS} (or its own width), or {@link #PIPED}. */
    static Terminal detect(final Map<String, String> environment)
    {
        final Console console = System.console();
        if (null == console || !console.isTerminal())
        {
            return PIPED;
        }
        final int columns = parseColumns(environment.get("COLUMNS"));
        return new Terminal(true, columns > 0 ? columns : sttyColumns());
    }

    /** A positive width from {@code $COLUMNS}, or 0 when it is unset or not a width. */
    static int parseColumns(final String text)
    {
        if (null == text || !text.strip().matches("[0-9]{1,5}"))
        {
            return 0;
        }
        final int columns = Integer.parseInt(text.strip());
        return columns >= MIN_COLUMNS ? columns : 0;
    }

    /** {@code line} cut to the width, its last column an ellipsis when cut. */
    public String fit(final String line)
    {
        return line.length() <= columns ? line : line.substring(0, columns - 1) + "…";
    }

    /** The terminal's width as {@code stty} reads it ({@code $COLUMNS} is a shell variable, rarely exported). */
    private static int sttyColumns()
    {
        try
        {
            final Process stty = new ProcessBuilder("stty", "size").redirectInput(new File("/dev/tty"))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            final String size = new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            stty.waitFor();
            final String[] rowsColumns = size.split(" ");
            final int columns = 2 == rowsColumns.length ? parseColumns(rowsColumns[1]) : 0;
            return columns > 0 ? columns : DEFAULT_COLUMNS;
        }
        catch (final IOException ex)
        {
            return DEFAULT_COLUMNS;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return DEFAULT_COLUMNS;
        }
    }
}
