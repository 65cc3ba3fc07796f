package io.xmit.deploy.cluster.data;

import akka.actor.ExtendedActorSystem;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import akka.actor.typed.javadsl.Adapter;
import akka.serialization.SerializerWithStringManifest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.UncheckedIOException;

/**
 * Akka serialization of {@link DataPlaneMessage}: one letter of manifest per message, the fields in order in Java's
 * big-endian data format (strings as modified UTF-8, arrays with their length first), actor references in Akka's
 * serialization format. Compact and with no reflection: Akka 2.6's Jackson (2.11) cannot do records, and a newer
 * Jackson trips its Scala module. Registered under {@code akka.actor.serializers.xmit-data-plane} with id
 * {@link #IDENTIFIER} in this module's {@code reference.conf}.
 */
public final class DataPlaneSerializer extends SerializerWithStringManifest
{
    /** Above Akka's reserved 0–40. */
    public static final int IDENTIFIER = 7302;

    private static final String BIND_SOCKET = "B";
    private static final String SOCKET_BOUND = "S";
    private static final String BIND_REFUSED = "F";
    private static final String SOCKET_READY = "R";
    private static final String RECEIPT = "C";
    private static final String UNBIND_SOCKET = "U";
    private static final String SOCKET_UNBOUND = "E";
    /** "Y" since it carries the node's TX positions; the "X" of before had none and is refused as unknown. */
    private static final String RELEASE_SOCKET = "Y";
    private static final String NODE_LEAVING = "L";
    private static final String NODE_DRAINED = "D";
    private static final String QUEUE_MAP_CHANGED = "Q";
    private static final String COMPLETIONS = "P";
    private static final String SOCKET_PEER = "A";

    private final ActorRefResolver resolver;

    public DataPlaneSerializer(final ExtendedActorSystem system)
    {
        this.resolver = ActorRefResolver.get(Adapter.toTyped(system));
    }

    @Override
    public int identifier()
    {
        return IDENTIFIER;
    }

    @Override
    public String manifest(final Object message)
    {
        return switch (checked(message))
        {
            case DataPlaneMessage.BindSocket m -> BIND_SOCKET;
            case DataPlaneMessage.SocketBound m -> SOCKET_BOUND;
            case DataPlaneMessage.BindRefused m -> BIND_REFUSED;
            case DataPlaneMessage.SocketReady m -> SOCKET_READY;
            case DataPlaneMessage.Receipt m -> RECEIPT;
            case DataPlaneMessage.UnbindSocket m -> UNBIND_SOCKET;
            case DataPlaneMessage.SocketUnbound m -> SOCKET_UNBOUND;
            case DataPlaneMessage.ReleaseSocket m -> RELEASE_SOCKET;
            case DataPlaneMessage.NodeLeaving m -> NODE_LEAVING;
            case DataPlaneMessage.NodeDrained m -> NODE_DRAINED;
            case DataPlaneMessage.QueueMapChanged m -> QUEUE_MAP_CHANGED;
            case DataPlaneMessage.Completions m -> COMPLETIONS;
            case DataPlaneMessage.SocketPeer m -> SOCKET_PEER;
        };
    }

    @Override
    public byte[] toBinary(final Object message)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            write(checked(message), out);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    @Override
    public Object fromBinary(final byte[] bytes, final String manifest) throws NotSerializableException
    {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            return switch (manifest)
            {
                case BIND_SOCKET -> new DataPlaneMessage.BindSocket(in.readUTF(), in.readInt(), in.readUTF(),
                    in.readLong(), in.readUTF(), in.readInt(), ref(in.readUTF()), in.readInt());
                case SOCKET_BOUND -> new DataPlaneMessage.SocketBound(in.readUTF(), in.readInt(), in.readInt(),
                    in.readInt(), in.readUTF(), readInts(in), in.readLong(), in.readLong(), in.readInt(), in.readInt(),
                    in.readInt(), readLongs(in), in.readInt(), in.readInt());
                case BIND_REFUSED -> new DataPlaneMessage.BindRefused(in.readUTF(), in.readInt(), in.readUTF());
                case SOCKET_READY -> new DataPlaneMessage.SocketReady(in.readInt());
                case RECEIPT -> new DataPlaneMessage.Receipt(in.readInt(), in.readLong());
                case UNBIND_SOCKET -> new DataPlaneMessage.UnbindSocket(in.readInt(), ref(in.readUTF()));
                case SOCKET_UNBOUND -> new DataPlaneMessage.SocketUnbound(in.readInt(), in.readLong());
                case RELEASE_SOCKET -> new DataPlaneMessage.ReleaseSocket(in.readInt(), in.readLong(),
                    readLongs(in));
                case NODE_LEAVING -> new DataPlaneMessage.NodeLeaving(in.readUTF(), in.readLong(), readLongs(in),
                    ref(in.readUTF()));
                case NODE_DRAINED -> new DataPlaneMessage.NodeDrained(in.readUTF(), in.readLong());
                case QUEUE_MAP_CHANGED -> new DataPlaneMessage.QueueMapChanged(in.readInt(), in.readInt(),
                    in.readInt(), readLongs(in));
                case COMPLETIONS -> new DataPlaneMessage.Completions(readInts(in), readLongs(in));
                case SOCKET_PEER -> new DataPlaneMessage.SocketPeer(in.readInt(), in.readInt(),
                    in.readUnsignedShort());
                default -> throw new NotSerializableException("xmit data plane: unknown manifest '" + manifest +
                    "' (" + bytes.length + " bytes); known are B, S, F, R, C, U, E, Y, L, D, Q, P, A: is the " +
                    "sender a different xmit version?");
            };
        }
        catch (final IOException ex)
        {
            if (ex instanceof NotSerializableException unknown)
            {
                throw unknown;
            }
            final NotSerializableException bad = new NotSerializableException("xmit data plane: a " + bytes.length +
                "-byte message with manifest '" + manifest + "' does not decode: " + ex);
            bad.initCause(ex);
            throw bad;
        }
    }

    private void write(final DataPlaneMessage message, final DataOutputStream out) throws IOException
    {
        switch (message)
        {
            case DataPlaneMessage.BindSocket m ->
            {
                out.writeUTF(m.service());
                out.writeInt(m.index());
                out.writeUTF(m.node());
                out.writeLong(m.incarnation());
                out.writeUTF(m.dataEndpoint());
                out.writeInt(m.streamId());
                out.writeUTF(resolver.toSerializationFormat(m.replyTo()));
                out.writeInt(m.receiverWindow());
            }
            case DataPlaneMessage.SocketBound m ->
            {
                out.writeUTF(m.service());
                out.writeInt(m.index());
                out.writeInt(m.socketId());
                out.writeInt(m.port());
                out.writeUTF(m.edgeEndpoint());
                writeInts(out, m.txStreams());
                out.writeLong(m.sourceMac());
                out.writeLong(m.destinationMac());
                out.writeInt(m.ipv4());
                out.writeInt(m.localPort());
                out.writeInt(m.rxQueues());
                writeLongs(out, m.xpsRxqs());
                out.writeInt(m.maxFrameLength());
                out.writeInt(m.realNumTx());
            }
            case DataPlaneMessage.BindRefused m ->
            {
                out.writeUTF(m.service());
                out.writeInt(m.index());
                out.writeUTF(m.reason());
            }
            case DataPlaneMessage.SocketReady m -> out.writeInt(m.socketId());
            case DataPlaneMessage.Receipt m ->
            {
                out.writeInt(m.socketId());
                out.writeLong(m.received());
            }
            case DataPlaneMessage.UnbindSocket m ->
            {
                out.writeInt(m.socketId());
                out.writeUTF(resolver.toSerializationFormat(m.replyTo()));
            }
            case DataPlaneMessage.SocketUnbound m ->
            {
                out.writeInt(m.socketId());
                out.writeLong(m.position());
            }
            case DataPlaneMessage.ReleaseSocket m ->
            {
                out.writeInt(m.socketId());
                out.writeLong(m.received());
                writeLongs(out, m.txPositions());
            }
            case DataPlaneMessage.NodeLeaving m ->
            {
                out.writeUTF(m.node());
                out.writeLong(m.incarnation());
                writeLongs(out, m.txPositions());
                out.writeUTF(resolver.toSerializationFormat(m.replyTo()));
            }
            case DataPlaneMessage.NodeDrained m ->
            {
                out.writeUTF(m.node());
                out.writeLong(m.relayed());
            }
            case DataPlaneMessage.QueueMapChanged m ->
            {
                out.writeInt(m.port());
                out.writeInt(m.realNumTx());
                out.writeInt(m.rxQueues());
                writeLongs(out, m.xpsRxqs());
            }
            case DataPlaneMessage.Completions m ->
            {
                writeInts(out, m.socketIds());
                writeLongs(out, m.completed());
            }
            case DataPlaneMessage.SocketPeer m ->
            {
                out.writeInt(m.socketId());
                out.writeInt(m.peerIpv4());
                out.writeShort(m.peerPort());
            }
        }
    }

    private static DataPlaneMessage checked(final Object message)
    {
        if (message instanceof DataPlaneMessage known)
        {
            return known;
        }
        throw new IllegalArgumentException("xmit data plane serializer cannot serialize a " +
            (null == message ? "null" : message.getClass().getName()) + "; it serializes DataPlaneMessage only");
    }

    private ActorRef<DataPlaneMessage> ref(final String path)
    {
        return resolver.resolveActorRef(path);
    }

    private static void writeInts(final DataOutputStream out, final int[] values) throws IOException
    {
        out.writeInt(values.length);
        for (final int value : values)
        {
            out.writeInt(value);
        }
    }

    private static void writeLongs(final DataOutputStream out, final long[] values) throws IOException
    {
        out.writeInt(values.length);
        for (final long value : values)
        {
            out.writeLong(value);
        }
    }

    private static int[] readInts(final DataInputStream in) throws IOException
    {
        final int[] values = new int[checkedLength(in.readInt())];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = in.readInt();
        }
        return values;
    }

    private static long[] readLongs(final DataInputStream in) throws IOException
    {
        final long[] values = new long[checkedLength(in.readInt())];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = in.readLong();
        }
        return values;
    }

    /** A length read from the wire, before an array is made of it: a corrupt one must not allocate gigabytes. */
    private static int checkedLength(final int length) throws IOException
    {
        if (length < 0 || length > 0xFFFF)
        {
            throw new IOException("array length " + length + " is not in 0..65535");
        }
        return length;
    }
}
