package io.xmit.deploy.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.xmit.deploy.LiveOutput;

/**
 * The failover phase of {@code xmit bench cluster} (issue 16): an edge and {@link ClusterBench#APP_NODES} app nodes,
 * each in a JVM of its own ({@link FailoverChild}), the edge offering a fixed rate over the flows; then, kill after
 * kill, one app node is killed with SIGKILL and the phase measures the <b>failover time</b>, from the kill until every
 * flow the node was answering has been answered by a survivor (the max over those flows, and their median), and the
 * <b>removal time</b>, from the kill until the edge's membership removed the node; the load stops and the books of the
 * whole run are checked as the failure test checks them ({@link FailoverEdge#balance}); a fresh app node (a new
 * incarnation) is started and the load resumes once it answers its share of the flows, so every kill sees the same
 * topology. Both times are what {@link BenchClusterNodes#system}'s failure detector (heartbeat 1 s, acceptable pause
 * 3 s), split-brain resolver (stable-after 3 s) and the edge's reaction to unreachability and removal make them. Every
 * wait is bounded; every JVM is killed at the end, whatever happened (and on Ctrl-C, by {@link BenchProcess}'s hook).
 */
public final class FailoverPhase
{
    private static final Duration READY = Duration.ofSeconds(90);
    private static final Duration COMMAND = Duration.ofSeconds(30);
    /** {@code load} waits on the edge for every app node's sockets to be steered to. */
    private static final Duration LOAD = Duration.ofSeconds(90);
    /** Unreachable after the acceptable pause, removed after stable-after: 7 s, and a margin for a loaded machine. */
    private static final Duration FAILOVER = Duration.ofSeconds(60);
    /** The load's requests in flight at quiet, answered or counted lost. */
    private static final Duration SETTLE = Duration.ofSeconds(20);
    private static final int SOCKETS = ClusterBench.APP_NODES * ClusterBench.SOCKETS_PER_NODE;

    /**
     * @param kills app nodes killed one after another; 0 skips the phase.
     * @param rate  requests offered per second, as in the bench's rounds.
     * @param flows client sockets the requests go round-robin over.
     */
    public record Options(int kills, long rate, int flows)
    {
        public static final int DEFAULT_KILLS = 3;
        public static final int QUICK_KILLS = 1;

        public Options
        {
            if (kills < 0 || rate < 1 || flows < 1)
            {
                throw new IllegalArgumentException("failover options out of range: " + kills + " kills, " + rate +
                    " requests/s, " + flows + " flows");
            }
        }

        /** Roughly: the cluster's start, and per kill the detection, the removal and a new node's start. */
        public long estimatedSeconds()
        {
            return 0 == kills ? 0 : 30 + kills * 30L;
        }
    }

    private FailoverPhase()
    {
    }

    public static FailoverResult run(final Options options, final LiveOutput out)
    {
        out.println(String.format(Locale.ROOT, "failover: an edge and %d app nodes of %d sockets, each in a JVM of " +
            "its own; %,d requests/s over %d flows; SIGKILLs of an app node: %d, each replaced by a new incarnation",
            ClusterBench.APP_NODES, ClusterBench.SOCKETS_PER_NODE, options.rate(), options.flows(), options.kills()));
        final List<BenchProcess> processes = new ArrayList<>();
        final List<FailoverResult.Kill> kills = new ArrayList<>();
        try
        {
            final String port = Integer.toString(ClusterBench.freePort(false));
            final BenchProcess edge = BenchProcess.start("edge", FailoverChild.class, "edge", port,
                Integer.toString(SOCKETS), Integer.toString(options.flows()));
            processes.add(edge);
            final AppProcess[] apps = new AppProcess[ClusterBench.APP_NODES];
            for (int n = 0; n < apps.length; n++)
            {
                apps[n] = new AppProcess(n + 1, BenchProcess.start("app-" + (n + 1), FailoverChild.class, "app", port,
                    Integer.toString(ClusterBench.SOCKETS_PER_NODE), Integer.toString(n + 1)));
                processes.add(apps[n].process());
            }
            edge.awaitReady(READY);
            for (final AppProcess app : apps)
            {
                app.ready();
            }
            load(edge, options, apps);
            final long[] books = new long[2];
            for (int k = 1; k <= options.kills(); k++)
            {
                final int slot = victim(edge, apps, k);
                final FailoverResult.Kill kill = kill(edge, apps[slot], books);
                kills.add(kill);
                out.println(String.format(Locale.ROOT, "  %d/%d kill app node %d: failover %.0f ms (median flow " +
                    "%.0f ms) over %d flows, removal %.0f ms, lost %d%s", k, options.kills(), apps[slot].node(),
                    kill.failoverMs(), kill.failoverMedianMs(), kill.flowsMoved(), kill.removalMs(), kill.lost(),
                    kill.balanced() ? "" : "; BOOKS DO NOT BALANCE: " + kill.books()));
                final int fresh = ClusterBench.APP_NODES + k;
                apps[slot] = new AppProcess(fresh, BenchProcess.start("app-" + fresh, FailoverChild.class, "app",
                    port, Integer.toString(ClusterBench.SOCKETS_PER_NODE), Integer.toString(fresh)));
                processes.add(apps[slot].process());
                apps[slot].ready();
                load(edge, options, apps);
            }
        }
        finally
        {
            processes.forEach(BenchProcess::quit);
            processes.forEach(BenchProcess::close);
        }
        out.finish();
        return new FailoverResult(String.format(Locale.ROOT, "an edge and %d app nodes of %d sockets in JVMs of " +
            "their own (%s each); %,d requests/s over %d flows; SIGKILLs: %d, each app node replaced; failure " +
            "detector heartbeat 1 s, acceptable pause 3 s; split-brain resolver keep-majority, stable-after 3 s",
            ClusterBench.APP_NODES, ClusterBench.SOCKETS_PER_NODE, BenchProcess.HEAP, options.rate(), options.flows(),
            options.kills()), kills);
    }

    /** An app node's JVM, the number its replies carry, and its cluster address once it is ready. */
    private static final class AppProcess
    {
        private final int node;
        private final BenchProcess process;
        private String address;

        AppProcess(final int node, final BenchProcess process)
        {
            this.node = node;
            this.process = process;
        }

        void ready()
        {
            process.awaitReady(READY);
            address = process.call("address", COMMAND);
        }

        int node()
        {
            return node;
        }

        BenchProcess process()
        {
            return process;
        }

        String address()
        {
            return address;
        }
    }

    /**
     * Starts the load once every socket is steered to, and waits until every flow was answered since and each app
     * node answers some: the topology every kill starts from.
     */
    private static void load(final BenchProcess edge, final Options options, final AppProcess[] apps)
    {
        final String started = edge.call("load " + options.rate(), LOAD);
        BenchClusterNodes.await("every flow answered and every app node answering flows", () ->
        {
            for (final AppProcess app : apps)
            {
                final String[] share = edge.call("share " + app.node() + " " + started, COMMAND).split(" ");
                if (Integer.parseInt(share[0]) == 0 || Integer.parseInt(share[1]) < options.flows())
                {
                    return false;
                }
            }
            return true;
        }, LOAD);
    }

    /** Kill {@code k}'s app node: the apps in turn, skipping one that answers no flow. */
    private static int victim(final BenchProcess edge, final AppProcess[] apps, final int k)
    {
        for (int i = 0; i < apps.length; i++)
        {
            final int slot = (k - 1 + i) % apps.length;
            if (!"0".equals(edge.call("share " + apps[slot].node() + " 0", COMMAND).split(" ")[0]))
            {
                return slot;
            }
        }
        throw new IllegalStateException("no app node answers a flow before kill " + k);
    }

    /**
     * SIGKILLs {@code app} under load, waits for its flows to move and its removal, then quiets the load and checks
     * the books: what this kill added to them must balance ({@code before}: the books after the last kill, whose
     * residual and undelivered count a kill that did not balance leaves to the next); the books now are put in
     * {@code before}.
     */
    private static FailoverResult.Kill kill(final BenchProcess edge, final AppProcess app, final long[] before)
    {
        edge.call("arm " + app.node(), COMMAND);
        final long killed = System.nanoTime();
        app.process().killNow();
        final String moved = awaitAnswer(edge, "moved", "every flow of app node " + app.node() +
            " answered by a survivor", FAILOVER);
        final String removed = awaitAnswer(edge, "removed " + app.address(), "app node " + app.node() + " (" +
            app.address() + ") removed from the edge's membership", FAILOVER);
        edge.call("quiet", COMMAND);
        final long settleBy = System.nanoTime() + SETTLE.toNanos();
        long[] books;
        String problems;
        do
        {
            final String[] balance = edge.call("balance " + app.address(), COMMAND).split(" ", 5);
            books = new long[] {Long.parseLong(balance[0]) - Long.parseLong(balance[1]), Long.parseLong(balance[2]),
                Long.parseLong(balance[3])};
            problems = balance.length > 4 ? balance[4].trim() : "";
        }
        while (books[0] != before[0] && System.nanoTime() < settleBy && pause());
        final List<String> unbalanced = new ArrayList<>();
        if (books[0] != before[0])
        {
            unbalanced.add((books[0] - before[0]) + " requests sent and neither answered, dropped on the edge nor " +
                "left unanswered by an app node");
        }
        if (books[1] != before[1])
        {
            unbalanced.add((books[1] - before[1]) + " replies dropped on the clients' port or requests refused");
        }
        if (!problems.isEmpty())
        {
            unbalanced.add(problems);
        }
        before[0] = books[0];
        before[1] = books[1];
        return FailoverResult.Kill.of(killed, Arrays.stream(moved.split(" ")).map(Long::parseLong).toList(),
            Long.parseLong(removed), books[2], String.join("; ", unbalanced));
    }

    /** Asks {@code command} until its answer is not empty or {@code -}, at most {@code timeout}. */
    private static String awaitAnswer(final BenchProcess edge, final String command, final String what,
        final Duration timeout)
    {
        final String[] answer = new String[1];
        BenchClusterNodes.await(what, () ->
        {
            answer[0] = edge.call(command, COMMAND);
            return !answer[0].isEmpty() && !"-".equals(answer[0]);
        }, timeout);
        return answer[0];
    }

    /** A short pause between two looks at the edge; true, to go on looking. */
    private static boolean pause()
    {
        try
        {
            TimeUnit.MILLISECONDS.sleep(20);
            return true;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the books settled", ex);
        }
    }
}
