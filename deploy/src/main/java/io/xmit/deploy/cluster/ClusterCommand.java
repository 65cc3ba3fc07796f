package io.xmit.deploy.cluster;

import io.xmit.actors.config.ConfigValues;
import io.xmit.deploy.HelpOption;
import io.xmit.deploy.Main;
import io.xmit.deploy.UsageException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code xmit cluster check|run|local}: a deployment file ({@link Deployment}) checked and shown, one of its nodes
 * run in this JVM ({@link NodeRunner}), or all of them as JVMs on this machine ({@link LocalCluster}). A bad file is
 * one line naming the key, the value and what is allowed, and exit code 2, as for {@code xmit run}.
 */
@Command(name = "cluster", synopsisSubcommandLabel = "check|run|local",
    description = "a cluster from one deployment file: check it, run one node, or run every node here")
public final class ClusterCommand implements Callable<Integer>
{
    @Mixin
    private HelpOption help;

    @Spec
    private CommandSpec spec;

    private final PrintStream err;

    private ClusterCommand(final PrintStream err)
    {
        this.err = err;
    }

    /** {@code xmit cluster} and its commands, writing to {@code out} and {@code err}. */
    public static CommandLine commandLine(final PrintStream out, final PrintStream err)
    {
        return new CommandLine(new ClusterCommand(err))
            .addSubcommand(new Check(out))
            .addSubcommand(new Run(out, err))
            .addSubcommand(new Local(out));
    }

    /** {@code xmit cluster} alone: its help, as a usage error. */
    @Override
    public Integer call()
    {
        err.print(spec.commandLine().getUsageMessage());
        err.flush();
        return Main.EXIT_USAGE;
    }

    /**
     * The deployment in {@code file}, checked for what a node can run (its handler classes too,
     * {@link ClusterNode#check}), or a usage error naming what is wrong with it.
     */
    static Deployment read(final Path file)
    {
        try
        {
            final Deployment deployment = Deployment.read(file);
            ClusterNode.check(deployment, new ServiceHandlers());
            return deployment;
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(ex.getMessage());
        }
    }

    @Command(name = "check", description = "check a deployment file and print each node: its roles, devices, the " +
        "services it may host and its generated Akka configuration")
    static final class Check implements Callable<Integer>
    {
        @Mixin
        private HelpOption help;

        @Parameters(paramLabel = "FILE", description = "the deployment file, xmit.cluster { … } (docs/cluster.md)")
        private Path file;

        private final PrintStream out;

        Check(final PrintStream out)
        {
            this.out = out;
        }

        @Override
        public Integer call()
        {
            out.print(describe(read(file), file));
            return Main.EXIT_OK;
        }
    }

    @Command(name = "run", description = "run one node of a deployment in this JVM: join the cluster, start the " +
        "pipelines of its devices and its services' sockets, print membership changes",
        footer = "Ctrl-C or SIGTERM drains the node's sockets and leaves the cluster gracefully within the file's " +
            "failure.drain-deadline, prints the node's books, then exits 0.")
    static final class Run implements Callable<Integer>
    {
        @Mixin
        private HelpOption help;

        @Option(names = "--config", paramLabel = "FILE", required = true, description = "the deployment file")
        private Path file;

        @Option(names = "--node", paramLabel = "NAME", required = true, description = "which of its nodes this is")
        private String node;

        /** Started by {@code xmit cluster local} ({@link NodeRunner}); not for users, so not in the help. */
        @Option(names = "--local", hidden = true)
        private boolean local;

        @Mixin
        private Load load;

        private final PrintStream out;
        private final PrintStream err;

        Run(final PrintStream out, final PrintStream err)
        {
            this.out = out;
            this.err = err;
        }

        @Override
        public Integer call()
        {
            final Deployment deployment = read(file);
            final Node self = deployment.node(node).orElseThrow(() -> new UsageException("--node '" + node +
                "': no such node in " + file + "; its nodes are " + String.join(", ", deployment.nodeNames())));
            return new NodeRunner(deployment, self, local, load.options(deployment, self), out, err).run();
        }
    }

    @Command(name = "local", description = "run every node of a deployment on this machine, each its own JVM, " +
        "output prefixed by node",
        footer = "Ctrl-C or SIGTERM stops the nodes one by one, each leaving gracefully; exit 0 when all exited 0.")
    static final class Local implements Callable<Integer>
    {
        @Mixin
        private HelpOption help;

        @Parameters(paramLabel = "FILE", description = "the deployment file; every node's host must be this machine")
        private Path file;

        @Mixin
        private Load load;

        private final PrintStream out;

        Local(final PrintStream out)
        {
            this.out = out;
        }

        @Override
        public Integer call() throws IOException, InterruptedException
        {
            final Deployment deployment = read(file);
            for (final Node node : deployment.nodes())
            {
                if (!node.devices().isEmpty())
                {
                    load.options(deployment, node);
                }
            }
            return new LocalCluster(deployment, file, load.arguments(), out).run();
        }
    }

    /** {@code --load RATE [--flows N] [--load-for SECONDS]}: load an edge offers to its service. */
    static final class Load
    {
        @Option(names = "--load", paramLabel = "RATE", description = "on an edge whose service is on a loop " +
            "device: offer RATE requests/s to it from client sockets on the device's other port, print replies/s " +
            "and RTT once a second and the client's books at the end")
        private int rate;

        @Option(names = "--flows", paramLabel = "N", defaultValue = "16", description = "client sockets of --load " +
            "(default ${DEFAULT-VALUE})")
        private int flows;

        @Option(names = "--load-for", paramLabel = "SECONDS", defaultValue = "0", description = "stop the load " +
            "after SECONDS and print its books; 0 (default): when the node stops")
        private int seconds;

        /** The options for {@code node}; @throws UsageException naming the option that does not fit. */
        NodeRunner.LoadOptions options(final Deployment deployment, final Node node)
        {
            if (rate < 0 || flows < 1 || flows > 1024 || seconds < 0)
            {
                throw new UsageException("--load " + rate + " --flows " + flows + " --load-for " + seconds + ": " +
                    "the rate and seconds must be 0 or more, the flows 1..1024");
            }
            if (0 == rate)
            {
                return NodeRunner.LoadOptions.NONE;
            }
            final boolean loopEdge = deployment.services().stream().anyMatch(service -> node.devices().stream()
                .anyMatch(device -> device.name().equals(service.device()) &&
                    device.pipeline().device().startsWith("loop") && device.pipeline().ports().size() > 1));
            if (!loopEdge)
            {
                throw new UsageException("--load " + rate + ": node " + node.name() + " is not the edge of a " +
                    "service on a loop device; load is offered by such an edge, from the device's other port");
            }
            return new NodeRunner.LoadOptions(rate, flows, Duration.ofSeconds(seconds));
        }

        /** The same options for a node's {@code cluster run}, or none. */
        List<String> arguments()
        {
            return 0 == rate ? List.of() : List.of("--load", Integer.toString(rate), "--flows",
                Integer.toString(flows), "--load-for", Integer.toString(seconds));
        }
    }

    /** What {@code xmit cluster check} prints: the cluster's settings, then each node. */
    static String describe(final Deployment deployment, final Path file)
    {
        final StringBuilder text = new StringBuilder();
        final DataPlane plane = deployment.dataPlane();
        final FailureSettings failure = deployment.failure();
        final SplitBrain splitBrain = failure.splitBrain();
        text.append(String.format(Locale.ROOT, "%s: cluster %s, %d nodes, seeds %s%n", file, deployment.name(),
            deployment.nodes().size(), String.join(", ", deployment.seeds())));
        text.append(String.format(Locale.ROOT, "data plane: mtu %d, term-length %d, receiver-window %d, so-rcvbuf " +
            "%d, so-sndbuf %s, idle-strategy %s, socket-spin-polls %d, receipt-interval %s%n",
            plane.streams().mtuLength(), plane.streams().termLength(), plane.streams().receiverWindowLength(),
            plane.streams().socketRcvbufLength(), 0 == plane.streams().socketSndbufLength() ? "0 (the system's)" :
                Integer.toString(plane.streams().socketSndbufLength()), plane.idle().label(), plane.socketSpinPolls(),
            ConfigValues.render(plane.receiptInterval())));
        text.append(String.format(Locale.ROOT, "failure: heartbeat-interval %s, acceptable-heartbeat-pause %s, " +
            "split-brain %s%s%s, stable-after %s, drain-deadline %s%n",
            ConfigValues.render(failure.heartbeatInterval()), ConfigValues.render(failure.acceptableHeartbeatPause()),
            splitBrain.strategy().label(), splitBrain.role().map(role -> " of role " + role.label()).orElse(""),
            SplitBrain.Strategy.STATIC_QUORUM == splitBrain.strategy() ? " (quorum-size " +
                splitBrain.quorumSize() + ")" : "", ConfigValues.render(splitBrain.stableAfter()),
            ConfigValues.render(failure.drainDeadline())));
        for (final Node node : deployment.nodes())
        {
            text.append(String.format(Locale.ROOT, "%nnode %s: roles %s; Akka %s:%d, data %s:%d%n", node.name(),
                String.join(", ", node.roleLabels()), node.host(), node.port(), node.host(), node.dataPort()));
            for (final Device device : node.devices())
            {
                text.append(String.format(Locale.ROOT, "  device %s: %s, %d %s, %d ports, frames up to %d " +
                    "bytes%n", device.name(), device.pipeline().device(), device.pipeline().cpus(),
                    1 == device.pipeline().cpus() ? "CPU" : "CPUs",
                    device.pipeline().ports().size(), device.maxFrame()));
            }
            final List<Service> services = deployment.servicesOf(node);
            text.append("  services: ").append(services.isEmpty() ? "none" : services.stream()
                .map(service -> service.name() + " (" + service.placement() + ", UDP " + service.udp() + " on port " +
                    service.port() + " of " + service.device() + ")").collect(Collectors.joining(", ")))
                .append('\n');
            text.append("  generated Akka configuration:\n");
            NodeAkkaConfig.render(deployment.akkaConfig(node))
                .forEach(line -> text.append("    ").append(line).append('\n'));
        }
        return text.toString();
    }
}
