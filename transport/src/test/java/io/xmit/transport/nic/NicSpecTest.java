package io.xmit.transport.nic;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class NicSpecTest
{
    @Test
    void parsesEveryKeyAndPrintsTheCanonicalForm()
    {
        final NicSpec spec = NicSpec.parse("loop:tx=4,rx=2,ring=512,rate=1Mpps+10Gbit,frame=9000");
        assertEquals(new NicSpec(NicSpec.Backend.LOOP, 4, 2, 512, 9000, 1_000_000, 10_000_000_000L), spec);
        assertEquals("loop:tx=4,rx=2,ring=512,frame=9000,rate=1000000pps+10000000000bps", spec.toString());
        assertEquals(spec, NicSpec.parse(spec.toString()));
    }

    @Test
    void defaultsAreOneQueueARingOf1024AndAnUnlimitedWire()
    {
        assertEquals("loop:tx=1,rx=1,ring=1024,frame=2048,rate=0", NicSpec.parse("loop").toString());
        assertEquals("null:tx=4,rx=1,ring=1024,frame=2048", NicSpec.parse("null:tx=4").toString());
    }

    @Test
    void ratesTakeEveryUnit()
    {
        assertEquals(250_000, NicSpec.parse("loop:rate=250kpps").ratePps());
        assertEquals(1_000, NicSpec.parse("loop:rate=1000").ratePps());
        assertEquals(100_000_000, NicSpec.parse("loop:rate=100Mbit").rateBps());
        assertEquals(64_000, NicSpec.parse("loop:rate=64kbit").rateBps());
        assertEquals(12, NicSpec.parse("loop:rate=12bps").rateBps());
        assertEquals("loop:tx=1,rx=1,ring=1024,frame=2048,rate=5000000bps", NicSpec.parse("loop:rate=5Mbit").toString());
    }

    @Test
    void badSpecsNameTheKeyOrValueAndWhatIsAllowed()
    {
        assertRefused("", "device spec is empty; expected e.g. 'loop:tx=4,rx=4,ring=1024,rate=0'");
        assertRefused("veth:tx=1",
            "device spec 'veth:tx=1': backend 'veth' is unknown; known backends: null, loop, afpacket");
        assertRefused("loop:txq=4",
            "device spec 'loop:txq=4': key 'txq' is unknown for loop; known keys: tx, rx, ring, frame, rate");
        assertRefused("loop:tx=0", "device spec 'loop:tx=0': tx=0 is out of range; allowed 1..64");
        assertRefused("loop:rx=65", "device spec 'loop:rx=65': rx=65 is out of range; allowed 1..64");
        assertRefused("loop:ring=1", "device spec 'loop:ring=1': ring=1 is out of range; allowed 2..65536");
        assertRefused("loop:frame=63", "device spec 'loop:frame=63': frame=63 is out of range; allowed 64..16384");
        assertRefused("loop:tx=four", "device spec 'loop:tx=four': tx=four is not a whole number; allowed 1..64");
        assertRefused("loop:tx=1,tx=2", "device spec 'loop:tx=1,tx=2': key 'tx' is given twice");
        assertRefused("loop:tx", "device spec 'loop:tx': 'tx' is not key=value; known keys for loop: " +
            "tx, rx, ring, frame, rate");
        assertRefused("loop:tx=1,", "device spec 'loop:tx=1,': '' is not key=value; known keys for loop: " +
            "tx, rx, ring, frame, rate");
        assertRefused("null:rate=1", "device spec 'null:rate=1': key 'rate' is unknown for null; known keys: " +
            "tx, rx, ring, frame");
        assertRefused("loop:rate=5furlongs", "device spec 'loop:rate=5furlongs': rate=5furlongs has unit " +
            "'furlongs'; allowed 0, or one or two terms joined by '+', each a number with unit pps, kpps, Mpps, " +
            "bps, kbit, Mbit or Gbit (e.g. 1Mpps+1Gbit)");
        assertRefused("loop:rate=5mpps", "device spec 'loop:rate=5mpps': rate=5mpps has unit 'mpps'; allowed 0, or " +
            "one or two terms joined by '+', each a number with unit pps, kpps, Mpps, bps, kbit, Mbit or Gbit " +
            "(e.g. 1Mpps+1Gbit)");
        assertRefused("loop:rate=Mpps", "device spec 'loop:rate=Mpps': rate=Mpps needs a number of 1 to 12 digits " +
            "in 'Mpps'; allowed 0, or one or two terms joined by '+', each a number with unit pps, kpps, Mpps, " +
            "bps, kbit, Mbit or Gbit (e.g. 1Mpps+1Gbit)");
        assertRefused("loop:rate=1pps+2pps", "device spec 'loop:rate=1pps+2pps': rate=1pps+2pps gives the packet " +
            "rate twice");
        assertRefused("loop:rate=999999999999Gbit",
            "device spec 'loop:rate=999999999999Gbit': rate=999999999999Gbit exceeds 10000000000000 bits/s");
        assertRefused("loop:rate=1+2+3", "device spec 'loop:rate=1+2+3': rate=1+2+3 has more than two terms; " +
            "allowed 0, or one or two terms joined by '+', each a number with unit pps, kpps, Mpps, bps, kbit, " +
            "Mbit or Gbit (e.g. 1Mpps+1Gbit)");
    }

    @Test
    void afpacketNamesItsInterfaceAndCountsBothDirectionsWithQueues()
    {
        final NicSpec spec = NicSpec.parse("afpacket:if=veth1,queues=4,ring=512");
        assertEquals(new NicSpec(NicSpec.Backend.AFPACKET, 4, 4, 512, 2048, 0, 0, "veth1"), spec);
        assertEquals("afpacket:if=veth1,queues=4,ring=512,frame=2048", spec.toString());
        assertEquals(spec, NicSpec.parse(spec.toString()));
        assertEquals(1, spec.backend().ports());
        assertEquals("afpacket:if=eth0,queues=1,ring=1024,frame=2048", NicSpec.parse("afpacket:if=eth0").toString());
    }

    @Test
    void badAfpacketSpecsNameTheKeyOrValue()
    {
        assertRefused("afpacket", "device spec 'afpacket': key 'if' is missing; name the interface, e.g. " +
            "afpacket:if=eth1,queues=4");
        assertRefused("afpacket:if=eth0,tx=2", "device spec 'afpacket:if=eth0,tx=2': key 'tx' is unknown for " +
            "afpacket; known keys: if, queues, ring, frame");
        assertRefused("afpacket:if=eth0,queues=65",
            "device spec 'afpacket:if=eth0,queues=65': queues=65 is out of range; allowed 1..64");
        assertRefused("afpacket:if=abcdefghijklmnop",
            "device spec: if=abcdefghijklmnop: an interface name has 1..15 characters");
        assertRefused("afpacket:if=a/b", "device spec: if=a/b: an interface name has no '/', ':', ',', '=', " +
            "white space or non-ASCII characters");
        assertRefused("loop:if=eth0", "device spec 'loop:if=eth0': key 'if' is unknown for loop; known keys: " +
            "tx, rx, ring, frame, rate");
        assertEquals("device spec: backend loop has no interface; only afpacket does",
            assertThrows(IllegalArgumentException.class,
                () -> new NicSpec(NicSpec.Backend.LOOP, 1, 1, 1024, 2048, 0, 0, "eth0")).getMessage());
        assertEquals("device spec: afpacket has as many TX as RX queues (queues=N); got 2 TX and 1 RX",
            assertThrows(IllegalArgumentException.class,
                () -> new NicSpec(NicSpec.Backend.AFPACKET, 2, 1, 1024, 2048, 0, 0, "eth0")).getMessage());
    }

    private static void assertRefused(final String spec, final String message)
    {
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> NicSpec.parse(spec)).getMessage());
    }
}
