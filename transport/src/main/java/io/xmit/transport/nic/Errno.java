package io.xmit.transport.nic;

/**
 * Names for the negative errno values the shim and libc return, so an error message says {@code EBADF} rather
 * than {@code -9}.
 */
public final class Errno
{
    public static final int EPERM = 1;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EBADF = 9;
    public static final int ENOMEM = 12;
    public static final int EFAULT = 14;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;
    public static final int EOPNOTSUPP = 95;
    public static final int ENETDOWN = 100;
    public static final int ECANCELED = 125;

    private Errno()
    {
    }

    /**
     * @param errno an errno value, positive or negated.
     * @return e.g. {@code "EBADF (bad handle)"}.
     */
    public static String describe(final int errno)
    {
        return switch (Math.abs(errno))
        {
            case EPERM -> "EPERM (operation not permitted)";
            case ESRCH -> "ESRCH (no such process)";
            case EINTR -> "EINTR (interrupted)";
            case EIO -> "EIO (I/O error; an injected tx_burst failure on the shim)";
            case EBADF -> "EBADF (unknown, closed or forged device handle)";
            case ENOMEM -> "ENOMEM (out of memory)";
            case EFAULT -> "EFAULT (bad pointer or address)";
            case EINVAL -> "EINVAL (invalid argument)";
            case ENFILE -> "ENFILE (out of file descriptors for the device's eventfds and epoll)";
            case EMFILE -> "EMFILE (too many open devices)";
            case ENODEV -> "ENODEV (no such network interface)";
            case EOPNOTSUPP -> "EOPNOTSUPP (not supported by this backend)";
            case ENETDOWN -> "ENETDOWN (network interface is down)";
            case ECANCELED -> "ECANCELED (interrupt wait shut down)";
            default -> "errno " + Math.abs(errno);
        };
    }
}
