package io.xmit.actors.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shared value parsers: what each takes, and the one-line message of what it refuses. */
class ConfigValuesTest
{
    private static final Config VALUES = ConfigFactory.parseString("""
        word = four, quoted = "3", whole = 7, big = 3000000000, fraction = 2.5, list = [1], object = {}
        spaced = " 12 ", signed = "+5", on = on, off = off, yes = yes, flag = true
        time = 10ms, size = 128K, huge = 2GiB, nothing = null
        """);

    @Test
    void renderingIsOneLineOfHocon()
    {
        assertEquals("\"four\"", ConfigValues.render(VALUES.getValue("word")));
        assertEquals("[1]", ConfigValues.render(VALUES.getValue("list")));
        assertEquals("{}", ConfigValues.render(VALUES.getValue("object")));
    }

    @Test
    void textIsAWordOrANumberButNoListOrObject()
    {
        assertEquals("four", ConfigValues.text("k", VALUES.getValue("word")));
        assertEquals("7", ConfigValues.text("k", VALUES.getValue("whole")));
        assertEquals("k = [1] is not a string", refused(() -> ConfigValues.text("k", VALUES.getValue("list"))));
        assertEquals("k = {} is not a string", refused(() -> ConfigValues.text("k", VALUES.getValue("object"))));
    }

    @Test
    void wholeNumbersAreNeverRoundedAndMayBeQuoted()
    {
        assertEquals(OptionalLong.of(7), ConfigValues.wholeNumber(VALUES.getValue("whole")));
        assertEquals(OptionalLong.of(3), ConfigValues.wholeNumber(VALUES.getValue("quoted")));
        assertEquals(OptionalLong.of(12), ConfigValues.wholeNumber(VALUES.getValue("spaced")));
        assertEquals(OptionalLong.of(5), ConfigValues.wholeNumber(VALUES.getValue("signed")));
        assertEquals(OptionalLong.of(3_000_000_000L), ConfigValues.wholeNumber(VALUES.getValue("big")));
        assertEquals(OptionalLong.empty(), ConfigValues.wholeNumber(VALUES.getValue("fraction")));
        assertEquals(OptionalLong.empty(), ConfigValues.wholeNumber(VALUES.getValue("word")));
        assertEquals(OptionalLong.empty(), ConfigValues.wholeNumber(VALUES.getValue("list")));
        assertEquals(7, ConfigValues.integer("k", VALUES.getValue("whole")));
        assertEquals("k = 3000000000 is not a whole number (an int)",
            refused(() -> ConfigValues.integer("k", VALUES.getValue("big"))));
        assertEquals("k = 2.5 is not a whole number (an int)",
            refused(() -> ConfigValues.integer("k", VALUES.getValue("fraction"))));
    }

    @Test
    void onOffTakesOnOffAndHoconsBooleansButNoOtherWord()
    {
        assertTrue(ConfigValues.onOff("k", VALUES.getValue("on")));
        assertFalse(ConfigValues.onOff("k", VALUES.getValue("off")));
        assertTrue(ConfigValues.onOff("k", VALUES.getValue("flag")));
        assertEquals("k = \"yes\" is not on or off", refused(() -> ConfigValues.onOff("k", VALUES.getValue("yes"))));
    }

    @Test
    void durationsAndSizesNameTheKeyAndOfferExamples()
    {
        assertEquals(Duration.ofMillis(10), ConfigValues.duration("k", VALUES, "time", "10s"));
        assertEquals("k = \"four\" is not a duration, e.g. 10s or 2m",
            refused(() -> ConfigValues.duration("k", VALUES, "word", "10s or 2m")));
        assertEquals("k = nothing is not a duration, e.g. 10s",
            refused(() -> ConfigValues.duration("k", VALUES, "nothing", "10s")));
        assertEquals(128 << 10, ConfigValues.bytes("k", VALUES, "size"));
        assertEquals("k = \"four\" is not a size in bytes, e.g. 65536, 128K or 8MiB",
            refused(() -> ConfigValues.bytes("k", VALUES, "word")));
        assertEquals("k = 2147483648 bytes is more than 1 GiB", refused(() -> ConfigValues.bytes("k", VALUES, "huge")));
    }

    @Test
    void aDeviceSpecIsParsedOrRefusedUnderTheKey()
    {
        assertEquals(2, ConfigValues.device("k", "loop:tx=2").txQueues());
        assertEquals("k must be set, e.g. loop:tx=4,rx=4,ring=1024", refused(() -> ConfigValues.device("k", null)));
        assertEquals("k: device spec 'bogus': backend 'bogus' is unknown; known backends: null, loop, afpacket",
            refused(() -> ConfigValues.device("k", "bogus")));
    }

    @Test
    void macsAreSixPairsOfHexDigits()
    {
        assertEquals(0x0200_0000_00FFL, ConfigValues.mac("mac", "02:00:00:00:00:ff"));
        assertEquals(0x0A0B_0C0D_0E0FL, ConfigValues.mac("mac", "0a:0b:0c:0d:0E:0F"));
        assertEquals("mac = 'host' is not a MAC address like 02:00:00:00:00:01",
            refused(() -> ConfigValues.mac("mac", "host")));
        assertEquals("mac = '02:00:00:00:00:0g' is not a MAC address like 02:00:00:00:00:01",
            refused(() -> ConfigValues.mac("mac", "02:00:00:00:00:0g")));
        assertEquals("mac = '02:00:00:00:00:00:01' is not a MAC address like 02:00:00:00:00:01",
            refused(() -> ConfigValues.mac("mac", "02:00:00:00:00:00:01")));
    }

    @Test
    void durationsAreRenderedInTheLargestUnitThatHoldsThemWhole()
    {
        assertEquals("1ms", ConfigValues.render(Duration.ofMillis(1)));
        assertEquals("1h", ConfigValues.render(Duration.ofHours(1)));
        assertEquals("3600001ms", ConfigValues.render(Duration.ofHours(1).plusMillis(1)));
        assertEquals("90s", ConfigValues.render(Duration.ofSeconds(90)));
        assertEquals("2m", ConfigValues.render(Duration.ofSeconds(120)));
        assertEquals("1d", ConfigValues.render(Duration.ofDays(1)));
        assertEquals("1500us", ConfigValues.render(Duration.ofNanos(1_500_000)));
        assertEquals("7ns", ConfigValues.render(Duration.ofNanos(7)));
        assertEquals("-1s", ConfigValues.render(Duration.ofSeconds(-1)));
        assertEquals("0s", ConfigValues.render(Duration.ZERO));
        assertEquals("null", ConfigValues.render((Duration)null));
    }

    @Test
    void addressLiteralsAreNeverLookedUp()
    {
        assertArrayEquals(new byte[] {10, 0, 0, 1}, ConfigValues.addressLiteral("10.0.0.1"));
        assertEquals(16, ConfigValues.addressLiteral("fd00::1").length);
        assertArrayEquals(new byte[] {10, 0, 0, 1}, ConfigValues.addressLiteral("::ffff:10.0.0.1"));
        assertNull(ConfigValues.addressLiteral("localhost"));
        assertNull(ConfigValues.addressLiteral("10.0.0.256"));
        // The old short forms InetAddress takes: 10.1 would be 10.0.0.1, 10.0.1 10.0.0.1, 167772161 10.0.0.1.
        assertNull(ConfigValues.addressLiteral("10.1"));
        assertNull(ConfigValues.addressLiteral("10.0.1"));
        assertNull(ConfigValues.addressLiteral("167772161"));
        assertEquals("k = '10.0.1' is not an IPv4 address literal", refused(() -> ConfigValues.ipv4("k", "10.0.1")));
        assertEquals(0x0A00_0001, ConfigValues.ipv4("k", "10.0.0.1"));
        assertEquals(0xC0A8_FFFE, ConfigValues.ipv4("k", "192.168.255.254"));
        assertEquals("k = '::ffff:10.0.0.1' is not an IPv4 address literal",
            refused(() -> ConfigValues.ipv4("k", "::ffff:10.0.0.1")));
        assertEquals("k = 'localhost' is not an IPv4 address literal",
            refused(() -> ConfigValues.ipv4("k", "localhost")));
        assertArrayEquals(new byte[] {(byte)0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
            ConfigValues.ipv6("k", "fd00::1"));
        assertEquals("k = '::ffff:10.0.0.1' is not an IPv6 address literal",
            refused(() -> ConfigValues.ipv6("k", "::ffff:10.0.0.1")));
        assertEquals("k = '10.0.0.1' is not an IPv6 address literal",
            refused(() -> ConfigValues.ipv6("k", "10.0.0.1")));
    }

    private static String refused(final Runnable parse)
    {
        return assertThrows(IllegalArgumentException.class, parse::run).getMessage();
    }
}
