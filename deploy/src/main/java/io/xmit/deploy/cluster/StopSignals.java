package io.xmit.deploy.cluster;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.List;
import java.util.function.Consumer;

/**
 * Ctrl-C (SIGINT) and SIGTERM as a request to stop, not as the JVM's shutdown: a node must leave the cluster and
 * then exit 0, and the JVM's own handling would run its shutdown hooks and exit 130 or 143 whatever they did. The
 * handlers replace the JVM's, so the command decides when and with which code to exit.
 */
final class StopSignals
{
    private StopSignals()
    {
    }

    /**
     * @param stopOn  signals that ask to stop ({@code INT}, {@code TERM}): each calls {@code onStop} with a few words
     *                naming it.
     * @param ignored signals to ignore: a node that {@code xmit cluster local} started ignores Ctrl-C, which the
     *                terminal sends its whole process group, because its parent stops the nodes one by one.
     */
    static void install(final List<String> stopOn, final List<String> ignored, final Consumer<String> onStop)
    {
        for (final String name : stopOn)
        {
            Signal.handle(new Signal(name), signal -> onStop.accept("SIG" + signal.getName()));
        }
        for (final String name : ignored)
        {
            Signal.handle(new Signal(name), SignalHandler.SIG_IGN);
        }
    }
}
