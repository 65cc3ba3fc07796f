package io.xmit.deploy.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/**
 * Ports on 127.0.0.1 that were free when asked for, each handed out once per JVM: the kernel may give a port it
 * has just given to a socket that closed, and a deployment with one port twice is refused.
 */
public final class FreePorts
{
    private static final Set<Integer> TCP = new HashSet<>();
    private static final Set<Integer> UDP = new HashSet<>();

    private FreePorts()
    {
    }

    /** A TCP port free now and never returned before in this JVM. */
    public static synchronized int tcp()
    {
        int port;
        do
        {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                port = socket.getLocalPort();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        while (!TCP.add(port));
        return port;
    }

    /** A UDP port free now and never returned before in this JVM. */
    public static synchronized int udp()
    {
        int port;
        do
        {
            try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
            {
                port = socket.getLocalPort();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        while (!UDP.add(port));
        return port;
    }
}
