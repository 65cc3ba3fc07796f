package io.xmit.actors.stats;

import java.util.List;

import io.xmit.actors.stats.CounterScope.Attachment;
import io.xmit.actors.stats.CounterScope.Side;
import io.xmit.actors.stats.CounterScope.Stage;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CounterScopeTest
{
    /** Every kind of scope the pipeline allocates, with the label text it had when labels were built by hand. */
    private static final List<CounterScope> SCOPES = List.of(
        CounterScope.tracer(),
        CounterScope.port(1),
        CounterScope.rxq(1, 2),
        CounterScope.txq(0, 3),
        CounterScope.socket(0, 7),
        CounterScope.txq(0, 3).withStage(Stage.QDISC),
        CounterScope.txq(0, 3).withStage(Stage.TXQ),
        CounterScope.rxq(1, 0).withStage(Stage.RXQ),
        CounterScope.port(0).withStage(Stage.HOST),
        CounterScope.socket(0, 7).withStage(Stage.SOCKET),
        CounterScope.txq(0, 3).withSide(Side.RECLAIM));
    private static final List<String> LABELS = List.of(
        "trace",
        "port=1",
        "port=1 rxq=2",
        "port=0 txq=3",
        "port=0 socket=7",
        "port=0 txq=3 stage=qdisc",
        "port=0 txq=3 stage=txq",
        "port=1 rxq=0 stage=rxq",
        "port=0 stage=host",
        "port=0 socket=7 stage=socket",
        "port=0 txq=3 side=reclaim");

    @Test
    void labelIsTheScopeTextOfEveryKind()
    {
        for (int i = 0; i < SCOPES.size(); i++)
        {
            assertEquals(LABELS.get(i), SCOPES.get(i).label());
        }
    }

    @Test
    void keyDecodesToTheScopeItWasEncodedFromAndMatchesOnlyIt()
    {
        final UnsafeBuffer key = new UnsafeBuffer(new byte[CountersReader.MAX_KEY_LENGTH]);
        for (final CounterScope scope : SCOPES)
        {
            scope.encode(key, 8);
            assertEquals(scope, CounterScope.decode(key, 8));
            for (final CounterScope other : SCOPES)
            {
                assertEquals(scope.equals(other), other.matches(key, 8), scope + " against " + other);
            }
        }
    }

    @Test
    void keyFitsAgronasKeyBuffer()
    {
        assertTrue(CounterScope.KEY_LENGTH <= CountersReader.MAX_KEY_LENGTH);
        assertEquals(CounterScope.SIDE_OFFSET + Integer.BYTES, CounterScope.KEY_LENGTH);
    }

    @Test
    void bytesThatAreNoScopeDecodeToNull()
    {
        final UnsafeBuffer key = new UnsafeBuffer(new byte[CounterScope.KEY_LENGTH]);
        assertNull(CounterScope.decode(key, 0), "an unwritten key");

        CounterScope.txq(0, 3).encode(key, 0);
        key.putInt(CounterScope.ATTACHMENT_OFFSET, 99);
        assertNull(CounterScope.decode(key, 0), "an unknown attachment");

        CounterScope.txq(0, 3).encode(key, 0);
        key.putInt(CounterScope.STAGE_OFFSET, 99);
        assertNull(CounterScope.decode(key, 0), "an unknown stage");

        CounterScope.txq(0, 3).encode(key, 0);
        key.putInt(CounterScope.SIDE_OFFSET, -5);
        assertNull(CounterScope.decode(key, 0), "an unknown side");

        CounterScope.txq(0, 3).encode(key, 0);
        key.putInt(CounterScope.PORT_OFFSET, -2);
        assertNull(CounterScope.decode(key, 0), "a negative port");

        CounterScope.port(0).encode(key, 0);
        key.putInt(CounterScope.INDEX_OFFSET, 4);
        assertNull(CounterScope.decode(key, 0), "an index on a port");

        CounterScope.tracer().encode(key, 0);
        key.putInt(CounterScope.PORT_OFFSET, 0);
        assertNull(CounterScope.decode(key, 0), "a port on the tracer");
    }

    @Test
    void rejectsScopesThatAreNone()
    {
        assertThrows(IllegalArgumentException.class, () -> CounterScope.port(-1));
        assertThrows(IllegalArgumentException.class, () -> CounterScope.txq(0, -1));
        assertThrows(IllegalArgumentException.class, () -> CounterScope.socket(-3, 1));
        assertThrows(IllegalArgumentException.class, () -> CounterScope.rxq(0, 0).withStage(null));
        assertThrows(IllegalArgumentException.class,
            () -> new CounterScope(Attachment.PORT, 0, 2, Stage.NONE, Side.NONE));
    }
}
