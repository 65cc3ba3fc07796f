package io.xmit.pipeline.qdisc;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DescriptorBatchTest
{
    @Test
    void descriptorsSitInNativeMemoryInTheShimsLayout()
    {
        final DescriptorBatch batch = new DescriptorBatch(4);
        assertTrue(batch.addExternal(0x1122_3344_5566_7788L, 1514, 6));
        assertTrue(batch.addExternal(0x0000_7F00_0000_1000L, 64, 0));

        assertEquals(0, batch.descriptorsAddress() % 64, "64-byte aligned");
        final UnsafeBuffer raw = new UnsafeBuffer(batch.descriptorsAddress(), 4 * DescriptorBatch.DESCRIPTOR_LENGTH);
        assertEquals(0x1122_3344_5566_7788L, raw.getLong(0));
        assertEquals(1514, raw.getInt(8));
        assertEquals(0, raw.getInt(12));
        assertEquals(0x0000_7F00_0000_1000L, raw.getLong(16));
        assertEquals(64, raw.getInt(24));
        assertEquals(0, raw.getInt(28));

        assertEquals(2, batch.size());
        assertEquals(1514 + 64, batch.bytes());
        assertEquals(6, batch.priority(0));
        assertTrue(batch.isExternal(1));
    }

    @Test
    void aFullBatchRefusesMore()
    {
        final DescriptorBatch batch = new DescriptorBatch(1);
        assertTrue(batch.addExternal(64, 64, 0));
        assertFalse(batch.addExternal(128, 64, 0));
        assertEquals(0, batch.remaining());
        batch.clear();
        assertTrue(batch.isEmpty());
    }

    @Test
    void rejectsABadCapacityNamingIt()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> new DescriptorBatch(0));
        assertEquals("batch capacity 0 is not in 1..65536", ex.getMessage());
    }
}
