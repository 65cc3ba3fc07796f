package io.xmit.transport.nic;

/**
 * Receives RX interrupts on the device's interrupt thread: an armed RX queue got frames. The queue is disarmed
 * by then; the handler should schedule one poll of it (the actor pipeline sends one {@code Poll}) and return
 * quickly.
 */
@FunctionalInterface
public interface RxInterruptHandler
{
    void onRxInterrupt(int port, int queue);
}
