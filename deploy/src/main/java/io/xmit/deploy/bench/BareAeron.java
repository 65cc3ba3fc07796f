package io.xmit.deploy.bench;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.xmit.transport.ring.DataPlaneConfig;
import io.xmit.transport.ring.RingsConfig;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * One end of the {@code cluster} bench's ceiling, {@code aeron-udp}: an embedded media driver as the data path's
 * ({@code SHARED} threading, {@link BackoffIdleStrategy}), one publication to the other end's port on 127.0.0.1 and
 * one subscription on its own, with the channel settings of the data path's rings ({@link DataPlaneConfig#forFrames}:
 * MTU, term, window, receive buffer), and a thread that polls the subscription with the same idle strategy. Messages
 * are {@link #MESSAGE} bytes, what the data path puts on the wire for one request: the xmit header and the frame.
 * No xmit header is written or read, no queue, qdisc, socket table or actor: Aeron alone.
 */
final class BareAeron implements AutoCloseable
{
    /** The xmit header and the Ethernet frame of a {@link BenchPipeline#PAYLOAD}-byte UDP request. */
    static final int MESSAGE = 32 + BenchPipeline.HEADERS + BenchPipeline.PAYLOAD;
    static final int PING_STREAM = 1001;
    static final int PONG_STREAM = 1002;

    private final MediaDriver driver;
    private final Aeron aeron;
    private final Publication publication;
    private final Subscription subscription;
    private final String name;
    private final String remote;
    private final DataPathThreads threads;
    private Thread poller;
    private volatile boolean running = true;

    /**
     * @param localPort  the port this end receives on.
     * @param remotePort the port of the other end.
     */
    BareAeron(final String name, final int localPort, final int inStream, final int remotePort, final int outStream,
        final DataPathThreads threads)
    {
        this.name = name;
        this.remote = "127.0.0.1:" + remotePort + " stream " + outStream;
        this.threads = threads;
        final RingsConfig rings = RingsConfig.defaults().withMaxFrameLength(BenchClusterNodes.MAX_FRAME);
        final DataPlaneConfig plane = DataPlaneConfig.forFrames(rings);
        driver = MediaDriver.launchEmbedded(new MediaDriver.Context()
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true));
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName())
            .clientName("xmit-bench-" + name));
        final ExclusivePublication out = aeron.addExclusivePublication("aeron:udp?endpoint=127.0.0.1:" + remotePort +
            "|mtu=" + plane.mtuLength() + "|term-length=" + plane.termLength(), outStream);
        publication = out;
        subscription = aeron.addSubscription("aeron:udp?endpoint=127.0.0.1:" + localPort +
            "|so-rcvbuf=" + plane.socketRcvbufLength() + "|rcv-wnd=" + plane.receiverWindowLength(), inStream);
    }

    /** Starts the poller thread, which hands each message received to {@code onMessage}. */
    void start(final FragmentHandler onMessage)
    {
        poller = new Thread(() ->
        {
            threads.enter();
            final IdleStrategy idle = new BackoffIdleStrategy();
            while (running)
            {
                idle.idle(subscription.poll(onMessage, 64));
            }
        }, "xmit-bench-" + name + "-poller");
        poller.setDaemon(true);
        poller.start();
    }

    /**
     * Waits up to {@code timeout} until the other end's subscription answers this end's publication: until then an
     * offer is refused {@code NOT_CONNECTED}.
     */
    void awaitConnected(final java.time.Duration timeout)
    {
        BenchClusterNodes.await(name + "'s publication to " + remote + " connected", publication::isConnected,
            timeout);
    }

    /** Offers one message; true if it was taken, false if back-pressured or not yet connected. */
    boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        return publication.offer(buffer, offset, length) > 0;
    }

    /**
     * Offers, retrying a back-pressured message (or one Aeron asks to retry, {@code ADMIN_ACTION}) up to
     * {@link BenchPipeline#REPLY_TRIES} times; counts the outcome. Any other refusal ({@code NOT_CONNECTED},
     * {@code CLOSED}, {@code MAX_POSITION_EXCEEDED}) is counted at once: retrying would not change it.
     */
    void echo(final DirectBuffer buffer, final int offset, final int length, final EchoCounts counts)
    {
        int tries = 0;
        long result;
        while (((result = publication.offer(buffer, offset, length)) == Publication.BACK_PRESSURED ||
            result == Publication.ADMIN_ACTION) && ++tries < BenchPipeline.REPLY_TRIES)
        {
            Thread.onSpinWait();
        }
        if (result > 0)
        {
            counts.echoed();
        }
        else if (result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION)
        {
            counts.backPressured();
        }
        else
        {
            counts.refused();
        }
    }

    @Override
    public void close()
    {
        running = false;
        try
        {
            if (null != poller)
            {
                poller.join(5_000);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        CloseHelper.closeAll(aeron, driver);
    }
}
