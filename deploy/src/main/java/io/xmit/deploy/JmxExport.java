package io.xmit.deploy;

import io.xmit.actors.stats.CounterScope;
import io.xmit.actors.stats.CounterType;
import io.xmit.actors.stats.CountersView;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.ReflectionException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pipeline's counters as JMX MBeans, through the JDK's own JMX: one MBean per scope (a port, an RX or TX queue, a
 * socket, the tracer), named {@code io.xmit:type=counters,pipeline=NAME,port=0,txq=3}, whose read-only attributes
 * are its counters by label ({@code qdisc_packets}). An attribute reads the counters file when it is read, as
 * {@code xmit stat} does, so the pipeline's hot path is untouched.
 */
final class JmxExport implements AutoCloseable
{
    static final String DOMAIN = "io.xmit";

    private final MBeanServer server;
    private final CountersView view;
    private final String pipeline;
    private final Map<ObjectName, ScopeBean> registered = new HashMap<>();

    JmxExport(final MBeanServer server, final CountersView view, final String pipeline)
    {
        this.server = server;
        this.view = view;
        this.pipeline = pipeline;
    }

    /** {@code io.xmit:type=counters,pipeline=NAME} and the scope's labels; the tracer's is {@code scope=trace}. */
    static ObjectName name(final String pipeline, final CounterScope scope)
    {
        final StringBuilder name = new StringBuilder(DOMAIN).append(":type=counters,pipeline=").append(pipeline);
        final Map<String, String> labels = CounterReading.labels(scope);
        if (labels.isEmpty())
        {
            name.append(",scope=").append(scope.label());
        }
        labels.forEach((key, value) -> name.append(',').append(key).append('=').append(value));
        try
        {
            return new ObjectName(name.toString());
        }
        catch (final MalformedObjectNameException ex)
        {
            throw new IllegalArgumentException("pipeline name '" + pipeline + "' cannot name an MBean", ex);
        }
    }

    /** Registers an MBean for each scope in the file now, and unregisters those of scopes gone (closed sockets). */
    void refresh()
    {
        final Map<ObjectName, List<CounterType>> now = new LinkedHashMap<>();
        final Map<ObjectName, CounterScope> scopes = new HashMap<>();
        for (final CounterReading reading : CounterReading.read(view))
        {
            final ObjectName name = name(pipeline, reading.scope());
            now.computeIfAbsent(name, n -> new ArrayList<>()).add(reading.type());
            scopes.put(name, reading.scope());
        }
        for (final ObjectName gone : List.copyOf(registered.keySet()))
        {
            if (!now.containsKey(gone))
            {
                unregister(gone);
            }
        }
        for (final Map.Entry<ObjectName, List<CounterType>> entry : now.entrySet())
        {
            final ScopeBean bean = registered.get(entry.getKey());
            if (null != bean)
            {
                bean.types = List.copyOf(entry.getValue());
                continue;
            }
            final ScopeBean added = new ScopeBean(view, scopes.get(entry.getKey()), List.copyOf(entry.getValue()));
            try
            {
                server.registerMBean(added, entry.getKey());
            }
            catch (final JMException ex)
            {
                throw new IllegalStateException("cannot register MBean " + entry.getKey() + ": " + ex.getMessage(), ex);
            }
            registered.put(entry.getKey(), added);
        }
    }

    @Override
    public void close()
    {
        for (final ObjectName name : List.copyOf(registered.keySet()))
        {
            unregister(name);
        }
    }

    private void unregister(final ObjectName name)
    {
        registered.remove(name);
        try
        {
            server.unregisterMBean(name);
        }
        catch (final JMException ex)
        {
            throw new IllegalStateException("cannot unregister MBean " + name + ": " + ex.getMessage(), ex);
        }
    }

    /** One scope's counters, each a read-only {@code long} attribute read from the file when asked. */
    private static final class ScopeBean implements DynamicMBean
    {
        private final CountersView view;
        private final CounterScope scope;
        /** The kinds the scope had at the last refresh (set by the refreshing thread, read by JMX's). */
        private volatile List<CounterType> types;

        ScopeBean(final CountersView view, final CounterScope scope, final List<CounterType> types)
        {
            this.view = view;
            this.scope = scope;
            this.types = types;
        }

        @Override
        public Object getAttribute(final String attribute) throws AttributeNotFoundException
        {
            for (final CounterType type : types)
            {
                if (type.label().equals(attribute))
                {
                    return view.value(type, scope);
                }
            }
            throw new AttributeNotFoundException("no counter " + attribute + " for " + scope);
        }

        @Override
        public AttributeList getAttributes(final String[] attributes)
        {
            final AttributeList list = new AttributeList();
            for (final String attribute : attributes)
            {
                try
                {
                    list.add(new Attribute(attribute, getAttribute(attribute)));
                }
                catch (final AttributeNotFoundException ignored)
                {
                    // JMX's contract: an attribute that cannot be read is left out of the list.
                }
            }
            return list;
        }

        @Override
        public void setAttribute(final Attribute attribute) throws AttributeNotFoundException
        {
            throw new AttributeNotFoundException("counters are read-only: " + attribute.getName());
        }

        @Override
        public AttributeList setAttributes(final AttributeList attributes)
        {
            return new AttributeList();
        }

        @Override
        public Object invoke(final String action, final Object[] params, final String[] signature)
            throws ReflectionException
        {
            throw new ReflectionException(new NoSuchMethodException(action), "counters have no operations");
        }

        @Override
        public MBeanInfo getMBeanInfo()
        {
            final List<CounterType> kinds = types;
            final MBeanAttributeInfo[] attributes = new MBeanAttributeInfo[kinds.size()];
            for (int i = 0; i < attributes.length; i++)
            {
                final CounterType type = kinds.get(i);
                attributes[i] = new MBeanAttributeInfo(type.label(), "long", (type.isGauge() ? "level" : "count") +
                    " (type id " + type.typeId() + ")", true, false, false);
            }
            return new MBeanInfo(ScopeBean.class.getName(), "xmit counters of " + scope, attributes, null, null, null);
        }
    }
}
