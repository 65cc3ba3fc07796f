package io.xmit.transport.ring;

/**
 * One bounded poll of a consumer's rings, the unit of work of a {@link RingDutyCycle}: for example
 * {@code () -> subscription.poll(handler, 64)}. Keep the instance in a field; a lambda made per call allocates.
 */
@FunctionalInterface
public interface RingPoller
{
    /**
     * Polls once, up to a limit.
     *
     * @return how much work was done (frames, blocks or bytes); 0 if the rings were empty.
     */
    int poll();
}
