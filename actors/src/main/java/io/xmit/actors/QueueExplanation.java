package io.xmit.actors;

import io.xmit.pipeline.xps.SelectionRule;

/**
 * Which TX queue a flow's next packet would take, and why ({@link Pipeline#explain}).
 *
 * @param txQueue  the queue chosen.
 * @param rule     the rule that chose it.
 * @param flowHash the flow's hash.
 * @param text     one line for people.
 */
public record QueueExplanation(int txQueue, SelectionRule rule, int flowHash, String text)
{
}
