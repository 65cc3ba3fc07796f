package io.xmit.actors.cpu;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.lang.invoke.VarHandle;
import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The run queue of one xmit CPU: the mailboxes waiting for its one thread. Scheduling a mailbox and the CPU going to
 * sleep allocate nothing, where the JDK's blocking queues allocate a node per element or per wait (a CPU that goes idle
 * between bursts would allocate each time). Many threads offer; only the CPU's own thread takes.
 * <p>
 * Sleeping and waking follow the same rule as the rings' doorbell: the taker publishes itself as the waiter, fences,
 * and looks once more before parking; an offerer fences after adding and unparks a published waiter. So an element
 * offered while the taker goes to sleep is always seen by one of them.
 */
final class CpuRunQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable>
{
    private final ManyToOneConcurrentArrayQueue<Runnable> queue;
    private volatile Thread waiter;

    CpuRunQueue(final int capacity)
    {
        queue = new ManyToOneConcurrentArrayQueue<>(capacity);
    }

    @Override
    public boolean offer(final Runnable task)
    {
        if (!queue.offer(task))
        {
            return false;
        }
        VarHandle.fullFence();
        final Thread sleeping = waiter;
        if (null != sleeping)
        {
            LockSupport.unpark(sleeping);
        }
        return true;
    }

    @Override
    public void put(final Runnable task) throws InterruptedException
    {
        while (!offer(task))
        {
            if (Thread.interrupted())
            {
                throw new InterruptedException();
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public boolean offer(final Runnable task, final long timeout, final TimeUnit unit)
    {
        return offer(task);
    }

    @Override
    public Runnable take() throws InterruptedException
    {
        while (true)
        {
            final Runnable next = queue.poll();
            if (null != next)
            {
                return next;
            }
            await(Long.MAX_VALUE);
        }
    }

    @Override
    public Runnable poll(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true)
        {
            final Runnable next = queue.poll();
            if (null != next)
            {
                return next;
            }
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                return null;
            }
            await(left);
        }
    }

    private void await(final long nanos) throws InterruptedException
    {
        waiter = Thread.currentThread();
        VarHandle.fullFence();
        if (queue.isEmpty())
        {
            if (Long.MAX_VALUE == nanos)
            {
                LockSupport.park(this);
            }
            else
            {
                LockSupport.parkNanos(this, nanos);
            }
        }
        waiter = null;
        if (Thread.interrupted())
        {
            throw new InterruptedException();
        }
    }

    @Override
    public Runnable poll()
    {
        return queue.poll();
    }

    @Override
    public Runnable peek()
    {
        return queue.peek();
    }

    @Override
    public int size()
    {
        return queue.size();
    }

    @Override
    public boolean isEmpty()
    {
        return queue.isEmpty();
    }

    @Override
    public int remainingCapacity()
    {
        return queue.remainingCapacity();
    }

    /** Not supported: a scheduled mailbox stays scheduled (the executor only asks while shutting down). */
    @Override
    public boolean remove(final Object task)
    {
        return false;
    }

    @Override
    public int drainTo(final Collection<? super Runnable> target)
    {
        return drainTo(target, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(final Collection<? super Runnable> target, final int maxElements)
    {
        int drained = 0;
        Runnable next;
        while (drained < maxElements && null != (next = queue.poll()))
        {
            target.add(next);
            drained++;
        }
        return drained;
    }

    /** Empty: the queue's elements are only for its taker (this keeps {@code toString} and friends safe). */
    @Override
    public Iterator<Runnable> iterator()
    {
        return Collections.emptyIterator();
    }
}
