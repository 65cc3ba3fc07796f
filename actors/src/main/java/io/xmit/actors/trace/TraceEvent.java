package io.xmit.actors.trace;

import org.agrona.DirectBuffer;

/**
 * The layout of one trace event in the trace ring (a record of Agrona's many-to-one ring buffer, whose type id is the
 * stage), and a flyweight to read it. Fixed fields, then up to a snap length of the frame for the stages that see
 * its bytes (RX arrival and socket send).
 * <pre>
 *  offset  type   field
 *   0      long   traceId
 *   8      long   timeNs      System.nanoTime() at the stage
 *  16      short  port
 *  18      short  queue       RX queue (rx, deliver) or TX queue (send, enqueue, burst, complete)
 *  20      short  cpu         the xmit CPU the stage ran on, -1 off the pipeline's CPUs
 *  22      short  code        send: the selection rule; burst: the path (0 bypass, 1 backlog)
 *  24      int    socket      socket id, 0 where the stage does not know it
 *  28      int    b           enqueue: band; burst: position in the bulk (1-based); send: 1 if inherited by a reply
 *  32      int    c           enqueue: backlog length after it; burst: bulk size
 *  36      int    d           rx/send: frame length; burst: {@link #BURST_ACCEPTED}, {@link #BURST_REQUEUED} or
 *                             {@link #BURST_FAILED}
 *  40      int    captured    frame bytes that follow
 *  44      ...    frame bytes
 * </pre>
 */
public final class TraceEvent
{
    public static final int RX = 1;
    public static final int DELIVER = 2;
    public static final int SEND = 3;
    public static final int ENQUEUE = 4;
    public static final int BURST = 5;
    public static final int COMPLETE = 6;

    public static final int PATH_BYPASS = 0;
    public static final int PATH_BACKLOG = 1;
    /** A burst's outcome for one packet: the busy driver refused it, and it was requeued. */
    public static final int BURST_REQUEUED = 0;
    /** A burst's outcome for one packet: the driver took it. */
    public static final int BURST_ACCEPTED = 1;
    /** A burst's outcome for one packet: the call failed, and the packet was dropped (§4.5). */
    public static final int BURST_FAILED = 2;

    public static final int TRACE_ID_OFFSET = 0;
    public static final int TIME_OFFSET = 8;
    public static final int PORT_OFFSET = 16;
    public static final int QUEUE_OFFSET = 18;
    public static final int CPU_OFFSET = 20;
    public static final int CODE_OFFSET = 22;
    public static final int SOCKET_OFFSET = 24;
    public static final int B_OFFSET = 28;
    public static final int C_OFFSET = 32;
    public static final int D_OFFSET = 36;
    public static final int CAPTURED_OFFSET = 40;
    public static final int HEADER_LENGTH = 44;
    public static final int MAX_SNAP_LENGTH = 1024;

    private static final String[] STAGES = {"?", "rx", "deliver", "send", "enqueue", "burst", "complete"};

    private DirectBuffer buffer;
    private int offset;
    private int type;

    /** Wraps the record of {@code type} at {@code offset}. */
    public TraceEvent wrap(final int type, final DirectBuffer buffer, final int offset)
    {
        this.type = type;
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** The stage's name in log lines: rx, deliver, send, enqueue, burst, complete. */
    public static String stage(final int type)
    {
        return type > 0 && type < STAGES.length ? STAGES[type] : "?";
    }

    public int type()
    {
        return type;
    }

    public long traceId()
    {
        return buffer.getLong(offset + TRACE_ID_OFFSET);
    }

    public long timeNs()
    {
        return buffer.getLong(offset + TIME_OFFSET);
    }

    public int port()
    {
        return buffer.getShort(offset + PORT_OFFSET);
    }

    public int queue()
    {
        return buffer.getShort(offset + QUEUE_OFFSET);
    }

    public int cpu()
    {
        return buffer.getShort(offset + CPU_OFFSET);
    }

    public int code()
    {
        return buffer.getShort(offset + CODE_OFFSET);
    }

    public int socket()
    {
        return buffer.getInt(offset + SOCKET_OFFSET);
    }

    public int b()
    {
        return buffer.getInt(offset + B_OFFSET);
    }

    public int c()
    {
        return buffer.getInt(offset + C_OFFSET);
    }

    public int d()
    {
        return buffer.getInt(offset + D_OFFSET);
    }

    public int captured()
    {
        return buffer.getInt(offset + CAPTURED_OFFSET);
    }

    /** Copies the captured frame bytes into a new array (the writer's side, not the data path). */
    public byte[] frame()
    {
        final byte[] bytes = new byte[captured()];
        buffer.getBytes(offset + HEADER_LENGTH, bytes);
        return bytes;
    }
}
