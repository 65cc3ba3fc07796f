package io.xmit.deploy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads back what {@link Json} writes, for {@code xmit bench compare}: objects as maps in the file's order, arrays as
 * lists, numbers as doubles, strings, booleans and {@code null}. Strict about the syntax, and its error says where
 * the text stopped being JSON; not a general library.
 */
final class JsonReader
{
    private final String text;
    private int at;

    private JsonReader(final String text)
    {
        this.text = text;
    }

    /** @throws IllegalArgumentException naming the character where {@code text} is not JSON. */
    static Object parse(final String text)
    {
        final JsonReader reader = new JsonReader(text);
        final Object value = reader.value();
        reader.space();
        if (reader.at < text.length())
        {
            throw reader.error("the end");
        }
        return value;
    }

    private Object value()
    {
        space();
        if (at >= text.length())
        {
            throw error("a value");
        }
        final char c = text.charAt(at);
        return switch (c)
        {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> word("true", Boolean.TRUE);
            case 'f' -> word("false", Boolean.FALSE);
            case 'n' -> word("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> object = new LinkedHashMap<>();
        at++;
        if (next('}'))
        {
            return object;
        }
        do
        {
            space();
            if (at >= text.length() || '"' != text.charAt(at))
            {
                throw error("a quoted name");
            }
            final String name = string();
            expect(':');
            object.put(name, value());
        }
        while (next(','));
        expect('}');
        return object;
    }

    private List<Object> array()
    {
        final List<Object> array = new ArrayList<>();
        at++;
        if (next(']'))
        {
            return array;
        }
        do
        {
            array.add(value());
        }
        while (next(','));
        expect(']');
        return array;
    }

    private String string()
    {
        final StringBuilder string = new StringBuilder();
        at++;
        while (at < text.length() && '"' != text.charAt(at))
        {
            char c = text.charAt(at++);
            if ('\\' == c && at < text.length())
            {
                c = text.charAt(at++);
                switch (c)
                {
                    case 'n' -> c = '\n';
                    case 't' -> c = '\t';
                    case 'u' ->
                    {
                        if (at + 4 > text.length())
                        {
                            throw error("4 hex digits");
                        }
                        c = (char)Integer.parseInt(text.substring(at, at + 4), 16);
                        at += 4;
                    }
                    default ->
                    {
                    }
                }
            }
            string.append(c);
        }
        expect('"');
        return string.toString();
    }

    private Object word(final String word, final Object value)
    {
        if (!text.startsWith(word, at))
        {
            throw error("a value");
        }
        at += word.length();
        return value;
    }

    private Double number()
    {
        final int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0)
        {
            at++;
        }
        try
        {
            return Double.valueOf(text.substring(start, at));
        }
        catch (final NumberFormatException ex)
        {
            at = start;
            throw error("a value");
        }
    }

    private boolean next(final char c)
    {
        space();
        if (at < text.length() && c == text.charAt(at))
        {
            at++;
            return true;
        }
        return false;
    }

    private void expect(final char c)
    {
        if (!next(c))
        {
            throw error("'" + c + "'");
        }
    }

    private void space()
    {
        while (at < text.length() && Character.isWhitespace(text.charAt(at)))
        {
            at++;
        }
    }

    private IllegalArgumentException error(final String expected)
    {
        return new IllegalArgumentException("expected " + expected + " at character " + (at + 1) +
            (at < text.length() ? "" : " (the end)"));
    }
}
