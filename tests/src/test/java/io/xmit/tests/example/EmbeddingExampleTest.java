package io.xmit.tests.example;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code examples/embedding}, the README's embedding example as a Maven project of its own, built and run with the
 * repository's Maven wrapper against xmit's artifacts as {@code install} lays them out: this build's jars of
 * pipeline, transport and actors and their poms, in a local repository of the test's own. Maven runs offline, its
 * local repository chained onto this build's ({@code maven.repo.local.tail}), which holds Akka, Aeron, Logback and
 * the plugins the example uses, since this build uses them too.
 */
class EmbeddingExampleTest
{
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path EXAMPLE = ROOT.resolve("examples/embedding");
    private static final List<String> MODULES = List.of("pipeline", "transport", "actors");
    /** A bound on each process against a hang, far above the 10-30 s the Maven run takes. */
    private static final long BOUND_SECONDS = 300;

    @TempDir
    static Path dir;

    private static Path repository;
    private static Path project;

    private record Outcome(int code, String out, String err)
    {
    }

    /** The example, built and run once by Maven; the tests below look at what it printed and what it built. */
    private static Outcome built;

    @BeforeAll
    static void installBuildAndRun() throws Exception
    {
        final String version = System.getProperty("xmit.version");
        repository = dir.resolve("repository");
        install("xmit-parent", version, ROOT.resolve("pom.xml"), null);
        for (final String module : MODULES)
        {
            install("xmit-" + module, version, ROOT.resolve(module).resolve("pom.xml"), jar(module));
        }
        project = dir.resolve("echo");
        copy(EXAMPLE, project);
        built = maven("compile", "exec:exec");
    }

    @Test
    void theEmbeddingExampleBuildsAgainstTheInstalledArtifactsEchoesAndExits()
    {
        assertEquals(0, built.code(), built.err() + built.out());
        assertEquals("echo: ping 1\necho: ping 2\necho: ping 3\n", built.out(), built.err());
    }

    /** The README's example is the whole of the file the tests build, imports and all. */
    @Test
    void theReadmeShowsTheWholeExample() throws IOException
    {
        final String source = Files.readString(EXAMPLE.resolve("src/main/java/com/example/echo/EchoApp.java"));
        assertTrue(Files.readString(ROOT.resolve("README.md")).contains("```java\n" + source + "```\n"),
            "README.md's embedding example differs from examples/embedding's EchoApp.java");
    }

    /** Without the flags the example stops at once, naming them, where it used to hang. */
    @Test
    void withoutTheJvmFlagsTheExampleExitsNamingThem() throws Exception
    {
        final List<String> classPath = new ArrayList<>(List.of(project.resolve("target/classes").toString()));
        for (final String module : MODULES)
        {
            classPath.add(jar(module).toString());
        }
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            if (!Path.of(entry).toAbsolutePath().startsWith(ROOT))   // Akka, Aeron, Logback, …; not deploy, tests
            {
                classPath.add(entry);
            }
        }
        final Outcome outcome = run(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", String.join(File.pathSeparator, classPath), "com.example.echo.EchoApp"), ROOT);
        assertEquals(1, outcome.code(), outcome.err() + outcome.out());
        assertEquals("", outcome.out());
        assertTrue(outcome.err().contains("Exception in thread \"main\" java.lang.IllegalStateException: xmit needs " +
            "the JVM flags --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --enable-native-access=ALL-UNNAMED " +
            "--sun-misc-unsafe-memory-access=allow; this JVM lacks --add-exports " +
            "java.base/jdk.internal.misc=ALL-UNNAMED (Agrona) and --enable-native-access=ALL-UNNAMED"), outcome.err());
    }

    /** The repository's wrapper, offline, on this JDK, with the test's local repository before this build's. */
    private static Outcome maven(final String... goals) throws Exception
    {
        final String tail = System.getProperty("xmit.maven.repo",
            Path.of(System.getProperty("user.home"), ".m2", "repository").toString());
        final List<String> command = new ArrayList<>(List.of(ROOT.resolve("mvnw").toString(), "-B", "-q", "-o",
            "-Dmaven.repo.local=" + repository, "-Dmaven.repo.local.tail=" + tail));
        command.addAll(List.of(goals));
        return run(command, project);
    }

    private static Outcome run(final List<String> command, final Path directory) throws Exception
    {
        final ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("MAVEN_OPTS", "--sun-misc-unsafe-memory-access=allow");
        final Path out = dir.resolve("out.txt");
        final Path err = dir.resolve("err.txt");
        final Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(BOUND_SECONDS, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("not finished in " + BOUND_SECONDS + " s: " + command + "\n" +
                Files.readString(err) + Files.readString(out));
        }
        return new Outcome(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    }

    /** What {@code install} puts in a local repository: the pom and, for a jar module, the jar. */
    private static void install(final String artifact, final String version, final Path pom, final Path jar)
        throws IOException
    {
        final Path folder = repository.resolve("io/xmit").resolve(artifact).resolve(version);
        Files.createDirectories(folder);
        Files.copy(pom, folder.resolve(artifact + "-" + version + ".pom"));
        if (null != jar)
        {
            Files.copy(jar, folder.resolve(artifact + "-" + version + ".jar"));
        }
    }

    /**
     * The module's main artifact as this build put it on the test's class path: its jar after {@code package}, or
     * its classes folder (then jarred here) when only {@code test} ran.
     */
    private static Path jar(final String module) throws IOException
    {
        final Path target = ROOT.resolve(module).resolve("target");
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            final Path path = Path.of(entry).toAbsolutePath();
            if (path.equals(target.resolve("classes")))
            {
                return jarOf(path, dir.resolve(module + ".jar"));
            }
            if (path.getParent().equals(target) && path.getFileName().toString().matches("xmit-" + module +
                "-[^-]+(-SNAPSHOT)?\\.jar"))
            {
                return path;
            }
        }
        throw new AssertionError("the module " + module + " is not on the test's class path, neither as " +
            target.resolve("classes") + " nor as a jar in " + target + ": " + System.getProperty("java.class.path"));
    }

    private static Path jarOf(final Path classes, final Path jar) throws IOException
    {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(classes))
        {
            for (final Path file : files.filter(Files::isRegularFile).sorted().toList())
            {
                out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace(File.separatorChar, '/')));
                Files.copy(file, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    /** The example's sources, without a target folder an earlier build of it may have left. */
    private static void copy(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> files = Files.walk(from))
        {
            for (final Path file : files.filter(Files::isRegularFile).toList())
            {
                final Path relative = from.relativize(file);
                if (!relative.startsWith("target"))
                {
                    Files.createDirectories(to.resolve(relative).getParent());
                    Files.copy(file, to.resolve(relative));
                }
            }
        }
    }
}
