package io.xmit.actors.internal.host;

import io.xmit.pipeline.xps.QueueMap;
import io.xmit.pipeline.xps.XpsMask;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The TX queue of the port host's ARP and ICMP answers: the departure kept from the kernel (kernel-semantics §3.2,
 * "Where xmit differs"), the queue paired with the RX queue answered, never the sending CPU's XPS queue or a hash.
 */
class AnswerQueueTest
{
    @Test
    void xpsByTheAnsweredRxQueueWinsAndTheCpuMapIsNeverConsulted()
    {
        final QueueMap map = QueueMap.create(4, 2, 8)
            .withXpsRxqs(3, XpsMask.of(8, 1))
            .withXpsCpus(2, XpsMask.of(2, 0, 1));
        assertEquals(3, HostEngine.answerQueue(map, 1));
        assertEquals(0, HostEngine.answerQueue(map, 0), "no rxqs entry: RX queue 0's own number, not the CPU map's 2");
    }

    @Test
    void withoutAnEntryTheRxQueueIsFoldedOntoTheRealTxQueues()
    {
        final QueueMap map = QueueMap.create(4, 2, 8);
        assertEquals(2, HostEngine.answerQueue(map, 2));
        assertEquals(1, HostEngine.answerQueue(map, 5));
        assertEquals(1, HostEngine.answerQueue(map.withRealNumTx(3), 7));
    }
}
