package io.xmit.transport.nic;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A device spec, parsed and validated: {@code backend:key=value,...}, e.g. {@code loop:tx=4,rx=4,ring=1024,rate=0}.
 * <p>
 * Keys (all optional): {@code tx} and {@code rx} queue counts (1..64, default 1), {@code ring} descriptors per
 * ring (2..65536, default 1024), {@code frame} the largest frame in bytes (64..16384, default 2048) and, for
 * {@code loop} only, {@code rate}: 0 (unlimited, the default) or one or two terms joined by {@code +}, each a
 * number with unit {@code pps kpps Mpps bps kbit Mbit Gbit} (a bare number is packets/s), e.g.
 * {@code rate=1Mpps+1Gbit}. {@code afpacket} drives a kernel interface instead: {@code if} names it (required,
 * 1..15 characters, no {@code /}, {@code :} or white space) and {@code queues} counts both its TX and its RX
 * queues (1..64, default 1), e.g. {@code afpacket:if=eth1,queues=4,ring=1024}. The shim checks the same rules
 * again; parsing here gives the caller an exception naming the bad key or value before anything is opened.
 *
 * @param backend   which shim backend drives the device.
 * @param txQueues  TX queues per port.
 * @param rxQueues  RX queues per port.
 * @param ringSize  descriptors in every TX and RX ring.
 * @param maxFrame  the largest frame length, in bytes.
 * @param ratePps   the wire rate in packets/s, 0 for unlimited.
 * @param rateBps   the wire rate in bits/s (frame plus 24 bytes of Ethernet overhead), 0 for unlimited.
 * @param interfaceName afpacket: the kernel interface the port drives; null for the other backends.
 */
public record NicSpec(Backend backend, int txQueues, int rxQueues, int ringSize, int maxFrame, long ratePps,
    long rateBps, String interfaceName)
{
    public static final int MAX_QUEUES = 64;
    public static final int MIN_RING = 2;
    public static final int MAX_RING = 65536;
    public static final int MIN_FRAME = 64;
    public static final int MAX_FRAME = 16384;
    public static final int DEFAULT_RING = 1024;
    public static final int DEFAULT_FRAME = 2048;
    /** IFNAMSIZ less its NUL. */
    public static final int MAX_INTERFACE_NAME = 15;

    /** The shim backends. */
    public enum Backend
    {
        /** One port that accepts and counts: for benchmarks of everything above the driver. */
        NULL("null", 1, List.of("tx", "rx", "ring", "frame")),
        /** Two ports, A and B, back to back like a veth pair, with RSS and an optional wire rate. */
        LOOP("loop", 2, List.of("tx", "rx", "ring", "frame", "rate")),
        /** One port on a kernel network interface, through one AF_PACKET socket per queue. */
        AFPACKET("afpacket", 1, List.of("if", "queues", "ring", "frame"));

        private final String label;
        private final int ports;
        private final List<String> keys;

        Backend(final String label, final int ports, final List<String> keys)
        {
            this.label = label;
            this.ports = ports;
            this.keys = keys;
        }

        /** The name used in specs. */
        public String label()
        {
            return label;
        }

        /** How many ports a device of this backend has. */
        public int ports()
        {
            return ports;
        }

        static Backend of(final String spec, final String label)
        {
            for (final Backend backend : values())
            {
                if (backend.label.equals(label))
                {
                    return backend;
                }
            }
            throw new IllegalArgumentException("device spec '" + spec + "': backend '" + label +
                "' is unknown; known backends: null, loop, afpacket");
        }
    }

    /**
     * @throws IllegalArgumentException naming the field if a value is out of range.
     */
    public NicSpec
    {
        if (backend == null)
        {
            throw new IllegalArgumentException("device spec: backend is missing; known backends: null, loop, afpacket");
        }
        checkRange("tx", txQueues, 1, MAX_QUEUES);
        checkRange("rx", rxQueues, 1, MAX_QUEUES);
        checkRange("ring", ringSize, MIN_RING, MAX_RING);
        checkRange("frame", maxFrame, MIN_FRAME, MAX_FRAME);
        if (ratePps < 0 || rateBps < 0)
        {
            throw new IllegalArgumentException("device spec: rate " + ratePps + " pps / " + rateBps +
                " bit/s is negative; use 0 for unlimited");
        }
        if (backend != Backend.LOOP && (ratePps != 0 || rateBps != 0))
        {
            throw new IllegalArgumentException("device spec: backend " + backend.label +
                " has no wire rate; only loop does");
        }
        if (backend == Backend.AFPACKET)
        {
            checkInterfaceName(interfaceName);
            if (txQueues != rxQueues)
            {
                throw new IllegalArgumentException("device spec: afpacket has as many TX as RX queues (queues=N); " +
                    "got " + txQueues + " TX and " + rxQueues + " RX");
            }
        }
        else if (interfaceName != null)
        {
            throw new IllegalArgumentException("device spec: backend " + backend.label +
                " has no interface; only afpacket does");
        }
    }

    /** A spec of a backend without an interface (null, loop). */
    public NicSpec(final Backend backend, final int txQueues, final int rxQueues, final int ringSize,
        final int maxFrame, final long ratePps, final long rateBps)
    {
        this(backend, txQueues, rxQueues, ringSize, maxFrame, ratePps, rateBps, null);
    }

    /**
     * Parses {@code backend[:key=value[,key=value...]]}.
     *
     * @throws IllegalArgumentException naming the bad key or value and what is allowed.
     */
    public static NicSpec parse(final String spec)
    {
        if (spec == null || spec.isBlank())
        {
            throw new IllegalArgumentException("device spec is empty; expected e.g. 'loop:tx=4,rx=4,ring=1024,rate=0'");
        }
        final int colon = spec.indexOf(':');
        final Backend backend = Backend.of(spec, colon < 0 ? spec : spec.substring(0, colon));
        int tx = 1;
        int rx = 1;
        int ring = DEFAULT_RING;
        int frame = DEFAULT_FRAME;
        long pps = 0;
        long bps = 0;
        String interfaceName = null;
        if (colon >= 0)
        {
            final Set<String> seen = new HashSet<>();
            for (final String pair : spec.substring(colon + 1).split(",", -1))
            {
                final int eq = pair.indexOf('=');
                if (eq <= 0)
                {
                    throw new IllegalArgumentException("device spec '" + spec + "': '" + pair +
                        "' is not key=value; known keys for " + backend.label + ": " + String.join(", ", backend.keys));
                }
                final String key = pair.substring(0, eq);
                final String value = pair.substring(eq + 1);
                if (!backend.keys.contains(key))
                {
                    throw new IllegalArgumentException("device spec '" + spec + "': key '" + key +
                        "' is unknown for " + backend.label + "; known keys: " + String.join(", ", backend.keys));
                }
                if (!seen.add(key))
                {
                    throw new IllegalArgumentException("device spec '" + spec + "': key '" + key + "' is given twice");
                }
                switch (key)
                {
                    case "tx" -> tx = parseInt(spec, key, value, 1, MAX_QUEUES);
                    case "rx" -> rx = parseInt(spec, key, value, 1, MAX_QUEUES);
                    case "ring" -> ring = parseInt(spec, key, value, MIN_RING, MAX_RING);
                    case "frame" -> frame = parseInt(spec, key, value, MIN_FRAME, MAX_FRAME);
                    case "queues" ->
                    {
                        tx = parseInt(spec, key, value, 1, MAX_QUEUES);
                        rx = tx;
                    }
                    case "if" -> interfaceName = value;
                    default ->
                    {
                        final long[] rate = parseRate(spec, value);
                        pps = rate[0];
                        bps = rate[1];
                    }
                }
            }
        }
        if (backend == Backend.AFPACKET && interfaceName == null)
        {
            throw new IllegalArgumentException("device spec '" + spec + "': key 'if' is missing; name the " +
                "interface, e.g. afpacket:if=eth1,queues=4");
        }
        return new NicSpec(backend, tx, rx, ring, frame, pps, bps, interfaceName);
    }

    /** The canonical spec string, the form handed to the shim. */
    @Override
    public String toString()
    {
        if (backend == Backend.AFPACKET)
        {
            return backend.label + ":if=" + interfaceName + ",queues=" + txQueues + ",ring=" + ringSize +
                ",frame=" + maxFrame;
        }
        final StringBuilder text = new StringBuilder(backend.label)
            .append(":tx=").append(txQueues)
            .append(",rx=").append(rxQueues)
            .append(",ring=").append(ringSize)
            .append(",frame=").append(maxFrame);
        if (backend == Backend.LOOP)
        {
            text.append(",rate=");
            if (ratePps == 0 && rateBps == 0)
            {
                text.append('0');
            }
            else if (rateBps == 0)
            {
                text.append(ratePps).append("pps");
            }
            else if (ratePps == 0)
            {
                text.append(rateBps).append("bps");
            }
            else
            {
                text.append(ratePps).append("pps+").append(rateBps).append("bps");
            }
        }
        return text.toString();
    }

    private static void checkRange(final String key, final int value, final int min, final int max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(
                "device spec: " + key + "=" + value + " is out of range; allowed " + min + ".." + max);
        }
    }

    /** What the kernel accepts as a name (dev_valid_name), as the shim checks it. */
    private static void checkInterfaceName(final String name)
    {
        if (name == null || name.isEmpty() || name.length() > MAX_INTERFACE_NAME)
        {
            throw new IllegalArgumentException("device spec: if=" + name + ": an interface name has 1.." +
                MAX_INTERFACE_NAME + " characters");
        }
        if (name.equals(".") || name.equals(".."))
        {
            throw new IllegalArgumentException("device spec: if=" + name + " is not an interface name");
        }
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (c == '/' || c == ':' || c == ',' || c == '=' || Character.isWhitespace(c) || c > 0x7E)
            {
                throw new IllegalArgumentException("device spec: if=" + name +
                    ": an interface name has no '/', ':', ',', '=', white space or non-ASCII characters");
            }
        }
    }

    private static int parseInt(final String spec, final String key, final String value, final int min,
        final int max)
    {
        final int parsed;
        try
        {
            parsed = Integer.parseInt(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("device spec '" + spec + "': " + key + "=" + value +
                " is not a whole number; allowed " + min + ".." + max);
        }
        if (parsed < min || parsed > max)
        {
            throw new IllegalArgumentException("device spec '" + spec + "': " + key + "=" + value +
                " is out of range; allowed " + min + ".." + max);
        }
        return parsed;
    }

    private static final String RATE_FORMS =
        "0, or one or two terms joined by '+', each a number with unit pps, kpps, Mpps, bps, kbit, Mbit or Gbit " +
        "(e.g. 1Mpps+1Gbit)";

    private static final long[] MAX_RATE = {10_000_000_000L, 10_000_000_000_000L};

    private static long[] parseRate(final String spec, final String value)
    {
        final long[] rate = new long[2];
        final String[] terms = value.split("\\+", -1);
        if (terms.length > 2)
        {
            throw new IllegalArgumentException("device spec '" + spec + "': rate=" + value +
                " has more than two terms; allowed " + RATE_FORMS);
        }
        for (final String term : terms)
        {
            int digits = 0;
            while (digits < term.length() && Character.isDigit(term.charAt(digits)))
            {
                digits++;
            }
            final String unit = term.substring(digits);
            final long scale;
            final int slot;
            switch (unit)
            {
                case "", "pps" -> { scale = 1; slot = 0; }
                case "kpps" -> { scale = 1_000; slot = 0; }
                case "Mpps" -> { scale = 1_000_000; slot = 0; }
                case "bps" -> { scale = 1; slot = 1; }
                case "kbit" -> { scale = 1_000; slot = 1; }
                case "Mbit" -> { scale = 1_000_000; slot = 1; }
                case "Gbit" -> { scale = 1_000_000_000; slot = 1; }
                default -> throw new IllegalArgumentException("device spec '" + spec + "': rate=" + value +
                    " has unit '" + term.substring(digits) + "'; allowed " + RATE_FORMS);
            }
            if (digits == 0 || digits > 12)
            {
                throw new IllegalArgumentException("device spec '" + spec + "': rate=" + value +
                    " needs a number of 1 to 12 digits in '" + term + "'; allowed " + RATE_FORMS);
            }
            if (terms.length == 2 && rate[slot] != 0)
            {
                throw new IllegalArgumentException("device spec '" + spec + "': rate=" + value +
                    " gives the " + (slot == 0 ? "packet" : "bit") + " rate twice");
            }
            final long number = Long.parseLong(term.substring(0, digits));
            if (number > MAX_RATE[slot] / scale)
            {
                throw new IllegalArgumentException("device spec '" + spec + "': rate=" + value + " exceeds " +
                    MAX_RATE[slot] + (slot == 0 ? " packets/s" : " bits/s"));
            }
            rate[slot] = number * scale;
        }
        return rate;
    }
}
