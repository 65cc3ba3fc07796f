package io.xmit.actors.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.xmit.transport.nic.NicSpec;

import java.net.InetAddress;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * The value parsers every reader of configuration shares: HOCON values (text, whole numbers, on/off, durations, byte
 * sizes), device specs, MACs and address literals. Each takes the key as its message names it ({@code xmit.cpus},
 * {@code xmit.ports[0].mac}) and refuses a bad value with an {@link IllegalArgumentException} of one line naming the
 * key, the value and what is allowed. HOCON's own getters are avoided where they would read {@code 2.5} as 2, take
 * {@code yes} for on, or throw a type error that names neither the whole key nor the value.
 */
public final class ConfigValues
{
    private static final Pattern DOTTED_QUAD = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final String[] DURATION_UNITS = {"d", "h", "m", "s", "ms", "us", "ns"};
    private static final long[] DURATION_NANOS = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
        1_000_000_000L, 1_000_000L, 1_000L, 1L};

    private ConfigValues()
    {
    }

    /** A value as one line of HOCON: {@code "four"}, {@code [1]}, {@code {}}. */
    public static String render(final ConfigValue value)
    {
        return value.render(ConfigRenderOptions.concise());
    }

    /** A word or number as text; HOCON would also turn a list or object into a type error without the value. */
    public static String text(final String key, final ConfigValue value)
    {
        if (ConfigValueType.OBJECT == value.valueType() || ConfigValueType.LIST == value.valueType())
        {
            throw new IllegalArgumentException(key + " = " + render(value) + " is not a string");
        }
        return String.valueOf(value.unwrapped());
    }

    /** A whole number, quoted or not, that fits a long; empty for anything else (a fraction, a word, a list). */
    public static OptionalLong wholeNumber(final ConfigValue value)
    {
        final Object unwrapped = value.unwrapped();
        if (unwrapped instanceof Integer || unwrapped instanceof Long)
        {
            return OptionalLong.of(((Number)unwrapped).longValue());
        }
        if (unwrapped instanceof String text)
        {
            try
            {
                return OptionalLong.of(Long.parseLong(text.trim()));
            }
            catch (final NumberFormatException ignored)
            {
                // Not a whole number: the caller's message names the key.
            }
        }
        return OptionalLong.empty();
    }

    /** A whole number that fits an int. */
    public static int integer(final String key, final ConfigValue value)
    {
        final OptionalLong number = wholeNumber(value);
        if (number.isEmpty() || number.getAsLong() != (int)number.getAsLong())
        {
            throw new IllegalArgumentException(key + " = " + render(value) + " is not a whole number (an int)");
        }
        return (int)number.getAsLong();
    }

    /** {@code on} or {@code off}; HOCON's own booleans too, but no other word HOCON's getBoolean would take. */
    public static boolean onOff(final String key, final ConfigValue value)
    {
        final Object unwrapped = value.unwrapped();
        if (unwrapped instanceof Boolean flag)
        {
            return flag;
        }
        if ("on".equals(unwrapped) || "off".equals(unwrapped))
        {
            return "on".equals(unwrapped);
        }
        throw new IllegalArgumentException(key + " = " + render(value) + " is not on or off");
    }

    /**
     * The duration at {@code path} of {@code config}, e.g. {@code 25us} or {@code 2m}.
     *
     * @param examples what the message offers instead, e.g. {@code "10s or 2m"}.
     */
    public static Duration duration(final String key, final Config config, final String path, final String examples)
    {
        try
        {
            return config.getDuration(path);
        }
        catch (final ConfigException ex)
        {
            throw new IllegalArgumentException(key + " = " + (config.hasPath(path) ? render(config.getValue(path)) :
                "nothing") + " is not a duration, e.g. " + examples, ex);
        }
    }

    /** The size in bytes at {@code path} of {@code config}, e.g. {@code 65536} or {@code 8MiB}, at most 1 GiB. */
    public static int bytes(final String key, final Config config, final String path)
    {
        final long value;
        try
        {
            value = config.getBytes(path);
        }
        catch (final ConfigException ex)
        {
            throw new IllegalArgumentException(key + " = " + render(config.getValue(path)) +
                " is not a size in bytes, e.g. 65536, 128K or 8MiB", ex);
        }
        if (value > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(key + " = " + value + " bytes is more than 1 GiB");
        }
        return (int)value;
    }

    /** A device spec such as {@code loop:tx=4,rx=4,ring=1024} ({@link NicSpec#parse}). */
    public static NicSpec device(final String key, final String spec)
    {
        if (null == spec)
        {
            throw new IllegalArgumentException(key + " must be set, e.g. loop:tx=4,rx=4,ring=1024");
        }
        try
        {
            return NicSpec.parse(spec);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(key + ": " + ex.getMessage(), ex);
        }
    }

    /** A MAC in {@code aa:bb:cc:dd:ee:ff} form as a 48-bit value. */
    public static long mac(final String key, final String text)
    {
        final String[] parts = text.split(":", -1);
        long mac = 0;
        for (final String part : parts)
        {
            if (parts.length != 6 || part.length() != 2 || Character.digit(part.charAt(0), 16) < 0 ||
                Character.digit(part.charAt(1), 16) < 0)
            {
                throw new IllegalArgumentException(
                    key + " = '" + text + "' is not a MAC address like 02:00:00:00:00:01");
            }
            mac = (mac << 8) | Integer.parseInt(part, 16);
        }
        return mac;
    }

    /**
     * A duration as one would write it in HOCON, in the largest unit that holds it whole: {@code 1ms}, {@code 1h},
     * {@code 3600001ms}, {@code 0s}; not {@link Duration#toString}'s {@code PT0.001S}.
     */
    public static String render(final Duration value)
    {
        if (null == value)
        {
            return "null";
        }
        if (value.isZero())
        {
            return "0s";
        }
        final long nanos = value.toNanos();
        for (int i = 0; i < DURATION_UNITS.length; i++)
        {
            if (0 == nanos % DURATION_NANOS[i])
            {
                return nanos / DURATION_NANOS[i] + DURATION_UNITS[i];
            }
        }
        throw new IllegalStateException("the last unit, ns, holds every duration");
    }

    /** An IPv4 address in dotted decimal ({@code 10.0.0.1}, not an IPv4-mapped IPv6 form), network order. */
    public static int ipv4(final String key, final String text)
    {
        final byte[] a = text.matches("[0-9.]+") ? addressLiteral(text) : null;
        if (null == a || a.length != 4)
        {
            throw new IllegalArgumentException(key + " = '" + text + "' is not an IPv4 address literal");
        }
        return ((a[0] & 0xFF) << 24) | ((a[1] & 0xFF) << 16) | ((a[2] & 0xFF) << 8) | (a[3] & 0xFF);
    }

    /** An IPv6 address ({@code fd00::1}), its 16 bytes in network order. */
    public static byte[] ipv6(final String key, final String text)
    {
        final byte[] a = text.contains(":") ? addressLiteral(text) : null;
        if (null == a || a.length != 16)
        {
            throw new IllegalArgumentException(key + " = '" + text + "' is not an IPv6 address literal");
        }
        return a;
    }

    /**
     * The bytes of an IPv4 (4) or IPv6 (16) address literal, or null when {@code text} is neither: no name is ever
     * looked up. An IPv4-mapped IPv6 literal ({@code ::ffff:10.0.0.1}) is its IPv4 address, as {@link InetAddress}
     * has it.
     */
    public static byte[] addressLiteral(final String text)
    {
        // InetAddress also takes the old short forms (1.2.3 is 1.2.0.3): a typo, here, not an address.
        if (text.indexOf(':') < 0 && !DOTTED_QUAD.matcher(text).matches())
        {
            return null;
        }
        try
        {
            return InetAddress.ofLiteral(text).getAddress();
        }
        catch (final IllegalArgumentException notALiteral)
        {
            return null;
        }
    }
}
