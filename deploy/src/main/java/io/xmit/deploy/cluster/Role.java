package io.xmit.deploy.cluster;

import java.util.Arrays;
import java.util.stream.Collectors;

/** What a node is for: an edge owns devices (NIC ports), an app node hosts sockets of services. */
public enum Role
{
    EDGE("edge"),
    APP("app");

    private final String label;

    Role(final String label)
    {
        this.label = label;
    }

    /** The role as the file and Akka's {@code akka.cluster.roles} spell it. */
    public String label()
    {
        return label;
    }

    /** @throws IllegalArgumentException naming {@code key}, the value and the roles there are. */
    public static Role of(final String key, final String text)
    {
        for (final Role role : values())
        {
            if (role.label.equals(text))
            {
                return role;
            }
        }
        throw new IllegalArgumentException(key + " = '" + text + "' is not a role; the roles are " + labels());
    }

    static String labels()
    {
        return Arrays.stream(values()).map(Role::label).collect(Collectors.joining(" and "));
    }
}
