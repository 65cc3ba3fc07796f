package io.xmit.actors.stats;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CounterTypeTest
{
    @Test
    void everyTypeHasUniqueTypeIdAndLabel()
    {
        final Set<Integer> typeIds = new HashSet<>();
        final Set<String> labels = new HashSet<>();
        for (final CounterType type : CounterType.values())
        {
            assertTrue(typeIds.add(type.typeId()), "duplicate type id " + type.typeId() + " at " + type);
            assertTrue(labels.add(type.label()), "duplicate label " + type.label() + " at " + type);
        }
    }

    @Test
    void typeIdsStartAtOneThousandAndRiseInDeclarationOrder()
    {
        int previous = 999;
        for (final CounterType type : CounterType.values())
        {
            assertTrue(type.typeId() > previous, type + " has type id " + type.typeId() + " after " + previous);
            previous = type.typeId();
        }
        assertEquals(1000, CounterType.RX_PACKETS.typeId());
    }

    @Test
    void labelIsTheSnakeCaseName()
    {
        for (final CounterType type : CounterType.values())
        {
            assertEquals(type.name().toLowerCase(Locale.ROOT), type.label());
        }
    }

    @Test
    void pinsTheIdsReadersDependOn()
    {
        assertEquals(1102, CounterType.QDISC_BYPASSED.typeId());
        assertEquals("qdisc_bypassed", CounterType.QDISC_BYPASSED.label());
        assertEquals(1116, CounterType.QDISC_BULK_64_PLUS.typeId());
        assertEquals(1202, CounterType.TXQ_STOPS.typeId());
        assertEquals(1304, CounterType.SOCKET_DELIVERED.typeId());
    }

    @Test
    void onlyLevelsAreGauges()
    {
        final Set<CounterType> gauges = new HashSet<>();
        for (final CounterType type : CounterType.values())
        {
            if (type.isGauge())
            {
                gauges.add(type);
            }
        }
        assertEquals(
            Set.of(CounterType.QDISC_BACKLOG_PACKETS, CounterType.TXQ_BQL_LIMIT, CounterType.TXQ_INFLIGHT_BYTES,
                CounterType.TXQ_STOPPED),
            gauges);
        assertFalse(CounterType.QDISC_BULKS.isGauge());
    }
}
