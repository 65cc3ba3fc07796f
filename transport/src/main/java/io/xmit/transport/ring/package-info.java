/**
 * The Aeron IPC packet rings that carry frames between pipeline stages: {@link io.xmit.transport.ring.Rings} owns a
 * pipeline's embedded media driver and client; a {@link io.xmit.transport.ring.PacketPublication} (many producers)
 * and a {@link io.xmit.transport.ring.PacketSubscription} (one consumer) move frames, each behind its
 * {@link io.xmit.pipeline.frame.RingFrameHeader}, without allocation. The wake-up protocol that lets a consumer sleep
 * without stranding a frame is {@link io.xmit.transport.ring.RingDoorbell} (producers) and
 * {@link io.xmit.transport.ring.RingDutyCycle} (the consumer). {@link io.xmit.transport.ring.NetworkRings} adds rings
 * between nodes over Aeron UDP, with the same frames and handles, whose receiving driver rings the consumer's doorbell.
 */
package io.xmit.transport.ring;
