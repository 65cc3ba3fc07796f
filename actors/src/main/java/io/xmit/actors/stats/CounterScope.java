package io.xmit.actors.stats;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * What one counter belongs to: the tracer, a port, or an RX queue, TX queue or socket of a port, with the stage
 * actor it counts for ({@code stage_restarts}) or the side of the queue it counts on. It is the counter's key, as
 * Aeron's stream counters carry their registration and session ids: written into the Agrona key buffer at
 * allocation, so readers in this process and in another find a counter by decoding its key, not by parsing its
 * label. {@link #label()} renders the same scope for people, e.g. {@code port=0 txq=3 stage=qdisc}.
 * <p>
 * Key layout, from the start of the counter's key buffer, each field an int as Agrona writes it (little-endian):
 * <pre>
 *   0                   4                   8                   12                  16                  20
 *   +-------------------+-------------------+-------------------+-------------------+-------------------+
 *   |  attachment code  |  port             |  index            |  stage code       |  side code        |
 *   +-------------------+-------------------+-------------------+-------------------+-------------------+
 * </pre>
 * The port is {@link #NONE} for the tracer; the index is the queue or socket id, {@link #NONE} for the tracer and a
 * port. Codes are written out rather than taken from ordinals, so reordering a constant does not change the file.
 *
 * @param attachment what the counter is attached to.
 * @param port       the port, or {@link #NONE} for the tracer.
 * @param index      the queue or socket id, or {@link #NONE} for the tracer and a port.
 * @param stage      the stage actor the counter counts for, or {@link Stage#NONE}.
 * @param side       the side of the queue the counter counts on, or {@link Side#NONE}.
 */
public record CounterScope(Attachment attachment, int port, int index, Stage stage, Side side)
{
    /** The port or index of a scope that has none. */
    public static final int NONE = -1;

    public static final int ATTACHMENT_OFFSET = 0;
    public static final int PORT_OFFSET = 4;
    public static final int INDEX_OFFSET = 8;
    public static final int STAGE_OFFSET = 12;
    public static final int SIDE_OFFSET = 16;
    public static final int KEY_LENGTH = 20;

    /** What a counter is attached to: its code is stored in the key, its label names the index ({@code txq=3}). */
    public enum Attachment
    {
        TRACER(1, "trace"),
        PORT(2, "port"),
        RXQ(3, "rxq"),
        TXQ(4, "txq"),
        SOCKET(5, "socket");

        private final int code;
        private final String label;

        Attachment(final int code, final String label)
        {
            this.code = code;
            this.label = label;
        }

        boolean hasPort()
        {
            return TRACER != this;
        }

        boolean hasIndex()
        {
            return TRACER != this && PORT != this;
        }

        static Attachment of(final int code)
        {
            for (final Attachment attachment : values())
            {
                if (attachment.code == code)
                {
                    return attachment;
                }
            }
            return null;
        }
    }

    /** The stage actor a {@code stage_restarts} counter counts the restarts of. */
    public enum Stage
    {
        NONE(0, ""),
        QDISC(1, "qdisc"),
        TXQ(2, "txq"),
        RXQ(3, "rxq"),
        HOST(4, "host"),
        SOCKET(5, "socket");

        private final int code;
        private final String label;

        Stage(final int code, final String label)
        {
            this.code = code;
            this.label = label;
        }

        static Stage of(final int code)
        {
            for (final Stage stage : values())
            {
                if (stage.code == code)
                {
                    return stage;
                }
            }
            return null;
        }
    }

    /**
     * The side of a TX queue a counter counts on, when two stages count the same kind: the qdisc's
     * {@code txq_driver_errors} are its sends' (no side), the TX queue's are its reclaims'.
     */
    public enum Side
    {
        NONE(0, ""),
        RECLAIM(1, "reclaim");

        private final int code;
        private final String label;

        Side(final int code, final String label)
        {
            this.code = code;
            this.label = label;
        }

        static Side of(final int code)
        {
            for (final Side side : values())
            {
                if (side.code == code)
                {
                    return side;
                }
            }
            return null;
        }
    }

    /**
     * @throws IllegalArgumentException if a field is null, or the port or index is missing where the attachment has
     *                                  one, negative, or present where it has none.
     */
    public CounterScope
    {
        if (!isValid(attachment, port, index, stage, side))
        {
            throw new IllegalArgumentException("not a counter scope: attachment " + attachment + ", port " + port +
                ", index " + index + ", stage " + stage + ", side " + side);
        }
    }

    /** The tracer's own counters ({@code trace}). */
    public static CounterScope tracer()
    {
        return new CounterScope(Attachment.TRACER, NONE, NONE, Stage.NONE, Side.NONE);
    }

    /** A port's own counters ({@code port=1}). */
    public static CounterScope port(final int port)
    {
        return new CounterScope(Attachment.PORT, port, NONE, Stage.NONE, Side.NONE);
    }

    /** An RX queue's counters ({@code port=1 rxq=0}). */
    public static CounterScope rxq(final int port, final int queue)
    {
        return new CounterScope(Attachment.RXQ, port, queue, Stage.NONE, Side.NONE);
    }

    /** A TX queue's, or its qdisc's, counters ({@code port=0 txq=3}). */
    public static CounterScope txq(final int port, final int queue)
    {
        return new CounterScope(Attachment.TXQ, port, queue, Stage.NONE, Side.NONE);
    }

    /** A socket's counters ({@code port=0 socket=7}). */
    public static CounterScope socket(final int port, final int socketId)
    {
        return new CounterScope(Attachment.SOCKET, port, socketId, Stage.NONE, Side.NONE);
    }

    /** This scope for the stage actor {@code stage} ({@code port=0 txq=3 stage=qdisc}). */
    public CounterScope withStage(final Stage stage)
    {
        return new CounterScope(attachment, port, index, stage, side);
    }

    /** This scope on the queue's side {@code side} ({@code port=0 txq=3 side=reclaim}). */
    public CounterScope withSide(final Side side)
    {
        return new CounterScope(attachment, port, index, stage, side);
    }

    /**
     * The scope as the part of a counter's label after its type: {@code trace}, {@code port=1},
     * {@code port=0 txq=3}, then {@code stage=…} and {@code side=…} if set.
     */
    public String label()
    {
        final StringBuilder label = new StringBuilder(32);
        if (attachment.hasPort())
        {
            label.append("port=").append(port);
            if (attachment.hasIndex())
            {
                label.append(' ').append(attachment.label).append('=').append(index);
            }
        }
        else
        {
            label.append(attachment.label);
        }
        if (Stage.NONE != stage)
        {
            label.append(" stage=").append(stage.label);
        }
        if (Side.NONE != side)
        {
            label.append(" side=").append(side.label);
        }
        return label.toString();
    }

    /** The label, so a scope in a message reads as it does in {@code xmit stat} and the counters' labels. */
    @Override
    public String toString()
    {
        return label();
    }

    /** Writes this scope as a counter's key at {@code offset}, {@link #KEY_LENGTH} bytes. */
    public void encode(final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putInt(offset + ATTACHMENT_OFFSET, attachment.code);
        buffer.putInt(offset + PORT_OFFSET, port);
        buffer.putInt(offset + INDEX_OFFSET, index);
        buffer.putInt(offset + STAGE_OFFSET, stage.code);
        buffer.putInt(offset + SIDE_OFFSET, side.code);
    }

    /** True if the key at {@code offset} is this scope's; reads the key without making a scope of it. */
    public boolean matches(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + ATTACHMENT_OFFSET) == attachment.code &&
            buffer.getInt(offset + PORT_OFFSET) == port &&
            buffer.getInt(offset + INDEX_OFFSET) == index &&
            buffer.getInt(offset + STAGE_OFFSET) == stage.code &&
            buffer.getInt(offset + SIDE_OFFSET) == side.code;
    }

    /**
     * The scope whose key is at {@code offset}, or null if the bytes there are not the key of any scope (a damaged
     * file: the caller says which).
     */
    public static CounterScope decode(final DirectBuffer buffer, final int offset)
    {
        final Attachment attachment = Attachment.of(buffer.getInt(offset + ATTACHMENT_OFFSET));
        final int port = buffer.getInt(offset + PORT_OFFSET);
        final int index = buffer.getInt(offset + INDEX_OFFSET);
        final Stage stage = Stage.of(buffer.getInt(offset + STAGE_OFFSET));
        final Side side = Side.of(buffer.getInt(offset + SIDE_OFFSET));
        return isValid(attachment, port, index, stage, side) ? new CounterScope(attachment, port, index, stage, side) :
            null;
    }

    private static boolean isValid(
        final Attachment attachment, final int port, final int index, final Stage stage, final Side side)
    {
        return null != attachment && null != stage && null != side &&
            (attachment.hasPort() ? port >= 0 : NONE == port) &&
            (attachment.hasIndex() ? index >= 0 : NONE == index);
    }
}
