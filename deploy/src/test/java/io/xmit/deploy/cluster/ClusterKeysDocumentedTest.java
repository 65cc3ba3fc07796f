package io.xmit.deploy.cluster;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedSet;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The keys of the deployment file that are read ({@link ClusterKey}) and those of the table under "Every key" in
 * {@code docs/cluster.md} are the same: a key added to one and not the other fails here. A key of a list's objects is
 * written {@code nodes[].port}.
 */
class ClusterKeysDocumentedTest
{
    /** Tests run with the module's directory as the working directory. */
    private static final Path CLUSTER_DOC = Path.of("../docs/cluster.md");

    @Test
    void theDocsKeyTableListsEveryKeyThatIsReadAndNoOther() throws IOException
    {
        assertEquals(readKeys(), documentedKeys(Files.readString(CLUSTER_DOC)));
    }

    @Test
    void aKeyMissingOrAddedIsSeen() throws IOException
    {
        final String doc = Files.readString(CLUSTER_DOC);
        assertNotEquals(readKeys(), documentedKeys(doc.replace("| `failure.drain-deadline` |", "| `drain` |")));
        assertNotEquals(readKeys(), documentedKeys(doc.replace("| `nodes[].roles` |", "| `nodes[].role` |")));
    }

    private static SortedSet<String> readKeys()
    {
        final SortedSet<String> keys = new TreeSet<>(ClusterKey.keys());
        for (final ClusterKey key : ClusterKey.values())
        {
            for (final String field : key.fields())
            {
                keys.add(key.path() + "[]." + field);
            }
        }
        return keys;
    }

    /** The first column of the table under "### Every key". */
    private static SortedSet<String> documentedKeys(final String markdown)
    {
        final SortedSet<String> keys = new TreeSet<>();
        markdown.substring(markdown.indexOf("\n### Every key\n")).lines()
            .dropWhile(line -> !line.startsWith("|"))
            .takeWhile(line -> line.startsWith("|"))
            .skip(2)
            .forEach(row -> keys.add(row.split("\\|")[1].strip().replace("`", "")));
        return keys;
    }
}
