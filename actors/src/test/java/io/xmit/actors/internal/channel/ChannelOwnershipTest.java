package io.xmit.actors.internal.channel;

import io.xmit.actors.BusyPoll;
import io.xmit.actors.PortAddress;
import io.xmit.actors.internal.qdisc.QdiscRunner;
import io.xmit.actors.internal.rxq.LoopFrames;
import io.xmit.actors.internal.rxq.RxQueueEngine;
import io.xmit.actors.internal.socket.BusyPoller;
import io.xmit.actors.internal.socket.SendGate;
import io.xmit.actors.internal.socket.SocketTable;
import io.xmit.actors.internal.stage.CrashSwitch;
import io.xmit.actors.internal.xps.PortContext;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersFile;
import io.xmit.pipeline.flow.FlowHasher;
import io.xmit.pipeline.qdisc.DescriptorBatch;
import io.xmit.pipeline.testing.Await;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.transport.nic.NicDevice;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.nic.NicFault;
import io.xmit.transport.nic.QueueStats;
import io.xmit.transport.nic.RxBurst;
import io.xmit.transport.nic.TxCompletion;
import io.xmit.transport.ring.PacketHandler;
import io.xmit.transport.ring.PacketPublication;
import io.xmit.transport.ring.PacketSubscription;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.RingDutyCycle;
import io.xmit.transport.ring.Rings;
import io.xmit.transport.ring.RingsConfig;
import io.xmit.transport.ring.RunToken;

import org.agrona.collections.LongArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One channel (RX queue 0 of a {@code loop} device's port 1) with its two would-be runners driven on the test thread,
 * step by step: the RX queue's actor ({@link Channel#pollRx}) and a socket busy-polling it ({@link BusyPoller}).
 * Kernel-semantics §9: one runner at a time (§9.1), the busy poller's quiet take and its loop (§9.2), its budget
 * (§9.3), its hand-back (§9.4), the MISSED rule that strands nothing (§9.5) and the deferral of prefer busy polling
 * (§9.6). Then a bounded stress run of both on two threads, every frame checked exactly once.
 */
@Timeout(60)
class ChannelOwnershipTest
{
    private static final int BUSY_PORT = 9000;
    private static final int OTHER_PORT = 9001;
    /** Long enough that a loop ends by finding a datagram, not by time, whenever a datagram is there to find. */
    private static final BusyPoll LONG = BusyPoll.of(Duration.ofSeconds(1));
    /** A loop that finds nothing ends at once. */
    private static final BusyPoll SHORT = BusyPoll.of(Duration.ofNanos(1));

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void close() throws Exception
    {
        for (final AutoCloseable resource : resources.reversed())
        {
            resource.close();
        }
    }

    @Test
    void anOwnersPollWhileASocketBusyPollsIsTurnedAwayAndCoveredByThePollersLastLook()
    {
        final Fixture f = new Fixture();
        f.frames.send(f.sender, 0, BUSY_PORT, OTHER_PORT, BUSY_PORT);

        assertTrue(f.channel.tryBusyPoll(false), "the socket takes the idle channel");
        assertEquals(0, f.channel.pollRx(), "the actor's Poll finds the channel taken and does nothing");
        assertEquals(RunToken.HELD_MISSED, f.channel.token().state(), "it marked the token on its way out");
        assertEquals(0, f.rxCounter(CounterType.RX_POLLS), "the RX queue did not run for the actor");
        assertEquals(3, f.channel.busyPoll(8), "the busy poll takes the frames, for both sockets");
        assertEquals(0, f.wakes.get(), "no wake-up before the hand-back");

        f.channel.handBack(8, false);
        assertEquals(RunToken.FREE, f.channel.token().state());
        assertEquals(0, f.wakes.get(), "the poller's last look left the turned-away actor nothing: not rung (§9.4)");
        assertEquals(List.of(true), f.driver.arms, "the hand-back armed the interrupt before its last look (§9.4)");
        assertEquals(List.of(0L, 2L), toList(LoopFrames.drain(f.busySubscription)));
        assertEquals(List.of(1L), toList(LoopFrames.drain(f.otherSubscription)), "the other socket's datagram");
        assertEquals(3, f.rxCounter(CounterType.BUSY_POLL_PACKETS));
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_HANDBACKS));
    }

    /**
     * An owner that marks the token again during the poller's last look for the turned-away (§9.4) wanted it after that
     * look began: it is rung (§9.5), and what it came for, a frame that landed meanwhile, is not stranded.
     */
    @Test
    void anOwnerTurnedAwayAgainDuringThePollersLastLookIsRung()
    {
        final Fixture f = new Fixture();
        assertTrue(f.channel.tryBusyPoll(true), "the socket takes the idle channel");
        assertEquals(0, f.channel.pollRx(), "the actor is turned away");
        f.driver.duringRx = () ->
        {
            f.frames.send(f.sender, 0, BUSY_PORT);
            assertEquals(0, f.channel.pollRx(), "turned away again, during the last look");
        };

        f.channel.handBack(8, true);
        assertEquals(RunToken.FREE, f.channel.token().state());
        assertEquals(1, f.wakes.get(), "marked during the last look: rung");
        Await.until("the frame to be delivered, by the last look or the rung actor", () ->
        {
            f.channel.pollRx();
            return 1 == f.delivered();
        }, f.channel::toString);
        assertEquals(List.of(0L), toList(LoopFrames.drain(f.busySubscription)));
    }

    @Test
    void aSocketFindingTheOwnerRunningLooksAgainAndLeavesTheFramesToIt()
    {
        final Fixture f = new Fixture();
        final BusyPoller poller = f.poller(SHORT);
        poller.recordRxQueue(0);
        f.frames.send(f.sender, 0, BUSY_PORT, BUSY_PORT);

        // The actor's poll holds the token (as in the middle of RxQueueEngine.poll on its CPU).
        assertTrue(f.channel.token().tryAcquire());
        assertFalse(poller.loop(), "the loop found the channel taken until its time was up");
        assertEquals(RunToken.HELD, f.channel.token().state(), "a busy poller's take leaves no MISSED mark");
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_LOOPS));
        assertEquals(0, f.rxCounter(CounterType.BUSY_POLL_POLLS), "it never polled the channel");
        assertEquals(0, f.rxCounter(CounterType.BUSY_POLL_HANDBACKS), "nothing to hand back");
        assertFalse(f.channel.token().release(), "the owner's release: nobody to ring");

        assertEquals(2, f.channel.pollRx(), "the owner delivers the frames the socket waited for");
        assertEquals(List.of(0L, 1L), toList(LoopFrames.drain(f.busySubscription)));
        assertEquals(0, f.wakes.get());
    }

    @Test
    void aHandBackLeavesTheInterruptOfAScheduledActorOffForTheActorToArm()
    {
        final Fixture f = new Fixture();
        f.frames.send(f.sender, 0, BUSY_PORT, BUSY_PORT);
        // The RX queue's actor is scheduled (its Poll queued: it is spinning through empty polls, or was woken).
        assertTrue(f.rxDoorbell.ring());

        assertTrue(f.channel.tryBusyPoll(false), "the socket takes the channel between two of the actor's polls");
        assertEquals(2, f.channel.busyPoll(8));
        f.channel.handBack(8, false);
        assertEquals(RunToken.FREE, f.channel.token().state());
        assertEquals(List.of(), f.driver.arms, "no interrupt armed under a scheduled actor (§9.4)");
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_HANDBACKS));
        assertEquals(List.of(0L, 1L), toList(LoopFrames.drain(f.busySubscription)));
        assertEquals(1, f.wakes.get(), "only the Poll already queued");

        // The actor's Poll runs (SCHEDULED becomes RUNNING), finds nothing and goes idle: it arms the interrupt then.
        final RingDutyCycle dutyCycle = new RingDutyCycle(f.rxDoorbell, f.channel::pollRx, 0);
        assertEquals(0, dutyCycle.onPoll());
        assertEquals(RingDoorbell.IDLE, f.rxDoorbell.state());
        assertEquals(List.of(true), f.driver.arms, "the actor armed it on its way to idle, before its last look");
        f.frames.send(f.sender, 2, BUSY_PORT);
        assertTrue(f.channel.tryBusyPoll(false), "an idle actor's channel");
        assertEquals(1, f.channel.busyPoll(8));
        f.channel.handBack(8, false);
        assertEquals(List.of(true, true), f.driver.arms, "a hand-back under an idle actor arms the interrupt (§9.4)");
        assertEquals(List.of(2L), toList(LoopFrames.drain(f.busySubscription)));
    }

    @Test
    void aSocketLoopsOnlyOnceItKnowsItsChannelAndNotOnTheLookBeforeItSleeps()
    {
        final Fixture f = new Fixture();
        final BusyPoller poller = f.poller(SHORT);
        assertFalse(poller.loop(), "no datagram received yet: no channel (sk_napi_id 0)");
        assertEquals(0, f.rxCounter(CounterType.BUSY_POLL_LOOPS));

        poller.recordRxQueue(0);
        assertFalse(poller.loop());
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_LOOPS));
        assertFalse(poller.loop(), "the duty cycle's last look after a loop that found nothing");
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_LOOPS), "does not loop again");
        assertFalse(poller.loop());
        assertEquals(2, f.rxCounter(CounterType.BUSY_POLL_LOOPS), "the next poll loops");
        assertEquals(List.of(true, true), f.driver.arms, "each hand-back armed the interrupt");
    }

    @Test
    void aBusyPollerThatCrashesMidPollKeepsTheChannelUntilItsRecoveryAndStrandsNothing()
    {
        final Fixture f = new Fixture();
        final BusyPoller poller = f.poller(LONG);
        poller.recordRxQueue(0);
        f.frames.send(f.sender, 0, BUSY_PORT, BUSY_PORT, BUSY_PORT, BUSY_PORT, BUSY_PORT);
        f.rx.armCrash(2);

        assertThrows(CrashSwitch.InjectedCrash.class, poller::loop, "the RX queue throws after its second frame");
        assertEquals(RunToken.HELD, f.channel.token().state(), "the failed poller keeps the channel");
        assertEquals(0, f.channel.pollRx(), "so the actor cannot run it before the recovery");
        assertEquals(0, f.wakes.get());

        poller.recover();
        assertEquals(RunToken.FREE, f.channel.token().state());
        assertEquals(1, f.wakes.get(), "the owners are rung to go on where the poller stopped");
        assertEquals(3, f.channel.pollRx(), "the actor delivers the rest of the burst");
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), toList(LoopFrames.drain(f.busySubscription)), "each frame once");
        assertEquals(0, f.rxCounter(CounterType.RX_DROP_FAILED), "the crash came between frames: none failed");
    }

    @Test
    void framesPastTheBudgetAreLeftToTheOwnerAtTheHandBack()
    {
        final Fixture f = new Fixture();
        final BusyPoller poller = f.poller(LONG);
        poller.recordRxQueue(0);
        final int[] twenty = new int[20];
        Arrays.fill(twenty, BUSY_PORT);
        f.frames.send(f.sender, 0, twenty);

        assertTrue(poller.loop());
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_POLLS), "one poll found datagrams");
        assertEquals(16, f.rxCounter(CounterType.BUSY_POLL_PACKETS), "8 in the loop, 8 in the hand-back's last look");
        assertEquals(1, f.wakes.get(), "a full budget in the last look: the actor carries on (§9.4)");
        assertEquals(4, f.channel.pollRx(), "the rest of the burst");
        assertEquals(sequence(20), toList(LoopFrames.drain(f.busySubscription)));
    }

    /**
     * A hand-back whose last look only finishes a burst a budget left (§9.3, §9.4) never read the shim, so it could not
     * arm the interrupt before a look at the device's ring: the RX queue's actor is rung to take the queue back. Before
     * this rule, a frame that arrived after the burst was taken stayed in the ring with the interrupt off (prefer busy
     * polling took it off) and the actor idle, for good: the busy-poll fault soak found an RX queue stranded full.
     */
    @Test
    void aHandBackThatOnlyFinishesABurstLeavesTheQueueToItsActor()
    {
        final Fixture f = new Fixture();
        final int[] twelve = new int[12];
        Arrays.fill(twelve, OTHER_PORT);
        f.frames.send(f.sender, 0, twelve);

        assertTrue(f.channel.tryBusyPoll(true), "a socket preferring busy polling takes the idle channel");
        assertEquals(List.of(false), f.driver.arms, "with its interrupt off (§9.6)");
        assertEquals(8, f.channel.busyPoll(8), "a budget of 8 of a burst of 12");
        f.frames.send(f.sender, 12, OTHER_PORT);

        f.channel.handBack(8, false);
        assertEquals(RunToken.FREE, f.channel.token().state());
        assertEquals(List.of(false), f.driver.arms, "the last look finished the burst and armed nothing");
        assertEquals(1, f.wakes.get(), "so the RX queue's actor is rung to take the queue back");
        assertEquals(1, f.channel.pollRx(), "and its poll finds the frame that came after the burst");
        assertEquals(sequence(13), toList(LoopFrames.drain(f.otherSubscription)));
    }

    @Test
    void preferringBusyPollKeepsTheInterruptOffUntilTheSocketStopsComingBack()
    {
        final Fixture f = new Fixture();
        final BusyPoller poller = f.poller(LONG.preferred(true));
        poller.recordRxQueue(0);
        f.frames.send(f.sender, 0, BUSY_PORT);

        assertTrue(poller.loop());
        assertEquals(List.of(false), f.driver.arms, "taken with its interrupt off (§9.6)");
        assertEquals(0, f.wakes.get(), "deferred: nobody rung");
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_PACKETS), "and no last look");
        f.frames.send(f.sender, 1, BUSY_PORT);
        assertTrue(poller.loop(), "the next loop takes the deferred channel again");
        assertEquals(List.of(false, false), f.driver.arms, "and the interrupt never came back on");
        assertEquals(List.of(0L, 1L), toList(LoopFrames.drain(f.busySubscription)));

        poller.recover();
        assertEquals(1, f.wakes.get(), "the socket stopped: the RX queue's actor takes the queue back and arms it");
        assertEquals(RunToken.FREE, f.channel.token().state());
        poller.recover();
        assertEquals(1, f.wakes.get(), "once");
    }

    @Test
    void aLoopThatOtherActorsCutShortYieldsAndTheSocketsNextPollGoesOnWithIt()
    {
        final Fixture f = new Fixture();
        final AtomicBoolean othersWaiting = new AtomicBoolean(true);
        final BusyPoller poller = f.poller(LONG, othersWaiting);
        poller.recordRxQueue(0);

        assertFalse(poller.loop(), "other actors wait: one poll, then the thread is theirs");
        assertTrue(poller.yielded(), "with its time left, the loop yielded (the kernel's cond_resched, §9.2)");
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_POLLS));
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_HANDBACKS), "handed back while the others run");
        assertEquals(RunToken.FREE, f.channel.token().state());

        // The datagram comes while the other actors have the thread; the socket's actor polls again after them.
        f.frames.send(f.sender, 0, BUSY_PORT);
        assertTrue(poller.loop(), "the next poll goes on with the loop and finds the datagram");
        assertFalse(poller.yielded());
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_LOOPS), "one loop, resumed once");
        assertEquals(2, f.rxCounter(CounterType.BUSY_POLL_POLLS));
        assertEquals(List.of(0L), toList(LoopFrames.drain(f.busySubscription)));
        assertEquals(0, f.wakes.get(), "no Poll for the RX queue's actor: the socket took the datagram itself");
    }

    @Test
    void aLoopWhoseTimeIsUpDoesNotYieldWhateverWaits()
    {
        final Fixture f = new Fixture();
        final BusyPoller poller = f.poller(SHORT, new AtomicBoolean(true));
        poller.recordRxQueue(0);

        assertFalse(poller.loop());
        assertFalse(poller.yielded(), "no time left: the loop is over, not yielded");
        assertFalse(poller.loop(), "the duty cycle's last look before it sleeps");
        assertEquals(1, f.rxCounter(CounterType.BUSY_POLL_POLLS), "does not poll the channel again");
    }

    @Test
    void preferringBusyPollKeepsTheInterruptOffWhileALoopYields()
    {
        final Fixture f = new Fixture();
        final AtomicBoolean othersWaiting = new AtomicBoolean(true);
        final BusyPoller poller = f.poller(LONG.preferred(true), othersWaiting);
        poller.recordRxQueue(0);

        assertFalse(poller.loop());
        assertTrue(poller.yielded());
        assertEquals(List.of(false), f.driver.arms, "the interrupt went off at the take and stays off (§9.6)");
        assertEquals(0, f.wakes.get(), "deferred: the socket comes back, nobody is rung");
        f.frames.send(f.sender, 0, BUSY_PORT);
        assertTrue(poller.loop());
        assertEquals(List.of(false, false), f.driver.arms, "never armed in between");
        assertEquals(List.of(0L), toList(LoopFrames.drain(f.busySubscription)));

        poller.recover();
        assertEquals(1, f.wakes.get(), "the socket stopped coming back: the RX queue's actor takes the queue back");
    }

    @Test
    void anActorGoingIdleUnderADeferralLeavesTheInterruptOffUntilTheDeferralEnds()
    {
        final Fixture f = new Fixture();
        final BusyPoller poller = f.poller(LONG.preferred(true));
        poller.recordRxQueue(0);
        f.frames.send(f.sender, 0, BUSY_PORT);
        assertTrue(poller.loop());
        assertEquals(List.of(false), f.driver.arms, "deferred with its interrupt off (§9.6)");

        // The RX queue's actor runs meanwhile (a ring, or its spin), finds nothing and goes idle.
        final RingDutyCycle dutyCycle = new RingDutyCycle(f.rxDoorbell, f.channel::pollRx, 0);
        assertTrue(f.rxDoorbell.ring());
        assertEquals(0, dutyCycle.onPoll());
        assertEquals(RingDoorbell.IDLE, f.rxDoorbell.state());
        assertEquals(List.of(false), f.driver.arms, "the socket comes back: the actor leaves the interrupt off");

        poller.endDeferral();
        assertEquals(2, f.wakes.get(), "the socket's poll found datagrams without looping: the actor is rung");
        assertEquals(0, dutyCycle.onPoll());
        assertEquals(List.of(false, true), f.driver.arms, "the deferral over, the actor arms it as it goes idle");
        assertEquals(List.of(0L), toList(LoopFrames.drain(f.busySubscription)));
    }

    @Test
    void aLoopKeptOffTheChannelByItsActorKeepsItsDeferralUntilTheSocketEndsIt()
    {
        final Fixture f = new Fixture();
        final BusyPoller poller = f.poller(LONG.preferred(true), new AtomicBoolean(true));
        poller.recordRxQueue(0);
        f.frames.send(f.sender, 0, BUSY_PORT);
        assertTrue(poller.loop());
        assertEquals(List.of(0L), toList(LoopFrames.drain(f.busySubscription)));
        assertEquals(List.of(false), f.driver.arms, "deferred with its interrupt off (§9.6)");

        // The RX queue's actor runs, and while it holds the channel the socket's next loop finds it taken and yields.
        final boolean[] yielded = new boolean[1];
        f.driver.duringRx = () -> yielded[0] = !poller.loop() && poller.yielded();
        final RingDutyCycle dutyCycle = new RingDutyCycle(f.rxDoorbell, f.channel::pollRx, 0);
        assertTrue(f.rxDoorbell.ring());
        assertEquals(0, dutyCycle.onPoll());
        assertTrue(yielded[0], "kept off the channel by its actor, the loop yielded");
        assertEquals(List.of(false), f.driver.arms, "still deferred: the actor went idle with the interrupt off");

        final int wakes = f.wakes.get();
        poller.recover();
        assertEquals(wakes + 1, f.wakes.get(), "the socket stopped: its deferral ends and the actor is rung");
        assertEquals(0, dutyCycle.onPoll());
        assertEquals(List.of(false, true), f.driver.arms, "the deferral over, the actor arms it as it goes idle");
    }

    /**
     * The actor's polls on one thread, a busy-polling socket on another, a sender on a third, bounded by a count and a
     * deadline (50,000 frames or 20 s of sending): the RX queue never runs for two at once (its driver sees one caller
     * at a time), and each frame sent arrives exactly once, in order, at its socket, including those for the socket
     * that does not busy-poll. The actor runs its duty cycle as on its CPU: it polls only for the Polls its doorbell
     * sent, spins a few empty polls and goes idle, and the sender rings it after each burst as the interrupt would;
     * so the busy poller takes the channel while the actor is idle and is kept out while it is scheduled.
     */
    @Test
    void twoWouldBeOwnersNeverRunTheChannelAtOnceAndEveryFrameArrivesOnce() throws InterruptedException
    {
        final int frames = 50_000;
        final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        final Fixture f = new Fixture();
        final BusyPoller poller = f.poller(BusyPoll.of(Duration.ofMillis(1)));
        poller.recordRxQueue(0);
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final LongArrayList busyGot = new LongArrayList();
        final AtomicInteger busyCount = new AtomicInteger();
        final PacketHandler onDatagram = (header, buffer, offset, length) ->
        {
            busyGot.addLong(buffer.getLong(offset + LoopFrames.PAYLOAD_OFFSET));
            busyCount.incrementAndGet();
        };

        final LongArrayList otherGot = new LongArrayList();
        final PacketHandler onOther = (header, buffer, offset, length) ->
            otherGot.addLong(buffer.getLong(offset + LoopFrames.PAYLOAD_OFFSET));
        // The RX queue's actor, and on its thread the other socket's reader.
        final RingDutyCycle dutyCycle = new RingDutyCycle(f.rxDoorbell, f.channel::pollRx, 4);
        final AtomicLong actorFrames = new AtomicLong();
        final Thread actor = new Thread(() ->
        {
            int polls = 0;
            while (!done.get())
            {
                if (f.wakes.get() > polls)
                {
                    polls++;
                    actorFrames.addAndGet(dutyCycle.onPoll());
                }
                f.otherSubscription.poll(onOther, 64);
            }
        }, "rxq-actor");
        final Thread socket = new Thread(() ->
        {
            while (!done.get())
            {
                if (0 == f.busySubscription.poll(onDatagram, 64))
                {
                    poller.loop();
                }
            }
        }, "busy-socket");
        for (final Thread thread : List.of(actor, socket))
        {
            thread.setUncaughtExceptionHandler((t, ex) -> failure.set(ex));
            thread.start();
        }
        long sent = 0;
        final int[] burst = new int[16];
        while (sent < frames && System.nanoTime() < deadline && null == failure.get())
        {
            // Never more than half the device's RX ring in flight, so none is missed for want of room.
            if (sent - f.delivered() < 512)
            {
                for (int i = 0; i < burst.length; i++)
                {
                    burst[i] = 0 == (sent + i) % 5 ? OTHER_PORT : BUSY_PORT;
                }
                f.frames.send(f.sender, sent, burst);
                f.rxDoorbell.ring();
                sent += burst.length;
            }
            else
            {
                Thread.onSpinWait();
            }
        }
        final long total = sent;
        Await.until("every frame delivered", () -> f.delivered() == total || null != failure.get(),
            () -> f.delivered() + " of " + total);
        Await.until("the busy socket's datagrams read", () -> busyCount.get() >= total * 4 / 5 ||
            null != failure.get(), busyCount::get);
        done.set(true);
        actor.join();
        socket.join();
        assertNull(failure.get(), () -> "a runner failed: " + failure.get());
        otherGot.addAll(LoopFrames.drain(f.otherSubscription));

        assertEquals(0, f.driver.overlaps.get(), "two runners were in the RX queue at once");
        assertEquals(RunToken.FREE, f.channel.token().state());
        assertTrue(total > 0, "frames were sent");
        assertInOrderOnce(busyGot, total, false);
        assertInOrderOnce(otherGot, total, true);
        assertTrue(f.rxCounter(CounterType.BUSY_POLL_PACKETS) > 0, "the socket did take frames by busy polling");
        assertTrue(actorFrames.get() > 0, "and the actor ran the queue too");
    }

    /** 0, 1, … {@code count - 1}: the sequence numbers of {@code count} frames sent from 0. */
    private static List<Long> sequence(final int count)
    {
        final List<Long> numbers = new ArrayList<>();
        for (long i = 0; i < count; i++)
        {
            numbers.add(i);
        }
        return numbers;
    }

    private static void assertInOrderOnce(final LongArrayList got, final long total, final boolean other)
    {
        long expected = 0;
        for (int i = 0; i < got.size(); i++)
        {
            while (expected < total && (0 == expected % 5) != other)
            {
                expected++;
            }
            assertEquals(expected, got.getLong(i), "frame " + i + " of the " + (other ? "other" : "busy") + " socket");
            expected++;
        }
        while (expected < total && (0 == expected % 5) != other)
        {
            expected++;
        }
        assertEquals(total, expected, "frames missing from the " + (other ? "other" : "busy") + " socket");
    }

    private static List<Long> toList(final LongArrayList values)
    {
        final List<Long> list = new ArrayList<>();
        for (int i = 0; i < values.size(); i++)
        {
            list.add(values.getLong(i));
        }
        return list;
    }

    /** The device, the two sockets, RX queue 0 of port 1 and its channel (no completions side). */
    private final class Fixture
    {
        final NicDriver sender;
        final RecordingDriver driver;
        final RxQueueEngine rx;
        final Channel channel;
        /** The RX queue's actor's doorbell: IDLE until rung; each ring from IDLE is one Poll counted in wakes. */
        final RingDoorbell rxDoorbell;
        final AtomicInteger wakes = new AtomicInteger();
        final LoopFrames frames = new LoopFrames();
        final PacketPublication busyRing;
        final PacketSubscription busySubscription;
        final PacketSubscription otherSubscription;
        private final CountersFile counters;

        Fixture()
        {
            final String name = "channel-" + ProcessHandle.current().pid();
            final NicDevice device = NicDevice.open("loop:tx=1,rx=1,ring=1024,frame=2048,rate=0");
            resources.add(device);
            counters = CountersFile.create(name, CountersFile.DEFAULT_DIRECTORY, CountersFile.DEFAULT_CAPACITY);
            resources.add(counters);
            final Rings rings = Rings.launch(name, RingsConfig.defaults()
                .withMaxFrameLength(Math.max(device.port(1).maxFrame(), RingsConfig.MIN_FRAME_LENGTH))
                .withIpcTermLength(1 << 22));
            resources.add(rings);
            sender = device.port(0);
            driver = new RecordingDriver(device.port(1));
            final RingDoorbell socketDoorbell = new RingDoorbell(() -> { });
            busyRing = rings.addPublication(2000, socketDoorbell);
            busySubscription = rings.addSubscription(2000, socketDoorbell);
            final PacketPublication otherRing = rings.addPublication(2001, socketDoorbell);
            otherSubscription = rings.addSubscription(2001, socketDoorbell);
            Await.until("the sockets' rings to connect",
                () -> busySubscription.isConnected() && otherSubscription.isConnected(), () -> busySubscription);
            final PortContext context = new PortContext(1, PortAddress.defaultFor(1, 2),
                new PacketPublication[][]{{busyRing, busyRing, busyRing}}, new QdiscRunner[1], FlowHasher.random(),
                driver.maxFrame(), QueueMap.create(1, 1, 1), new SendGate(), null);
            final SocketTable sockets = new SocketTable();
            sockets.put(LoopFrames.socket(1, context, counters, BUSY_PORT, busyRing, busySubscription));
            sockets.put(LoopFrames.socket(2, context, counters, OTHER_PORT, otherRing, otherSubscription));
            // The RX queue's actor, idle: a ring of its doorbell is a wake-up (a Poll sent).
            rxDoorbell = new RingDoorbell(wakes::incrementAndGet);
            rx = new RxQueueEngine(1, 0, driver, sockets, rxDoorbell, 64, counters, null);
            channel = new Channel(1, 0, driver, rx, rxDoorbell, null, null, null, counters);
        }

        BusyPoller poller(final BusyPoll settings)
        {
            return new BusyPoller(new Channel[]{channel}, settings, busyRing, busySubscription);
        }

        /** A poller whose thread has other actors waiting whenever {@code othersWaiting} says so. */
        BusyPoller poller(final BusyPoll settings, final AtomicBoolean othersWaiting)
        {
            return new BusyPoller(new Channel[]{channel}, settings, busyRing, busySubscription, othersWaiting::get);
        }

        long rxCounter(final CounterType type)
        {
            return counters.value(type, CounterScope.rxq(1, 0));
        }

        long delivered()
        {
            return rxCounter(CounterType.RX_DELIVERED);
        }
    }

    /**
     * Port 1 of the device, recording the first armings of RX queue 0's interrupt and counting callers found inside its RX
     * calls while another was there.
     */
    private static final class RecordingDriver implements NicDriver
    {
        final List<Boolean> arms = new ArrayList<>();
        final AtomicInteger overlaps = new AtomicInteger();
        /** Run once, inside the next RX call: what another thread does while the caller holds the channel. */
        Runnable duringRx;
        private final AtomicInteger inside = new AtomicInteger();
        private final NicDriver port;

        RecordingDriver(final NicDriver port)
        {
            this.port = port;
        }

        @Override
        public int rxBurst(final int queue, final RxBurst burst)
        {
            enter();
            try
            {
                final Runnable during = duringRx;
                duringRx = null;
                if (null != during)
                {
                    during.run();
                }
                return port.rxBurst(queue, burst);
            }
            finally
            {
                inside.decrementAndGet();
            }
        }

        @Override
        public int rxRelease(final int queue, final int count)
        {
            enter();
            try
            {
                return port.rxRelease(queue, count);
            }
            finally
            {
                inside.decrementAndGet();
            }
        }

        @Override
        public synchronized int armRx(final int queue, final boolean armed)
        {
            if (arms.size() < 16)
            {
                arms.add(armed);
            }
            return port.armRx(queue, armed);
        }

        private void enter()
        {
            if (0 != inside.getAndIncrement())
            {
                overlaps.incrementAndGet();
            }
        }

        @Override
        public int port()
        {
            return port.port();
        }

        @Override
        public int txQueueCount()
        {
            return port.txQueueCount();
        }

        @Override
        public int rxQueueCount()
        {
            return port.rxQueueCount();
        }

        @Override
        public int ringSize()
        {
            return port.ringSize();
        }

        @Override
        public int maxFrame()
        {
            return port.maxFrame();
        }

        @Override
        public int txBurst(final int queue, final DescriptorBatch batch)
        {
            return port.txBurst(queue, batch);
        }

        @Override
        public int txReclaim(final int queue, final TxCompletion out)
        {
            return port.txReclaim(queue, out);
        }

        @Override
        public QueueStats stats(final int queue)
        {
            return port.stats(queue);
        }

        @Override
        public void fault(final NicFault fault, final int queue, final long value)
        {
            port.fault(fault, queue, value);
        }

        @Override
        public void txReset(final int queue)
        {
            port.txReset(queue);
        }

        @Override
        public void setRssKey(final byte[] key)
        {
            port.setRssKey(key);
        }

        @Override
        public void setRssIndirection(final int[] table)
        {
            port.setRssIndirection(table);
        }
    }
}
