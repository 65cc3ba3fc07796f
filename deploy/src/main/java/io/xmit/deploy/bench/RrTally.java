package io.xmit.deploy.bench;

/**
 * What the flows of an {@code rr} round counted, summed over the flows ({@link RrFlow}); the difference of two is what
 * happened in between. A transaction is a request and its reply; a hop is a frame handed between two CPUs on its way
 * ({@link RrFlow} says where each is counted).
 *
 * @param requests      requests the clients' sockets accepted.
 * @param transactions  replies the clients received: completed transactions.
 * @param requestTxHops requests put on a TX queue whose qdisc runs on another CPU than the client socket.
 * @param requestRxHops requests that arrived on an RX queue of another CPU than the server socket.
 * @param replyTxHops   replies put on a TX queue whose qdisc runs on another CPU than the server socket.
 * @param replyRxHops   replies that arrived on an RX queue of another CPU than the client socket.
 * @param crossCpu      replies whose TX queue runs on another CPU than their request's RX queue: what XPS by RX queue
 *                      brings to 0.
 * @param refused       sends refused: a refused request ends its flow; a refused reply is a lost transaction.
 * @param lost          transactions the client gave up on after {@link RrFlow#TIMEOUT_NANOS} without a reply.
 * @param late          replies that came after their transaction was counted lost; their RTT is not recorded.
 */
record RrTally(long requests, long transactions, long requestTxHops, long requestRxHops, long replyTxHops,
    long replyRxHops, long crossCpu, long refused, long lost, long late)
{
    static final RrTally ZERO = new RrTally(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    RrTally plus(final RrTally other)
    {
        return new RrTally(requests + other.requests, transactions + other.transactions,
            requestTxHops + other.requestTxHops, requestRxHops + other.requestRxHops, replyTxHops + other.replyTxHops,
            replyRxHops + other.replyRxHops, crossCpu + other.crossCpu, refused + other.refused, lost + other.lost,
            late + other.late);
    }

    RrTally minus(final RrTally earlier)
    {
        return new RrTally(requests - earlier.requests, transactions - earlier.transactions,
            requestTxHops - earlier.requestTxHops, requestRxHops - earlier.requestRxHops,
            replyTxHops - earlier.replyTxHops, replyRxHops - earlier.replyRxHops, crossCpu - earlier.crossCpu,
            refused - earlier.refused, lost - earlier.lost, late - earlier.late);
    }

    /** Cross-CPU hops per transaction, 0 to 4: the four kinds summed. */
    double hopsPerTransaction()
    {
        return perTransaction(requestTxHops + requestRxHops + replyTxHops + replyRxHops);
    }

    /** {@code count} over the transactions, 0 when there were none. */
    double perTransaction(final long count)
    {
        return transactions > 0 ? (double)count / transactions : 0.0;
    }
}
