package io.xmit.deploy;

import io.xmit.actors.stats.CountersFile;
import io.xmit.actors.stats.XpsMapsFile;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pipeline running in another process, as {@code xmit stat} and {@code xmit explain --live} find it: by its
 * counters file, {@code xmit-<pid>-<name>.counters}, of a process still alive, chosen by name, by pid, or as the only
 * one running.
 *
 * @param counters its counters file.
 * @param pid      the process it runs in.
 * @param name     its name ({@code xmit.name}).
 */
record RunningPipeline(Path counters, long pid, String name)
{
    private static final Pattern FILE_NAME = Pattern.compile("xmit-(\\d+)-(.+)\\.counters");

    /** The pipeline's name and pid from its counters file's name; the file's own name if it has another form. */
    static RunningPipeline of(final Path counters)
    {
        final Matcher matcher = FILE_NAME.matcher(counters.getFileName().toString());
        return matcher.matches() ? new RunningPipeline(counters, Long.parseLong(matcher.group(1)), matcher.group(2)) :
            new RunningPipeline(counters, -1, counters.toString());
    }

    /**
     * The pipeline in {@code dir} named {@code name} (null: any) in process {@code pid} (-1: any), or the only one
     * running when neither is given.
     *
     * @throws UsageException        when a name or pid is given that no running pipeline has, naming it and those
     *                               running: the user named the wrong one.
     * @throws IllegalStateException when none is given and none is running, or several are, listing them.
     */
    static RunningPipeline find(final Path dir, final String name, final long pid)
    {
        final List<RunningPipeline> running = new ArrayList<>();
        final List<RunningPipeline> chosen = new ArrayList<>();
        for (final Path file : CountersFile.list(dir))
        {
            final RunningPipeline pipeline = of(file);
            if (pipeline.pid() >= 0 && alive(pipeline.pid()))
            {
                running.add(pipeline);
                if ((null == name || name.equals(pipeline.name())) && (pid < 0 || pid == pipeline.pid()))
                {
                    chosen.add(pipeline);
                }
            }
        }
        if (chosen.size() == 1)
        {
            return chosen.getFirst();
        }
        if (chosen.isEmpty() && (null != name || pid >= 0))
        {
            throw new UsageException("no xmit pipeline" + (null == name ? "" : " named '" + name + "'") +
                (pid < 0 ? "" : " in process " + pid) + " is running (" + (running.isEmpty() ?
                "no counters file of a live process in " + dir : "running: " + list(running)) + ")");
        }
        if (chosen.isEmpty())
        {
            throw new IllegalStateException("no xmit pipeline is running (no counters file of a live process in " +
                dir + ")");
        }
        throw new IllegalStateException(chosen.size() + " pipelines are running, name one: " + list(chosen));
    }

    /** The maps file beside its counters file. */
    Path xpsMaps()
    {
        return XpsMapsFile.beside(counters);
    }

    private static String list(final List<RunningPipeline> pipelines)
    {
        return String.join(", ", pipelines.stream().map(p -> p.name() + " (pid " + p.pid() + ")").toList());
    }

    private static boolean alive(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
