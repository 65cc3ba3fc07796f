package com.example.echo;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.SendResult;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.UdpSocket;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** A UDP echo service and its client on xmit's loop device: port 0 (10.0.0.1) to port 1 (10.0.0.2). */
public final class EchoApp
{
    public static void main(final String[] args) throws InterruptedException
    {
        final ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "app");
        try (Pipeline pipeline = Pipeline.start(system))   // the xmit { … } of application.conf
        {
            // The server echoes on the CPU the request arrived on, from the handler: no copy, no allocation.
            final UnsafeBuffer out = new UnsafeBuffer(new byte[2048]);
            pipeline.openUdp(SocketOptions.udp4(7).handler((socket, request) ->
            {
                out.putBytes(0, request.buffer(), request.payloadOffset(), request.payloadLength());
                socket.reply(request, out, 0, request.payloadLength());
            }));

            final BlockingQueue<String> replies = new ArrayBlockingQueue<>(16);
            final UdpSocket client = pipeline.openUdp(SocketOptions.udp4(40000).onPort(1)
                .connect(Endpoint.of("10.0.0.1", 7))
                .handler((socket, reply) -> replies.add(new String(reply.payload(), StandardCharsets.UTF_8))));

            for (int i = 1; i <= 3; i++)
            {
                final byte[] text = ("ping " + i).getBytes(StandardCharsets.UTF_8);
                long result;
                while (SendResult.BACK_PRESSURED == (result = client.send(new UnsafeBuffer(text), 0, text.length)))
                {
                    Thread.onSpinWait();   // the TX queue's ring is full: retry
                }
                if (result < 0)
                {
                    throw new IllegalStateException("send refused: " + SendResult.name(result));   // STOPPED, …
                }
                System.out.println("echo: " + replies.poll(5, TimeUnit.SECONDS));
            }
        }
        finally
        {
            system.terminate();   // the actor system's threads would keep the JVM running
        }
    }
}
