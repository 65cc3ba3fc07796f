package io.xmit.deploy;

public final class Main
{
    public static void main(final String[] args)
    {
        System.out.println("xmit");
    }
}
