package io.xmit.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueFactory;
import com.typesafe.config.ConfigValueType;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.config.ConfigValues;
import io.xmit.transport.nic.NicSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;

import static io.xmit.actors.config.ConfigValues.render;

/**
 * The command line's configuration, in layers: the reference (every {@code reference.conf} on the class path, the actors
 * module's holding the library's defaults), the built-in scenario over it ({@link #SCENARIO}), the application's
 * configuration as Akka reads it ({@code application.conf} on the class path, or the file {@code -Dconfig.file} names),
 * a file ({@code --config}), then {@code --set key=value} overrides in the order given.
 * Everything under {@code xmit} is checked here, before anything starts: the pipeline's keys by
 * {@link PipelineConfig#fromConfig}, the scenario's ({@code xmit.run}) below; a bad one is a {@link UsageException}.
 */
final class Settings
{
    /** The class-path resource with the scenario's values and its own keys ({@code xmit.run}). */
    static final String SCENARIO = "run.conf";
    static final String RUN = "xmit.run";
    static final List<String> RUN_KEYS = List.of("duration", "rate", "flows");
    /**
     * The scenario's service listens on port A and its clients send from port B of one device; on {@code afpacket},
     * one port, it serves the kernel on the interface's link (the clients are the kernel's).
     */
    static final int RUN_PORTS = 2;

    private final Config config;
    private final PipelineConfig pipeline;
    private final Duration duration;
    private final int rate;
    private final int flows;

    private Settings(final Config config, final PipelineConfig pipeline, final Duration duration, final int rate,
        final int flows)
    {
        this.config = config;
        this.pipeline = pipeline;
        this.duration = duration;
        this.rate = rate;
        this.flows = flows;
    }

    /**
     * @param file      a HOCON file, or null.
     * @param overrides {@code key=value} pairs; a key without the {@code xmit.} or {@code akka.} prefix is under
     *                  {@code xmit}, and a value is HOCON (a number, a list, a duration) or else taken as a string.
     */
    static Settings load(final Path file, final List<String> overrides)
    {
        final Config reference = scenario().withFallback(ConfigFactory.defaultReference());
        final ConfigObject sections = reference.getObject("xmit");
        Config config = ConfigFactory.empty();
        for (final String pair : overrides)
        {
            config = checked(override(pair), sections).withFallback(config);
        }
        if (null != file)
        {
            config = config.withFallback(checked(parseFile(file), sections));
        }
        try
        {
            config = config.withFallback(checked(ConfigFactory.defaultApplication(), sections)).withFallback(reference)
                .resolve();
        }
        catch (final ConfigException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        final PipelineConfig pipeline;
        try
        {
            pipeline = PipelineConfig.fromConfig(config.withoutPath(RUN));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        final NicSpec.Backend backend = pipeline.deviceSpec().backend();
        if (RUN_PORTS != backend.ports() && NicSpec.Backend.AFPACKET != backend)
        {
            throw new UsageException("xmit.device = '" + pipeline.device() + "' has " + backend.ports() + " port; " +
                "the run scenario needs " + RUN_PORTS + " (its service on port A, its clients on port B): use loop, " +
                "or afpacket to serve a kernel on a real link");
        }
        final Config run = section(config);
        final Duration duration = duration(run, "duration");
        if (duration.compareTo(Duration.ofSeconds(1)) < 0 || duration.compareTo(Duration.ofDays(1)) > 0)
        {
            throw new UsageException(RUN + ".duration = " + render(run.getValue("duration")) + " is not in 1s..1d");
        }
        return new Settings(config, pipeline, duration, integer(run, "rate", 1, 100_000_000),
            integer(run, "flows", 1, 4096));
    }

    /** Everything, resolved: the actor system is made from it too, so a file may also set {@code akka} keys. */
    Config config()
    {
        return config;
    }

    PipelineConfig pipeline()
    {
        return pipeline;
    }

    Duration duration()
    {
        return duration;
    }

    int rate()
    {
        return rate;
    }

    int flows()
    {
        return flows;
    }

    /**
     * What is allowed but likely a mistake on a machine of {@code processors} processors: more xmit CPUs than
     * processors (its actors then take turns on them, and spinning ones take turns spinning).
     */
    List<String> warnings(final int processors)
    {
        if (pipeline.cpus() <= processors)
        {
            return List.of();
        }
        return List.of("xmit.cpus = " + pipeline.cpus() + " is more than the " + processors + " processors here: the " +
            "pipeline's actors will share them, so its figures will not be those of " + pipeline.cpus() + " CPUs");
    }

    private static Config scenario()
    {
        return ConfigFactory.parseResources(Settings.class, "/" + SCENARIO,
            ConfigParseOptions.defaults().setAllowMissing(false));
    }

    private static Config parseFile(final Path file)
    {
        if (!Files.isRegularFile(file))
        {
            throw new UsageException("--config '" + file + "': no such file");
        }
        final Config parsed;
        try
        {
            parsed = ConfigFactory.parseFile(file.toFile(), ConfigParseOptions.defaults().setAllowMissing(false));
        }
        catch (final ConfigException ex)
        {
            throw new UsageException("--config: " + ex.getMessage());
        }
        // Every key xmit reads is under xmit: a file without the section (keys at the top, a misspelt section) would
        // change nothing. root(), not hasPath: a section made of a substitution is known only once resolved.
        if (!parsed.root().containsKey("xmit"))
        {
            throw new UsageException("--config '" + file + "': no xmit section; every key is under xmit { … }" +
                (parsed.root().isEmpty() ? "" : " (the file sets " + String.join(", ", new TreeSet<>(parsed.root().keySet())) + ")"));
        }
        return parsed;
    }

    private static Config override(final String pair)
    {
        final int eq = pair.indexOf('=');
        if (eq <= 0)
        {
            throw new UsageException("--set '" + pair + "': expected key=value, e.g. --set qdisc.bulk-limit=16");
        }
        final String given = pair.substring(0, eq).strip();
        final String key = given.startsWith("xmit.") || given.startsWith("akka.") ? given : "xmit." + given;
        try
        {
            ConfigUtil.splitPath(key);
        }
        catch (final ConfigException ex)
        {
            throw new UsageException("--set '" + pair + "': '" + given + "' is not a key path");
        }
        return ConfigFactory.empty().withValue(key, value(pair.substring(eq + 1).strip()));
    }

    /**
     * {@code 4}, {@code [0, 1]}, {@code 10s} as HOCON would read them; what HOCON cannot read whole, and {@code null},
     * as a string.
     */
    private static ConfigValue value(final String text)
    {
        try
        {
            final Config parsed = ConfigFactory.parseString("v = " + text);
            // HOCON's null would unset the key, so the reference's value came back: `device=null` is the null device.
            if (1 == parsed.root().size() && parsed.hasPath("v"))
            {
                return parsed.root().get("v");
            }
        }
        catch (final ConfigException ignored)
        {
            // `loop:tx=4,rx=4` is not HOCON; the string it is.
        }
        return ConfigValueFactory.fromAnyRef(text, "--set");
    }

    /**
     * One layer, checked before it is merged ({@link #requireObjects}): once a layer's {@code xmit = 3} meets another
     * layer's object, HOCON keeps the object and ignores every layer below, the reference too.
     */
    private static Config checked(final Config layer, final ConfigObject sections)
    {
        try
        {
            requireObjects(layer.root().get("xmit"), sections, "xmit");
        }
        catch (final ConfigException.NotResolved ex)
        {
            // A substitution (`xmit.qdisc = ${base}`) is known only once resolved; the resolved keys are checked then.
        }
        catch (final ConfigException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        return layer;
    }

    /**
     * Where the reference has a section (an object: {@code xmit}, {@code xmit.qdisc}, …), the file and the overrides
     * must have one too: {@code xmit = 3} would otherwise hide the reference's whole section and be reported as some
     * key inside it missing.
     *
     * @param given   what the file and the overrides set at {@code key}, or null for nothing.
     * @param section the reference's section at {@code key}.
     */
    private static void requireObjects(final ConfigValue given, final ConfigObject section, final String key)
    {
        if (null == given)
        {
            return;
        }
        // valueType() of a substitution not yet resolved throws ConfigException.NotResolved (see checked).
        if (ConfigValueType.OBJECT != given.valueType())
        {
            throw new UsageException(key + " = " + render(given) + " is not an object; " + key + " holds " +
                String.join(", ", section.keySet()));
        }
        final ConfigObject object = (ConfigObject)given;
        for (final Map.Entry<String, ConfigValue> entry : section.entrySet())
        {
            if (entry.getValue() instanceof ConfigObject child)
            {
                requireObjects(object.get(entry.getKey()), child, key + "." + entry.getKey());
            }
        }
    }

    /** {@code xmit.run}, each of whose keys must be one the scenario reads. */
    private static Config section(final Config config)
    {
        if (!config.hasPath(RUN))
        {
            return ConfigFactory.empty();
        }
        if (ConfigValueType.OBJECT != config.getValue(RUN).valueType())
        {
            throw new UsageException(RUN + " = " + render(config.getValue(RUN)) + " is not an object; " + RUN +
                " holds " + String.join(", ", RUN_KEYS));
        }
        final Config run = config.getConfig(RUN);
        for (final Map.Entry<String, ConfigValue> entry : run.entrySet())
        {
            if (!RUN_KEYS.contains(entry.getKey()))
            {
                throw new UsageException(RUN + "." + entry.getKey() + " = " + render(entry.getValue()) +
                    " is not a known key; " + RUN + " knows " + String.join(", ", RUN_KEYS));
            }
        }
        return run;
    }

    private static Duration duration(final Config run, final String key)
    {
        try
        {
            return ConfigValues.duration(RUN + "." + key, run, key, "10s or 2m");
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(ex.getMessage());
        }
    }

    private static int integer(final Config run, final String key, final int min, final int max)
    {
        if (!run.hasPath(key))
        {
            throw new UsageException(RUN + "." + key + " is not set (it is in " + min + ".." + max + ")");
        }
        final ConfigValue value = run.getValue(key);
        final OptionalLong number = ConfigValues.wholeNumber(value);
        if (number.isEmpty() || number.getAsLong() < min || number.getAsLong() > max)
        {
            throw new UsageException(RUN + "." + key + " = " + render(value) + " is not a whole number in " + min +
                ".." + max);
        }
        return (int)number.getAsLong();
    }
}
