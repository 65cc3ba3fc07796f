package io.xmit.actors.internal.qdisc;

import io.xmit.actors.OverflowPolicy;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.QueueBooks;
import io.xmit.actors.SendResult;
import io.xmit.actors.internal.socket.UdpSocketImpl;
import io.xmit.actors.stats.CounterType;
import io.xmit.transport.ring.RunToken;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sender bypass under contention (kernel-semantics §4.4, §4.4a, §5.2, §5.5): several sender threads, each with its
 * own socket, send numbered datagrams into one TX queue with the bypass on, in runs of {@code sendMore} ended by a
 * {@code send}, while one thread plays the qdisc's and TX queue's actors (it delivers each Poll the doorbell sends,
 * reaps completions and drains the far end). The loop device is paced, so senders find the qdisc idle, scheduled,
 * running and held in turn, and their packets take the direct path or the ring, a run's packets sometimes both.
 * Bounded: a fixed count, and 40 s. Every datagram must arrive exactly once, in its socket's order, with nothing
 * stranded and the books balanced.
 * <p>
 * The far end never overflows, however late the actors' thread runs: it drains before it reaps completions, so no
 * more than twice what the send buffers let be in flight (4 × 128) can wait at the far end, half the ring.
 */
@Timeout(90)
class QdiscSenderBypassStressTest
{
    private static final String LOOP = "loop:tx=1,rx=1,ring=1024,frame=2048,rate=2Mpps";
    /**
     * Senders that reap their own completions are no longer held back by the far end's drain (their send buffers
     * empty as the wire sends), so its ring holds every packet of the test.
     */
    private static final String REAPING_LOOP = "loop:tx=1,rx=1,ring=65536,frame=256,rate=2Mpps";
    private static final int SENDERS = 4;
    private static final int PACKETS_EACH = 10_000;
    private static final int SEND_BUFFER = 128;
    /** Packets per run of {@code sendMore}: the last one is a {@code send}. */
    private static final int RUN = 8;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(40);

    @Test
    void everyPacketArrivesOnceInOrderWhateverThreadRanTheQdisc()
    {
        run(false);
    }

    /**
     * The same with the senders reaping their bursts' completions through the channel (kernel-semantics §7.7), while
     * the actors' thread polls them through it too: the sender, the completion actor or neither (the token held, a
     * MISSED mark left) reaps each burst, and every packet is still completed exactly once, its socket released.
     */
    @Test
    void everyPacketIsCompletedOnceWhicheverThreadReapedIt_7_7()
    {
        run(true);
    }

    private static void run(final boolean reapInSenders)
    {
        final String device = reapInSenders ? REAPING_LOOP : LOOP;
        final PipelineConfig config = QdiscEngineSupport.config(device, 64, 64, 1000, OverflowPolicy.BACKPRESSURE)
            .toBuilder().qdiscSenderBypass(true).build();
        try (QdiscEngineSupport rig = QdiscEngineSupport.idleActor(device, config))
        {
            if (reapInSenders)
            {
                rig.reapInSenders();
            }
            final List<UdpSocketImpl> sockets = new ArrayList<>();
            for (int s = 0; s < SENDERS; s++)
            {
                sockets.add(rig.openSocket(0, SEND_BUFFER));
            }
            final long deadline = System.nanoTime() + DEADLINE_NANOS;
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Thread> senders = new ArrayList<>();
            for (int s = 0; s < SENDERS; s++)
            {
                final int sender = s;
                final Thread thread = new Thread(() -> send(rig, sockets.get(sender), sender, deadline, failure),
                    "sender-" + s);
                senders.add(thread);
            }
            for (final Thread thread : senders)
            {
                thread.start();
            }

            // The actors' thread: one Poll per wake-up the doorbell sent, completions, the far end.
            final long[] next = new long[SENDERS];
            long polls = 0;
            long errors = 0;
            final long total = (long)SENDERS * PACKETS_EACH;
            int checked = 0;
            while (checked < total && System.nanoTime() < deadline)
            {
                if (polls < rig.wakes.get())
                {
                    polls++;
                    rig.actorCycle.onPoll();
                }
                rig.drainReceiver();
                if (reapInSenders)
                {
                    rig.channel.pollCompletions();
                }
                else
                {
                    rig.txq.poll();
                }
                for (; checked < rig.received.size(); checked++)
                {
                    final long value = rig.received.getLong(checked);
                    final int sender = (int)(value >>> 32);
                    if (sender >= SENDERS || (value & 0xFFFF_FFFFL) != next[sender]++)
                    {
                        errors++;
                    }
                }
            }
            for (final Thread thread : senders)
            {
                join(thread);
            }
            assertNull(failure.get(), "a sender failed");
            assertEquals(total, checked, "received of " + total + ": " + rig);
            assertEquals(0, errors, "datagrams out of order, duplicated or unknown");
            assertEquals(0, rig.receiver.stats(0).rxMissed(), "the far end dropped none");
            for (int s = 0; s < SENDERS; s++)
            {
                assertEquals(PACKETS_EACH, next[s], "sender " + s);
            }
            rig.pumpUntil("completions", () -> sockets.stream().allMatch(socket -> 0 == socket.inFlight()));
            final QueueBooks books = rig.qdisc.books(rig.txq);
            assertTrue(books.balances(), books.toString());
            assertEquals(total, books.taken());
            assertEquals(total, books.sent());
            assertEquals(total, books.completed());
            assertEquals(0, books.inDriver());
            assertEquals(total, rig.counter(CounterType.TXQ_COMPLETED_PACKETS), "each completed once");
            assertEquals(0, rig.bql.dql().inflight(), "BQL told of every completion");
            assertEquals(RunToken.FREE, rig.qdisc.token().state());
            assertEquals(RunToken.FREE, rig.channel.token().state());
            final long reaps = rig.counter(CounterType.TXQ_SENDER_REAPS);
            assertTrue(reapInSenders ? reaps > 0 : 0 == reaps, "sender reaps: " + reaps);
            final long direct = rig.counter(CounterType.QDISC_DIRECT);
            assertTrue(direct > 0 && direct < total, "both paths taken: " + direct + " of " + total + " directly");
        }
    }

    private static void send(final QdiscEngineSupport rig, final UdpSocketImpl socket, final int sender,
        final long deadline, final AtomicReference<Throwable> failure)
    {
        // Each thread its own payload: the rig's is for one sending thread.
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[QdiscEngineSupport.PAYLOAD_LENGTH]);
        try
        {
            for (int i = 0; i < PACKETS_EACH && System.nanoTime() < deadline; i++)
            {
                payload.putLong(0, (long)sender << 32 | i);
                long result;
                final boolean more = i % RUN != RUN - 1 && i != PACKETS_EACH - 1;
                while ((result = more ? socket.sendMore(payload, 0, payload.capacity()) :
                    socket.send(payload, 0, payload.capacity())) == SendResult.BACK_PRESSURED ||
                    SendResult.SEND_BUFFER_FULL == result)
                {
                    if (System.nanoTime() > deadline)
                    {
                        return;
                    }
                    // Five threads on a shared machine's few cores: let the actors' thread run.
                    Thread.yield();
                }
                if (result < 0)
                {
                    throw new IllegalStateException("sender " + sender + ": send " + i + " returned " + result);
                }
            }
        }
        catch (final Throwable ex)
        {
            failure.compareAndSet(null, ex);
        }
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining " + thread.getName(), ex);
        }
    }
}
