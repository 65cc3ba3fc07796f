package io.xmit.deploy;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LiveOutputTest
{
    private static final String NL = System.lineSeparator();

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String written()
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void onATerminalTheStatusLineIsRedrawnInPlaceAndEndedOnce()
    {
        final LiveOutput live = new LiveOutput(out, new Terminal(true, 80));
        live.status("[#...] 1s");
        live.status("[##..] 2s");
        live.finish();
        live.finish();
        assertEquals("\r\033[K[#...] 1s\r\033[K[##..] 2s" + NL, written());
    }

    @Test
    void onATerminalTheStatusKeepsTheSegmentsThatFitItsWidthWhole()
    {
        final LiveOutput live = new LiveOutput(out, new Terminal(true, 24));
        live.status(List.of("core 0123456789", "drops 0", "A txq/s 1.0k 2.0k", "bulk 1.0"));
        live.status(List.of("a core wider than the terminal is cut", "drops 0"));
        assertEquals("\r\033[Kcore 0123456789  drops 0\r\033[Ka core wider than the t…", written());
    }

    @Test
    void pipedEveryStatusIsALineWithAllItsSegments()
    {
        final LiveOutput live = new LiveOutput(out, Terminal.PIPED);
        live.status(List.of("core 0123456789", "drops 0", "A txq/s 1.0k 2.0k"));
        live.status("second");
        live.finish();
        assertEquals("core 0123456789  drops 0  A txq/s 1.0k 2.0k" + NL + "second" + NL, written());
    }

    @Test
    void aLineThatStaysTakesTheStatusLinesPlace()
    {
        final LiveOutput live = new LiveOutput(out, new Terminal(true, 80));
        live.status("progress");
        live.println("a result");
        live.status("progress");
        assertEquals("\r\033[Kprogress\r\033[Ka result" + NL + "\r\033[Kprogress", written());
    }

    @Test
    void onATerminalABlockReplacesTheBlockBeforeItFittedToTheWidth()
    {
        final LiveOutput live = new LiveOutput(out, new Terminal(true, 20));
        live.block(List.of("at 1", "a line longer than twenty columns"));
        live.block(List.of("at 2", "short", ""));
        assertEquals("at 1" + NL + "a line longer than …" + NL + "\r\033[2A\033[Jat 2" + NL + "short" + NL + NL,
            written());
    }

    @Test
    void pipedEachBlockFollowsTheLastWhole()
    {
        final LiveOutput live = new LiveOutput(out, Terminal.PIPED);
        live.block(List.of("at 1", "a line longer than twenty columns"));
        live.block(List.of("at 2"));
        assertEquals("at 1" + NL + "a line longer than twenty columns" + NL + "at 2" + NL, written());
    }

    @Test
    void columnsComeFromAWidthOrNotAtAll()
    {
        assertEquals(132, Terminal.parseColumns("132"));
        assertEquals(0, Terminal.parseColumns(null));
        assertEquals(0, Terminal.parseColumns("wide"));
        assertEquals(0, Terminal.parseColumns("5"));
        final IllegalArgumentException narrow = assertThrows(IllegalArgumentException.class,
            () -> new Terminal(true, 5));
        assertEquals("columns 5 is narrower than 20", narrow.getMessage());
    }
}
