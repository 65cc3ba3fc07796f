package io.xmit.actors;

import java.util.List;

/** One poll's worth of received datagrams, in arrival order, sent to an application actor. */
public record Datagrams(List<Datagram> datagrams)
{
}
