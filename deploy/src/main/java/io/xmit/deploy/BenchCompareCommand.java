package io.xmit.deploy;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code xmit bench compare A.json B.json}: two runs' {@code --json} side by side, for the same scenarios (a run
 * before and after a change, or on two machines): per variant and figure the median in A, in B, and B/A; then the
 * ratios the same way. Each file's provenance heads the table. Files of other scenarios, or that are not bench JSON,
 * are a usage error naming the file.
 */
@Command(name = "compare",
    description = "two --json files of the same scenarios side by side: each figure's median in A and in B, and B/A")
final class BenchCompareCommand implements Callable<Integer>
{
    private static final String ROW = "%-13s %-26s %10s %10s %7s%n";
    private static final List<String> PROVENANCE = List.of("commit", "date", "cpu", "command");

    @Mixin
    private HelpOption help;

    @Parameters(index = "0", paramLabel = "A.json", description = "the run to compare against: xmit bench … --json A.json")
    private Path a;

    @Parameters(index = "1", paramLabel = "B.json", description = "the run compared, of the same scenario(s) as A")
    private Path b;

    private final PrintStream out;

    BenchCompareCommand(final PrintStream out)
    {
        this.out = out;
    }

    @Override
    public Integer call()
    {
        final Map<String, Object> runA = read(a);
        final Map<String, Object> runB = read(b);
        final List<Map<String, Object>> scenariosA = scenarios(a, runA);
        final List<Map<String, Object>> scenariosB = scenarios(b, runB);
        final List<String> namesA = scenariosA.stream().map(s -> (String)s.get("scenario")).toList();
        final List<String> namesB = scenariosB.stream().map(s -> (String)s.get("scenario")).toList();
        if (!namesA.equals(namesB))
        {
            throw new UsageException(a + " holds " + String.join(", ", namesA) + " but " + b + " holds " +
                String.join(", ", namesB) + ": compare runs of the same scenarios");
        }
        out.println("A: " + a + provenance(runA, scenariosA.getFirst()));
        out.println("B: " + b + provenance(runB, scenariosB.getFirst()));
        for (int s = 0; s < scenariosA.size(); s++)
        {
            compare(scenariosA.get(s), scenariosB.get(s));
        }
        return Main.EXIT_OK;
    }

    private void compare(final Map<String, Object> scenarioA, final Map<String, Object> scenarioB)
    {
        out.printf(Locale.ROOT, "%n%s%n", scenarioA.get("scenario"));
        out.printf(Locale.ROOT, ROW, "variant", "figure", "A", "B", "B/A");
        final List<Map<String, Object>> variantsB = objects(scenarioB.get("variants"));
        for (final Map<String, Object> variantA : objects(scenarioA.get("variants")))
        {
            final Object name = variantA.get("name");
            final Map<String, Object> variantB = variantsB.stream().filter(v -> name.equals(v.get("name")))
                .findFirst().orElse(Map.of());
            rows(String.valueOf(name), variantA, variantB);
        }
        rows("ratio", object(scenarioA.get("ratios")), object(scenarioB.get("ratios")));
    }

    /** A row per figure of {@code figuresA} (an object with a median), B's median beside it, n/a where B has none. */
    private void rows(final String label, final Map<String, Object> figuresA, final Map<String, Object> figuresB)
    {
        for (final Map.Entry<String, Object> figure : figuresA.entrySet())
        {
            if (figure.getValue() instanceof Map<?, ?> stat && stat.containsKey("median"))
            {
                final double medianA = median(stat);
                final double medianB = figuresB.get(figure.getKey()) instanceof Map<?, ?> other ? median(other) :
                    Double.NaN;
                out.printf(Locale.ROOT, ROW, label, figure.getKey(), BenchCommand.format(medianA),
                    BenchCommand.format(medianB), BenchCommand.format(medianB / medianA));
            }
        }
    }

    private static double median(final Map<?, ?> stat)
    {
        return stat.get("median") instanceof Double median ? median : Double.NaN;
    }

    /** {@code ": commit …, date, CPU, command"} from what the file records, at its top or in its first scenario. */
    private static String provenance(final Map<String, Object> run, final Map<String, Object> first)
    {
        final List<String> fields = new ArrayList<>();
        for (final String field : PROVENANCE)
        {
            final Object value = run.containsKey(field) ? run.get(field) : first.get(field);
            if (value instanceof String text)
            {
                fields.add("commit".equals(field) ? "commit " + text : text);
            }
        }
        return fields.isEmpty() ? "" : ": " + String.join(", ", fields);
    }

    private static Map<String, Object> read(final Path file)
    {
        final String text;
        try
        {
            text = Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final NoSuchFileException ex)
        {
            throw new UsageException(file + ": no such file");
        }
        catch (final IOException ex)
        {
            throw new UsageException(file + ": cannot read it (" + ex.getMessage() + ")");
        }
        final Object root;
        try
        {
            root = JsonReader.parse(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(file + " is not bench JSON: " + ex.getMessage());
        }
        if (!(root instanceof Map<?, ?>))
        {
            throw notBench(file);
        }
        return object(root);
    }

    /** One scenario's object, or {@code all}'s list of them; each must name its scenario and list its variants. */
    private static List<Map<String, Object>> scenarios(final Path file, final Map<String, Object> run)
    {
        final List<Map<String, Object>> scenarios = run.get("scenarios") instanceof List<?> list ? objects(list) :
            List.of(run);
        if (scenarios.isEmpty())
        {
            throw notBench(file);
        }
        for (final Map<String, Object> scenario : scenarios)
        {
            if (!(scenario.get("scenario") instanceof String) || !(scenario.get("variants") instanceof List<?>))
            {
                throw notBench(file);
            }
        }
        return scenarios;
    }

    private static UsageException notBench(final Path file)
    {
        return new UsageException(file + " is not bench JSON: no \"scenario\" with \"variants\" (write one with " +
            "xmit bench … --json FILE)");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(final Object value)
    {
        return value instanceof Map<?, ?> map ? (Map<String, Object>)map : Map.of();
    }

    private static List<Map<String, Object>> objects(final Object value)
    {
        final List<Map<String, Object>> objects = new ArrayList<>();
        if (value instanceof List<?> list)
        {
            for (final Object element : list)
            {
                if (element instanceof Map<?, ?>)
                {
                    objects.add(object(element));
                }
            }
        }
        return objects;
    }
}
