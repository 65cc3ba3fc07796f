package io.xmit.transport.nic;

/**
 * A control operation on the NIC shim was refused: the message names the operation, the argument and the errno.
 */
public final class NicException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int errno;

    public NicException(final String message, final int errno)
    {
        super(message + ": " + Errno.describe(errno));
        this.errno = Math.abs(errno);
    }

    /** The positive errno. */
    public int errno()
    {
        return errno;
    }
}
