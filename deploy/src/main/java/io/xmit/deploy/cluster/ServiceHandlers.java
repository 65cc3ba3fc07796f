package io.xmit.deploy.cluster;

import io.xmit.actors.DatagramHandler;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where a node's sockets get their handlers: from code, a factory per service name that the application registers
 * ({@link #register}); else from the file, {@code services[].handler}, either {@code echo} ({@link EchoHandler}) or
 * the name of a public class that implements {@link DatagramHandler} and has a public no-argument constructor. Each
 * socket gets an instance of its own (its handler runs on the socket's actor, one datagram at a time), so a handler
 * needs no locks for state of its own. A class that is missing, of another type or whose constructor throws is
 * refused by {@link #resolve} with a message naming the key.
 */
public final class ServiceHandlers
{
    /** The handler name that needs no class: {@link EchoHandler}. */
    public static final String ECHO = "echo";

    private final Map<String, Supplier<? extends DatagramHandler>> registered = new LinkedHashMap<>();

    /** An empty registry: until the application registers some, every handler comes from the file. */
    public ServiceHandlers()
    {
        // Filled by register.
    }

    /**
     * Handlers of service {@code service} are made by {@code factory}, once per socket; this wins over the file's
     * {@code handler}.
     */
    public ServiceHandlers register(final String service, final Supplier<? extends DatagramHandler> factory)
    {
        if (null == service || null == factory)
        {
            throw new IllegalArgumentException("service and factory must not be null, were " + service + " and " +
                factory);
        }
        registered.put(service, factory);
        return this;
    }

    /**
     * A factory for each of {@code deployment}'s services: the registered one, or the file's handler class, checked
     * by making one instance now.
     *
     * @param required the services that must have a handler (those whose sockets run here); any other without one is
     *                 left out.
     * @throws IllegalArgumentException naming the key: a class that is missing, not a {@link DatagramHandler},
     *                                  without a public no-argument constructor, or whose constructor throws; a
     *                                  required service without a handler; a registered name that is no service.
     */
    public Map<String, Supplier<? extends DatagramHandler>> resolve(final Deployment deployment,
        final List<Service> required)
    {
        for (final String name : registered.keySet())
        {
            if (deployment.services().stream().noneMatch(service -> service.name().equals(name)))
            {
                throw new IllegalArgumentException("a handler is registered for service '" + name + "', which " +
                    "the deployment does not have; its services are " + deployment.services().stream()
                    .map(Service::name).toList());
            }
        }
        final Map<String, Supplier<? extends DatagramHandler>> factories = new LinkedHashMap<>();
        for (int i = 0; i < deployment.services().size(); i++)
        {
            final Service service = deployment.services().get(i);
            final String key = ClusterKey.SERVICE_HANDLER.key(i);
            if (registered.containsKey(service.name()))
            {
                factories.put(service.name(), registered.get(service.name()));
            }
            else if (service.handler().isPresent())
            {
                factories.put(service.name(), load(key, service.handler().get()));
            }
            else if (required.contains(service))
            {
                throw new IllegalArgumentException(key + ": service " + service.name() + " has no handler, and " +
                    "its sockets are to run on this node; name a class that implements " +
                    DatagramHandler.class.getName() + " (or " + ECHO + "), or register one in code");
            }
        }
        return factories;
    }

    private static Supplier<? extends DatagramHandler> load(final String key, final String name)
    {
        if (ECHO.equals(name))
        {
            return EchoHandler::new;
        }
        final Class<?> type;
        try
        {
            type = Class.forName(name, false, Thread.currentThread().getContextClassLoader());
        }
        catch (final ClassNotFoundException | LinkageError ex)
        {
            throw new IllegalArgumentException(key + " = '" + name + "': no such class on the class path (" +
                ex + ")");
        }
        if (!DatagramHandler.class.isAssignableFrom(type))
        {
            throw new IllegalArgumentException(key + " = '" + name + "' does not implement " +
                DatagramHandler.class.getName());
        }
        final var constructor = constructor(key, name, type.asSubclass(DatagramHandler.class));
        final Supplier<DatagramHandler> factory = () -> instance(key, name, constructor);
        factory.get();
        return factory;
    }

    private static Constructor<? extends DatagramHandler> constructor(final String key,
        final String name, final Class<? extends DatagramHandler> type)
    {
        try
        {
            return type.getConstructor();
        }
        catch (final NoSuchMethodException ex)
        {
            throw new IllegalArgumentException(key + " = '" + name + "' has no public no-argument constructor");
        }
    }

    private static DatagramHandler instance(final String key, final String name,
        final Constructor<? extends DatagramHandler> constructor)
    {
        try
        {
            return constructor.newInstance();
        }
        catch (final InvocationTargetException ex)
        {
            throw new IllegalArgumentException(key + " = '" + name + "': its constructor threw " + ex.getCause(),
                ex.getCause());
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalArgumentException(key + " = '" + name + "' cannot be made: " + ex);
        }
    }
}
