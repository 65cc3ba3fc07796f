package io.xmit.deploy.cluster.data;

import io.xmit.actors.Endpoint;
import io.xmit.actors.RemoteMember;
import io.xmit.actors.SendResult;
import io.xmit.pipeline.frame.RingFrameHeader;

import org.agrona.DirectBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@link RemoteMember} for tests of the relay: takes frames and counts them (and, if asked, notes each one's TX
 * queue and the sequence number at the start of its frame), or refuses the next ones as told; its completions are
 * what the test sets.
 */
final class ScriptedMember implements RemoteMember
{
    final List<String> accepted = new ArrayList<>();
    private final int id;
    private final boolean noting;
    private long taken;
    /** How many of the next frames to refuse with {@link SendResult#BACK_PRESSURED}. */
    int refuseNext;
    /** A refusal for the next frame after those, once; 0 for none. */
    long refuseWith;
    /** What the pipeline has completed of its sends, as the test says. */
    long completed;
    private Endpoint peer;

    /** @param noting whether to note each frame taken in {@link #accepted} (allocates; not for allocation tests). */
    ScriptedMember(final int id, final boolean noting)
    {
        this.id = id;
        this.noting = noting;
    }

    @Override
    public long held()
    {
        return 0;
    }

    @Override
    public int id()
    {
        return id;
    }

    @Override
    public int port()
    {
        return 0;
    }

    @Override
    public long relay(final int txq, final RingFrameHeader header, final DirectBuffer buffer, final int frameOffset,
        final int frameLength)
    {
        if (refuseNext > 0)
        {
            refuseNext--;
            return SendResult.BACK_PRESSURED;
        }
        if (0 != refuseWith)
        {
            final long result = refuseWith;
            refuseWith = 0;
            return result;
        }
        if (noting)
        {
            accepted.add(txq + ":" + buffer.getLong(frameOffset));
        }
        return ++taken;
    }

    @Override
    public void steer(final boolean on)
    {
    }

    @Override
    public void connect(final Endpoint peer)
    {
        this.peer = peer;
    }

    @Override
    public void disconnect()
    {
        peer = null;
    }

    @Override
    public Endpoint peer()
    {
        return peer;
    }

    @Override
    public long sent()
    {
        return taken;
    }

    @Override
    public long completed()
    {
        return completed;
    }

    @Override
    public long delivered()
    {
        return 0;
    }

    @Override
    public void close()
    {
    }
}
