package io.xmit.deploy.bench;

import java.time.Duration;

import akka.actor.typed.ActorSystem;
import io.xmit.actors.DatagramHandler;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The pipeline of the {@code cluster} bench's single node and of its edge: the {@code loop} device with 2 CPUs, the
 * service {@code echo} on port A ({@link #SERVICE}, a reuseport group), and the clients on port B, one unconnected
 * socket per flow, whose replies end in the {@link PacedLoad}. Where the service's sockets are (on this node, or on
 * app nodes behind the data path) is the variant's business. The rings are the pipeline's defaults: smaller socket
 * rings overflow under the bursts a loaded machine makes of a steady rate.
 */
final class BenchPipeline implements AutoCloseable
{
    static final Endpoint SERVICE = Endpoint.of("10.0.0.1", 7);
    static final int CPUS = 2;
    static final String DEVICE = "loop:tx=2,rx=2,ring=1024,frame=2048,rate=0";
    /** A request's UDP payload: its send time, then padding. */
    static final int PAYLOAD = 32;
    /** The Ethernet, IPv4 and UDP headers in front of the payload. */
    static final int HEADERS = 14 + 20 + 8;
    static final int CLIENT_PORT = 20_000;
    /** Where an echo that names its node writes the node's number into the reply: after the send time. */
    static final int NODE_OFFSET = Long.BYTES;
    /** An echo retries a back-pressured reply this many times before it gives up on it. */
    static final int REPLY_TRIES = 100_000;
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(10);

    private final Pipeline pipeline;
    private final PacedLoad load;
    private final DataPathThreads threads;
    private UdpSocket[] clients;

    BenchPipeline(final ActorSystem<?> system, final String name, final DataPathThreads threads)
    {
        this.threads = threads;
        this.pipeline = Pipeline.start(system, PipelineConfig.builder().name(name).cpus(CPUS).device(DEVICE).build());
        this.load = new PacedLoad(PAYLOAD, threads);
    }

    Pipeline pipeline()
    {
        return pipeline;
    }

    PacedLoad load()
    {
        return load;
    }

    /** Opens {@code sockets} sockets of the service on this pipeline, spread over the CPUs, each echoing. */
    void openLocalService(final int sockets, final EchoCounts counts)
    {
        for (int s = 0; s < sockets; s++)
        {
            pipeline.openUdp(SocketOptions.udp4(SERVICE.port()).reusePort(true).onCpu(s % CPUS)
                .handler(echo(threads, counts)));
        }
    }

    /**
     * A service socket's handler: the request's payload copied into the socket's own buffer (its handler runs on one
     * thread at a time) and sent back as the reply, a back-pressured reply retried up to {@link #REPLY_TRIES} times.
     */
    static DatagramHandler echo(final DataPathThreads threads, final EchoCounts counts)
    {
        return echo(threads, counts, FailoverBook.NONE);
    }

    /**
     * As {@link #echo(DataPathThreads, EchoCounts)}, the reply carrying {@code node} at {@link #NODE_OFFSET} unless it
     * is {@link FailoverBook#NONE}: the failover phase's edge knows who answered.
     */
    static DatagramHandler echo(final DataPathThreads threads, final EchoCounts counts, final int node)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
        return (socket, request) ->
        {
            threads.enter();
            buffer.putBytes(0, request.buffer(), request.payloadOffset(), request.payloadLength());
            if (FailoverBook.NONE != node)
            {
                buffer.putInt(NODE_OFFSET, node);
            }
            long result;
            int tries = 0;
            while ((result = socket.reply(request, buffer, 0, request.payloadLength())) == SendResult.BACK_PRESSURED &&
                ++tries < REPLY_TRIES)
            {
                Thread.onSpinWait();
            }
            if (result > 0)
            {
                counts.echoed();
            }
            else if (SendResult.BACK_PRESSURED == result)
            {
                counts.backPressured();
            }
            else
            {
                counts.refused();
            }
        };
    }

    /** Opens the clients, one per flow, and starts offering {@code rate} requests per second. */
    void startLoad(final long rate, final int flows)
    {
        clients = new UdpSocket[flows];
        for (int f = 0; f < flows; f++)
        {
            clients[f] = pipeline.openUdp(SocketOptions.udp4(CLIENT_PORT + f).onPort(1).onCpu(f % CPUS)
                .handler((socket, reply) ->
                {
                    threads.enter();
                    load.replied(reply.buffer(), reply.payloadOffset());
                }));
        }
        final UdpSocket[] sockets = clients;
        load.start(rate, flows, (flow, payload, length) ->
        {
            final long result = sockets[flow].sendTo(SERVICE, payload, 0, length);
            return result > 0 ? RequestPacer.NEXT : SendResult.BACK_PRESSURED == result ||
                SendResult.SEND_BUFFER_FULL == result ? RequestPacer.RETRY : RequestPacer.STOP;
        });
    }

    @Override
    public void close()
    {
        pipeline.stop(STOP_DEADLINE);
    }
}
