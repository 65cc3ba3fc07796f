package io.xmit.deploy;

import java.io.PrintStream;
import java.util.List;

/**
 * A live view's output. On a terminal a status line is redrawn in place and a block replaces the block drawn before
 * it, each line fitted to the width; piped, each is printed whole, one per interval, so a log keeps every one.
 * Lines printed with {@link #println} stay: on a terminal they take the status line's place, which the next status
 * redraws below them.
 */
public final class LiveOutput
{
    /** Carriage return, then erase to the end of the line. */
    private static final String REDRAW_LINE = "\r\033[K";
    private static final String SEPARATOR = "  ";

    private final PrintStream out;
    private final Terminal terminal;
    /** A status line is on screen, without its newline. */
    private boolean statusShown;
    /** Lines of the block on screen, for the next block to move up over. */
    private int blockLines;

    public LiveOutput(final PrintStream out, final Terminal terminal)
    {
        this.out = out;
        this.terminal = terminal;
    }

    /** The status line: redrawn in place on a terminal, printed as a line of its own when piped. */
    public void status(final String line)
    {
        if (terminal.interactive())
        {
            out.print(REDRAW_LINE + terminal.fit(line));
            out.flush();
            statusShown = true;
        }
        else
        {
            out.println(line);
        }
    }

    /**
     * A status line of segments, most important first, two spaces apart: on a terminal it keeps the segments that
     * fit its width whole and leaves out the rest; piped, it keeps them all.
     */
    public void status(final List<String> segments)
    {
        final StringBuilder line = new StringBuilder(segments.getFirst());
        for (final String segment : segments.subList(1, segments.size()))
        {
            if (!terminal.interactive() || line.length() + SEPARATOR.length() + segment.length() <= terminal.columns())
            {
                line.append(SEPARATOR).append(segment);
            }
        }
        status(line.toString());
    }

    /** A line that stays, in place of the status line if one is showing. */
    public void println(final String line)
    {
        if (statusShown)
        {
            out.print(REDRAW_LINE);
            statusShown = false;
        }
        out.println(line);
    }

    /** A block of lines: on a terminal it replaces the block drawn before, fitted to the width; piped, it follows. */
    public void block(final List<String> lines)
    {
        if (!terminal.interactive())
        {
            lines.forEach(out::println);
            return;
        }
        final StringBuilder screen = new StringBuilder();
        if (blockLines > 0)
        {
            // Up to the first line of the last block, then erase from there to the end of the screen.
            screen.append("\r\033[").append(blockLines).append("A\033[J");
        }
        for (final String line : lines)
        {
            screen.append(terminal.fit(line)).append(System.lineSeparator());
        }
        out.print(screen);
        out.flush();
        blockLines = lines.size();
    }

    /** Ends the status line with its newline, so what follows starts on a line of its own. */
    public void finish()
    {
        if (statusShown)
        {
            out.println();
            statusShown = false;
        }
    }
}
