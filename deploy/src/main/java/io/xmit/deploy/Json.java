package io.xmit.deploy;

import java.util.Locale;

/**
 * A small JSON writer for the commands' {@code --json} output: objects and arrays appended in order, commas placed
 * by the writer. Enough for numbers, strings and nesting; not a general library.
 */
final class Json
{
    private final StringBuilder text = new StringBuilder();
    private boolean first = true;
    private boolean afterKey;

    Json object()
    {
        return open('{');
    }

    Json object(final String name)
    {
        return key(name).open('{');
    }

    Json array(final String name)
    {
        return key(name).open('[');
    }

    Json endObject()
    {
        return close('}');
    }

    Json endArray()
    {
        return close(']');
    }

    /** An element of the current array. */
    Json value(final long value)
    {
        separate();
        text.append(value);
        return this;
    }

    /** An element of the current array; a value that is not finite is {@code null}. */
    Json value(final double value)
    {
        separate();
        number(value);
        return this;
    }

    /** An element of the current array. */
    Json value(final String value)
    {
        separate();
        quote(value);
        return this;
    }

    Json field(final String name, final long value)
    {
        key(name).afterKey = false;
        text.append(value);
        return this;
    }

    Json field(final String name, final double value)
    {
        key(name).afterKey = false;
        number(value);
        return this;
    }

    Json field(final String name, final boolean value)
    {
        key(name).afterKey = false;
        text.append(value);
        return this;
    }

    Json field(final String name, final String value)
    {
        key(name).afterKey = false;
        quote(value);
        return this;
    }

    @Override
    public String toString()
    {
        return text.toString();
    }

    /** Writes {@code "name":}; the value that follows takes no comma. */
    private Json key(final String name)
    {
        separate();
        quote(name);
        text.append(':');
        afterKey = true;
        return this;
    }

    private Json open(final char bracket)
    {
        separate();
        text.append(bracket);
        first = true;
        return this;
    }

    private Json close(final char bracket)
    {
        text.append(bracket);
        first = false;
        return this;
    }

    private void separate()
    {
        if (afterKey)
        {
            afterKey = false;
            return;
        }
        if (!first)
        {
            text.append(',');
        }
        first = false;
    }

    private void number(final double value)
    {
        text.append(Double.isFinite(value) ? String.format(Locale.ROOT, "%.3f", value) : "null");
    }

    private void quote(final String value)
    {
        text.append('"');
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            switch (c)
            {
                case '"' -> text.append("\\\"");
                case '\\' -> text.append("\\\\");
                case '\n' -> text.append("\\n");
                default ->
                {
                    if (c < 0x20)
                    {
                        text.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        text.append(c);
                    }
                }
            }
        }
        text.append('"');
    }
}
