package io.xmit.actors;

import io.xmit.pipeline.xps.QueueMap;

/**
 * The answer to a change of a port's queue map ({@link Pipeline#setXpsCpus}, {@link Pipeline#setXpsRxqs},
 * {@link Pipeline#setTxQueueCount}).
 *
 * @param applied true if the map changed (or already was as asked).
 * @param message what changed, or why it was refused, naming the input.
 * @param map     the map in force after the command.
 */
public record XpsChange(boolean applied, String message, QueueMap map)
{
}
