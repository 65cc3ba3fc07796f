package io.xmit.deploy;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TableTest
{
    private static final List<List<String>> ROWS = List.of(
        List.of("queue", "packets", "bytes", "drops"),
        List.of("0", "1,000", "64,000", "0"),
        List.of("1", "22", "1,408", "3"));

    @Test
    void columnsThatDoNotFitFollowInBlocksUnderTheRowNamesAgain()
    {
        assertEquals(List.of(
            "queue  packets   bytes",
            "0        1,000  64,000",
            "1           22   1,408",
            "queue  drops",
            "0          0",
            "1          3"), Table.blocks(ROWS, 22));
        assertEquals(Table.lines(ROWS), Table.blocks(ROWS, 29), "all fit: one block, as lines lays it out");
        assertEquals(Table.lines(ROWS), Table.blocks(ROWS, Integer.MAX_VALUE));
    }

    @Test
    void aColumnTooWideEvenAloneGetsABlockOfItsOwn()
    {
        assertEquals(List.of("queue  packets", "0        1,000", "1           22", "queue   bytes", "0      64,000",
            "1       1,408", "queue  drops", "0          0", "1          3"), Table.blocks(ROWS, 10));
    }

    @Test
    void wrapBreaksAtSpacesAndIndentsWhatFollows()
    {
        assertEquals(List.of("books: tx: accepted 10", "  = transmitted 9 +", "  dropped 1"),
            Table.wrap("books: tx: accepted 10 = transmitted 9 + dropped 1", 22, "  "));
        assertEquals(List.of("abcdefgh", "  ijklmn", "  op q"), Table.wrap("abcdefghijklmnop q", 8, "  "));
        assertEquals(List.of("one line"), Table.wrap("one line", Integer.MAX_VALUE, "  "));
    }
}
