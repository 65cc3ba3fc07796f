package io.xmit.deploy;

/** A bad command-line argument: printed as one line, exit code 2, no stack trace. */
public final class UsageException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public UsageException(final String message)
    {
        super(message, null, false, false);
    }
}
