package io.xmit.deploy;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import io.xmit.actors.config.ConfigKey;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The keys under {@code xmit} that are read (the pipeline's {@link ConfigKey} table and {@code xmit run}'s
 * {@link Settings#RUN_KEYS}), the keys the actors module's {@code reference.conf} and deploy's {@code run.conf} (its
 * {@code run} section) set, and the keys of the table in {@code docs/running.md} ("Configuration") are the same: a
 * key added to one and not the others fails here.
 *
 * <p>Keys are paths under {@code xmit} ({@code qdisc.quota}); a key of the objects in a list counts too, as
 * {@code ports[].mac}. reference.conf names those in the comment above the list, a line each: three spaces, the key,
 * two or more spaces, what it means. The doc's table names keys in its first column as {@code `key`},
 * {@code `list = [{key, …}]`} or {@code `section { key, … }`}, several in a cell separated by " / ".
 */
class EveryKeyIsDocumentedTest
{
    /** Tests run with the module's directory as the working directory. */
    private static final Path REFERENCE = Path.of("../actors/src/main/resources/reference.conf");
    private static final Path SCENARIO = Path.of("src/main/resources/" + Settings.SCENARIO);
    private static final Path RUNNING = Path.of("../docs/running.md");
    private static final Pattern FIELD_LINE = Pattern.compile("^ {3}([a-z][a-z0-9-]*) {2,}\\S.*");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9.-]*");
    private static final Pattern LIST = Pattern.compile("(" + KEY + ") = \\[\\{([a-z0-9, -]+)}]");
    private static final Pattern SECTION = Pattern.compile("(" + KEY + ") \\{ ([a-z0-9, -]+) }");

    @Test
    void referenceConfSetsEveryKeyThatIsReadAndNoOther() throws IOException
    {
        final SortedSet<String> keys = referenceKeys(Files.readString(REFERENCE));
        keys.addAll(scenarioKeys());
        assertSameKeys(REFERENCE, keys);
    }

    @Test
    void theDocsConfigurationTableListsEveryKeyThatIsReadAndNoOther() throws IOException
    {
        assertSameKeys(RUNNING, documentedKeys(Files.readString(RUNNING)));
    }

    /** The two checks above would see a key missing from, or added to, either file. */
    @Test
    void aKeyMissingOrAddedIsSeen() throws IOException
    {
        final String reference = Files.readString(REFERENCE);
        assertEquals(readKeys(), union(referenceKeys(reference), scenarioKeys()));
        assertNotEquals(readKeys(), union(referenceKeys(reference), referenceKeys("xmit.run { rate = 1 }")));
        assertNotEquals(readKeys(), referenceKeys(reference.replace("snap-length = 128", "")));
        assertNotEquals(readKeys(), referenceKeys(reference.replace("cores = []", "cores = []\n  core = 1")));
        assertNotEquals(readKeys(), referenceKeys(reference.replace("#   gateway ", "#   gate-way ")));
        final String running = Files.readString(RUNNING);
        assertNotEquals(readKeys(), documentedKeys(running.replace("| `stop.deadline` |", "| `stop.deadlines` |")));
        assertNotEquals(readKeys(), documentedKeys(running.replace(", arp, icmp}]`", ", arp}]`")));
        assertNotEquals(readKeys(), documentedKeys(running.replace("`trace { sample, ", "`trace { sample, verbose, ")));
    }

    private static void assertSameKeys(final Path file, final SortedSet<String> listed)
    {
        final SortedSet<String> missing = new TreeSet<>(readKeys());
        missing.removeAll(listed);
        final SortedSet<String> unknown = new TreeSet<>(listed);
        unknown.removeAll(readKeys());
        assertEquals(new TreeSet<>(), missing, () -> file + " lacks keys that are read: " + missing);
        assertEquals(new TreeSet<>(), unknown, () -> file + " lists keys nothing reads: " + unknown);
    }

    private static SortedSet<String> readKeys()
    {
        final SortedSet<String> keys = new TreeSet<>(ConfigKey.keys());
        for (final ConfigKey key : ConfigKey.values())
        {
            for (final String field : key.fields())
            {
                keys.add(key.path() + "[]." + field);
            }
        }
        for (final String key : Settings.RUN_KEYS)
        {
            keys.add("run." + key);
        }
        return keys;
    }

    /** The keys of {@code xmit.run} in the scenario's file: those only {@code xmit run} reads. */
    private static SortedSet<String> scenarioKeys() throws IOException
    {
        final SortedSet<String> keys = new TreeSet<>();
        addKeys("run.", ConfigFactory.parseString(Files.readString(SCENARIO)).getObject("xmit.run"), keys);
        return keys;
    }

    private static SortedSet<String> union(final SortedSet<String> a, final SortedSet<String> b)
    {
        final SortedSet<String> keys = new TreeSet<>(a);
        keys.addAll(b);
        return keys;
    }

    /** Every value under {@code xmit}, null ones too, and the keys listed in the comment above each. */
    private static SortedSet<String> referenceKeys(final String conf)
    {
        final SortedSet<String> keys = new TreeSet<>();
        addKeys("", ConfigFactory.parseString(conf).getObject("xmit"), keys);
        return keys;
    }

    private static void addKeys(final String prefix, final ConfigObject object, final SortedSet<String> keys)
    {
        for (final Map.Entry<String, ConfigValue> entry : object.entrySet())
        {
            final String path = prefix + entry.getKey();
            if (entry.getValue() instanceof ConfigObject section)
            {
                addKeys(path + ".", section, keys);
            }
            else
            {
                keys.add(path);
                for (final String comment : entry.getValue().origin().comments())
                {
                    final Matcher field = FIELD_LINE.matcher(comment);
                    if (field.matches())
                    {
                        keys.add(path + "[]." + field.group(1));
                    }
                }
            }
        }
    }

    /** The first column of the table under "## Configuration". */
    private static SortedSet<String> documentedKeys(final String markdown)
    {
        final SortedSet<String> keys = new TreeSet<>();
        final List<String> rows = markdown.substring(markdown.indexOf("\n## Configuration\n")).lines()
            .dropWhile(line -> !line.startsWith("|"))
            .takeWhile(line -> line.startsWith("|"))
            .skip(2)
            .toList();
        for (final String row : rows)
        {
            final String cell = row.split("\\|")[1].strip();
            for (final String part : cell.split(" / "))
            {
                final Matcher code = CODE.matcher(part);
                if (!code.matches())
                {
                    fail("docs/running.md: '" + part + "' in '" + cell + "' is not one `key`");
                }
                addDocumented(code.group(1), keys);
            }
        }
        return keys;
    }

    private static void addDocumented(final String text, final SortedSet<String> keys)
    {
        final Matcher list = LIST.matcher(text);
        final Matcher section = SECTION.matcher(text);
        if (KEY.matcher(text).matches())
        {
            keys.add(text);
        }
        else if (list.matches())
        {
            keys.add(list.group(1));
            for (final String field : list.group(2).split(", "))
            {
                keys.add(list.group(1) + "[]." + field);
            }
        }
        else if (section.matches())
        {
            for (final String key : section.group(2).split(", "))
            {
                keys.add(section.group(1) + "." + key);
            }
        }
        else
        {
            fail("docs/running.md: `" + text + "` is not `key`, `list = [{key, …}]` or `section { key, … }`");
        }
    }
}
