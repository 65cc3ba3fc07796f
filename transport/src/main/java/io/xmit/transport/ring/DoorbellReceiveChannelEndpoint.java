package io.xmit.transport.ring;

import io.aeron.driver.DataPacketDispatcher;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.media.ReceiveChannelEndpoint;
import io.aeron.driver.media.UdpChannel;
import io.aeron.protocol.DataHeaderFlyweight;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.net.InetSocketAddress;

/**
 * The receive hook of {@link NetworkRings}' driver: Aeron's UDP receive endpoint, which after writing each data
 * datagram into its stream's image rings that stream's doorbell, so a UDP ring's consumer sleeps and wakes by the
 * same protocol as an IPC ring's (stack.md, "Actors draining Aeron rings"). Installed through
 * {@code MediaDriver.Context.receiveChannelEndpointSupplier}, as Aeron's own {@code DebugReceiveChannelEndpoint} is;
 * a subclass of a driver class, so each new Aeron version must be checked against it (docs/cluster.md).
 * <p>
 * Runs on the driver's receiver thread, once per datagram (which may carry many frames). Heartbeats (no frame) ring
 * nothing. A datagram that arrives before its image exists is dropped by Aeron and sent again; the image's arrival
 * rings the doorbell from the subscription's side.
 */
final class DoorbellReceiveChannelEndpoint extends ReceiveChannelEndpoint
{
    private final NetworkDoorbells doorbells;

    DoorbellReceiveChannelEndpoint(
        final UdpChannel udpChannel,
        final DataPacketDispatcher dispatcher,
        final AtomicCounter statusIndicator,
        final MediaDriver.Context context,
        final NetworkDoorbells doorbells)
    {
        super(udpChannel, dispatcher, statusIndicator, context);
        this.doorbells = doorbells;
    }

    @Override
    public int onDataPacket(
        final DataHeaderFlyweight header,
        final UnsafeBuffer buffer,
        final int length,
        final InetSocketAddress srcAddress,
        final int transportIndex)
    {
        final int bytesReceived = super.onDataPacket(header, buffer, length, srcAddress, transportIndex);
        if (header.frameLength() > 0)
        {
            doorbells.onFrames(header.streamId());
        }
        return bytesReceived;
    }
}
