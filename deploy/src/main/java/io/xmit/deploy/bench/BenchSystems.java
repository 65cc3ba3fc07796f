package io.xmit.deploy.bench;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import akka.actor.typed.ActorSystem;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/**
 * The ActorSystems of the variants and rounds that run actors: each round has a system of its own, so it logs
 * quietly, leaves the JVM's shutdown alone, and is terminated within a bounded time before the next one starts.
 */
final class BenchSystems
{
    static final long TERMINATION_TIMEOUT_SECONDS = 10;

    private static final String QUIET =
        "akka.loglevel = WARNING\n" +
        "akka.stdout-loglevel = WARNING\n" +
        "akka.log-dead-letters = off\n" +
        "akka.log-dead-letters-during-shutdown = off\n" +
        "akka.jvm-shutdown-hooks = off\n" +
        "akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n";

    private BenchSystems()
    {
    }

    /** Quiet logging, and no JVM shutdown hook. */
    static Config quietConfig()
    {
        return ConfigFactory.parseString(QUIET);
    }

    /**
     * Terminates {@code system} and waits up to {@link #TERMINATION_TIMEOUT_SECONDS} for it.
     *
     * @throws IllegalStateException if it did not terminate in time or the wait was interrupted.
     */
    static void terminate(final ActorSystem<?> system)
    {
        system.terminate();
        try
        {
            system.getWhenTerminated().toCompletableFuture().get(TERMINATION_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(system.name() + ": interrupted while terminating", ex);
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            throw new IllegalStateException(system.name() + " did not terminate within " +
                TERMINATION_TIMEOUT_SECONDS + " s", ex);
        }
    }
}
