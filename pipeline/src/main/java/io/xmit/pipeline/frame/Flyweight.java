package io.xmit.pipeline.frame;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * What every header flyweight shares: the wrapped buffer and the header's offset in it. Wrapped read-only, the
 * setters of a subclass must not be called (they write through {@code mutableBuffer}, which is then null).
 *
 * @param <T> the flyweight itself, so that {@code wrap} chains with its getters and setters.
 */
abstract class Flyweight<T extends Flyweight<T>>
{
    DirectBuffer buffer;
    MutableDirectBuffer mutableBuffer;
    int offset;

    @SuppressWarnings("unchecked")
    public T wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.mutableBuffer = null;
        this.offset = offset;
        return (T)this;
    }

    @SuppressWarnings("unchecked")
    public T wrap(final MutableDirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.mutableBuffer = buffer;
        this.offset = offset;
        return (T)this;
    }
}
