package io.xmit.deploy;

import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What {@code xmit --version} prints: the build's version and the git commit it was built from, both written into
 * {@code xmit-version.properties} by the build; a build without git history says the commit is unknown.
 */
final class Version implements IVersionProvider
{
    static final String RESOURCE = "/xmit-version.properties";

    @Override
    public String[] getVersion()
    {
        return new String[] {line()};
    }

    /** {@code xmit 0.1.0-SNAPSHOT (commit 5e3f71b133fd), Java 25.0.1}. */
    static String line()
    {
        final Properties build = build();
        return "xmit " + build.getProperty("version") + " (commit " + build.getProperty("commit") + "), Java " +
            Runtime.version();
    }

    /** The commit the build was made from: 12 hex digits, or {@code unknown} without git history. */
    static String commit()
    {
        return build().getProperty("commit");
    }

    private static Properties build()
    {
        final Properties build = new Properties();
        try (InputStream in = Version.class.getResourceAsStream(RESOURCE))
        {
            if (null == in)
            {
                throw new IllegalStateException(RESOURCE + " is missing from the class path: a build step was skipped");
            }
            build.load(in);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return build;
    }
}
