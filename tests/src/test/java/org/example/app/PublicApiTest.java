package org.example.app;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import io.xmit.actors.Accounting;
import io.xmit.actors.Endpoint;
import io.xmit.actors.Pipeline;
import io.xmit.actors.PipelineConfig;
import io.xmit.actors.QueueExplanation;
import io.xmit.actors.RemoteMember;
import io.xmit.actors.SocketOptions;
import io.xmit.actors.Stage;
import io.xmit.actors.StopReport;
import io.xmit.actors.UdpSocket;
import io.xmit.actors.XpsChange;
import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.trace.TraceSelector;
import io.xmit.actors.trace.Tracer;
import io.xmit.pipeline.flow.FlowKey;
import io.xmit.pipeline.xps.QueueMap;
import io.xmit.transport.nic.NicDriver;
import io.xmit.transport.ring.RingDoorbell;
import io.xmit.transport.ring.Rings;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * xmit's API as an application outside {@code io.xmit} meets it: every public method of {@link Pipeline} called with
 * the types it returns named explicitly (so this file stops compiling if one returns a type an application cannot
 * name), and no public signature of the API package that mentions a type of {@code io.xmit.actors.internal}.
 */
class PublicApiTest
{
    private static final ActorTestKit KIT = ActorTestKit.create();

    @AfterAll
    static void shutdown()
    {
        KIT.shutdownTestKit();
    }

    @Test
    void everyPublicMethodOfPipelineIsCallableWithTypesAnApplicationNames()
    {
        final PipelineConfig config = PipelineConfig.builder().name("public-api").cpus(2).build();
        final Pipeline pipeline = Pipeline.start(KIT.system(), config);
        final PipelineConfig running = pipeline.config();
        final NicDriver driver = pipeline.driver(0);
        final int ports = pipeline.portCount();
        final QueueMap map = pipeline.queueMap(0);
        final UdpSocket socket = pipeline.openUdp(SocketOptions.udp4(7000).connect(Endpoint.of("10.0.0.2", 7)));
        final List<UdpSocket> sockets = pipeline.sockets();
        final Rings toAnotherNode = Rings.launch("public-api-remote");
        final RemoteMember member = pipeline.openRemote(SocketOptions.udp4(7001).reusePort(true),
            toAnotherNode.addPublication(1, new RingDoorbell(() -> { })), 1L);
        member.steer(true);
        member.close();
        toAnotherNode.close();
        final XpsChange cpus = pipeline.setXpsCpus(0, 1, "2");
        final XpsChange rxqs = pipeline.setXpsRxqs(0, 1, "2");
        final XpsChange count = pipeline.setTxQueueCount(0, 4);
        final FlowKey flow = new FlowKey();
        flow.setIpv4(FlowKey.PROTO_UDP, 0x0A00_0001, 0x0A00_0002, 7000, 7);
        final QueueExplanation explanation = pipeline.explain(0, flow, 1, -1);
        final int backlog = pipeline.qdiscBacklog(0, 0);
        pipeline.trace(TraceSelector.OFF);
        final Tracer tracer = pipeline.tracer();
        final Path counters = pipeline.countersPath();
        final long sent = pipeline.counter(CounterType.SOCKET_SENT, CounterScope.socket(0, socket.id()));
        final long total = pipeline.total(CounterType.QDISC_PACKETS, 0);
        final Map<String, Long> all = pipeline.counters();
        final Accounting books = pipeline.accounting();
        final Accounting verified = pipeline.verify();
        pipeline.injectCrash(Stage.QDISC, 0, 0, 1);
        final CompletionStage<Throwable> terminated = pipeline.whenTerminated();
        final StopReport report = pipeline.stop(Duration.ofSeconds(3));
        pipeline.close();

        assertEquals("public-api", running.name());
        assertEquals(2, ports);
        assertEquals(4, driver.txQueueCount());
        assertEquals(4, map.realNumTx());
        assertEquals(List.of(socket), sockets);
        assertEquals(List.of(0L, 0L), List.of(member.sent(), member.delivered()));
        assertTrue(cpus.applied() && rxqs.applied() && count.applied(), cpus + " " + rxqs + " " + count);
        assertEquals(1, explanation.txQueue(), explanation.text());
        assertEquals(0, backlog);
        assertEquals(TraceSelector.OFF, tracer.selector());
        assertTrue(counters.toString().endsWith(".counters"), counters.toString());
        assertEquals(0, sent);
        assertEquals(0, total);
        assertTrue(all.containsKey("socket_sent port=0 socket=" + socket.id()), all.keySet().toString());
        assertTrue(books.balances() && verified.balances(), books.line());
        assertTrue(report.books().balances(), report.line());
        assertTrue(terminated.toCompletableFuture().isDone());
    }

    @Test
    void noPublicSignatureOfTheApiPackageNamesAnInternalType() throws IOException, URISyntaxException
    {
        final List<String> leaks = new ArrayList<>();
        for (final Class<?> type : apiTypes())
        {
            for (final Method method : type.getMethods())
            {
                final List<Type> named = new ArrayList<>(List.of(method.getGenericParameterTypes()));
                named.add(method.getGenericReturnType());
                for (final Type used : named)
                {
                    if (!nameable(used))
                    {
                        leaks.add(type.getSimpleName() + "." + method.getName() + ": " + used.getTypeName());
                    }
                }
            }
        }
        assertEquals(List.of(), leaks);
    }

    /** The public top-level types of {@code io.xmit.actors} (not its subpackages), read from where they were loaded. */
    private static List<Class<?>> apiTypes() throws IOException, URISyntaxException
    {
        final Path location = Path.of(Pipeline.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        final List<Class<?>> types = new ArrayList<>();
        if (Files.isDirectory(location))
        {
            addTypes(location.resolve("io/xmit/actors"), types);
        }
        else
        {
            try (FileSystem jar = FileSystems.newFileSystem(location))
            {
                addTypes(jar.getPath("io/xmit/actors"), types);
            }
        }
        assertTrue(types.contains(Pipeline.class) && types.contains(UdpSocket.class), types.toString());
        return types;
    }

    private static void addTypes(final Path folder, final List<Class<?>> types) throws IOException
    {
        try (Stream<Path> files = Files.list(folder))
        {
            for (final Path file : files.toList())
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(".class") && !name.contains("$") && !name.equals("package-info.class"))
                {
                    try
                    {
                        final Class<?> type = Class.forName("io.xmit.actors." + name.replace(".class", ""));
                        if (Modifier.isPublic(type.getModifiers()))
                        {
                            types.add(type);
                        }
                    }
                    catch (final ClassNotFoundException ex)
                    {
                        throw new IllegalStateException(ex);
                    }
                }
            }
        }
    }

    private static boolean nameable(final Type type)
    {
        if (type instanceof ParameterizedType parameterized)
        {
            for (final Type argument : parameterized.getActualTypeArguments())
            {
                if (!nameable(argument))
                {
                    return false;
                }
            }
            return nameable(parameterized.getRawType());
        }
        if (type instanceof Class<?> raw)
        {
            Class<?> outer = raw;
            while (outer.isArray())
            {
                outer = outer.getComponentType();
            }
            if (outer.isPrimitive())
            {
                return true;
            }
            for (Class<?> enclosing = outer; null != enclosing; enclosing = enclosing.getEnclosingClass())
            {
                if (!Modifier.isPublic(enclosing.getModifiers()))
                {
                    return false;
                }
            }
            return !outer.getPackageName().contains(".internal");
        }
        return true;
    }
}
