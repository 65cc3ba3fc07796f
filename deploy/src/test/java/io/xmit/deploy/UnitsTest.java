package io.xmit.deploy;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class UnitsTest
{
    @Test
    void eachDurationTakesTheUnitItsSizeCallsFor()
    {
        assertEquals("0.9 µs", Units.nanos(850));
        assertEquals("9.9 µs", Units.nanos(9_900));
        assertEquals("10 µs", Units.nanos(9_960));
        assertEquals("850 µs", Units.nanos(850_000));
        assertEquals("1.0 ms", Units.nanos(999_700));
        assertEquals("2.4 ms", Units.nanos(2_400_000));
        assertEquals("53 ms", Units.nanos(53_000_000));
        assertEquals("1.0 s", Units.nanos(999_600_000));
        assertEquals("1.2 s", Units.nanos(1_200_000_000));
        assertEquals("n/a", Units.nanos(Double.NaN));
    }

    @Test
    void microsecondsAreTheSameDurations()
    {
        assertEquals("850 µs", Units.micros(850));
        assertEquals("2.4 ms", Units.micros(2_400));
    }
}
