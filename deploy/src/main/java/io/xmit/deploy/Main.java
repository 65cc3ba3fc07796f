package io.xmit.deploy;

import java.io.PrintStream;
import java.util.Arrays;

/** The {@code xmit} command line: dispatches to one command and turns usage errors into exit code 2. */
public final class Main
{
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    private static final String USAGE = """
        usage: xmit <command> [options]
          bench     side-by-side benchmarks: tx (Mpps against the baselines), rr (RTT with and without XPS)
          explain   which TX queue a flow leaves on, and the rule that chose it (like `ip route get` for queues)
          run       the main job: a request/response service over the built-in loop device
          stat      watch a running pipeline's queues from another terminal (like tc -s qdisc and ethtool -S)
          trace     show a trace file: `xmit trace show FILE [--packet ID]` (write one with xmit run --trace-file)
          test      all tests, with what they need: `./xmit test [maven args]` (the launcher runs it, not the jar)
          help      this text
        `xmit <command> --help` shows a command's options.""";

    private Main()
    {
    }

    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the process exit code. Separate from {@link #main} so tests can call it. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (args.length == 0)
        {
            err.println(USAGE);
            return EXIT_USAGE;
        }
        final String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try
        {
            return switch (args[0])
            {
                case "bench" -> BenchCommand.run(rest, out, err);
                case "explain" -> ExplainCommand.run(rest, out);
                case "run" -> RunCommand.run(rest, out, err);
                case "stat" -> StatCommand.run(rest, out, err);
                case "trace" -> TraceCommand.run(rest, out, err);
                case "help", "--help", "-h" ->
                {
                    out.println(USAGE);
                    yield EXIT_OK;
                }
                case "test" -> throw new UsageException(
                    "the tests are run by the ./xmit launcher from a source tree (./xmit test), not by the jar");
                default -> throw new UsageException("unknown command '" + args[0] +
                    "' (expected bench, explain, run, stat, trace or help)");
            };
        }
        catch (final UsageException ex)
        {
            err.println("xmit " + args[0] + ": " + ex.getMessage());
            return EXIT_USAGE;
        }
    }
}
