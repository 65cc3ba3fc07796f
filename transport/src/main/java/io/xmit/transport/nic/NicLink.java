package io.xmit.transport.nic;

/**
 * The kernel interface behind a port (afpacket), as it was when the device opened: the pipeline's MAC
 * defaults to the interface's, and its largest frame should fit the MTU.
 *
 * @param mac the MAC address, 48 bits with the first octet highest (the form frames are written with).
 * @param mtu the interface's MTU: the largest IP packet, without the 14-byte Ethernet header.
 */
public record NicLink(long mac, int mtu)
{
    /** The MAC address as {@code 02:00:00:00:00:01}. */
    public String macText()
    {
        final StringBuilder text = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8)
        {
            if (shift != 40)
            {
                text.append(':');
            }
            text.append(String.format("%02x", (mac >>> shift) & 0xFF));
        }
        return text.toString();
    }

    @Override
    public String toString()
    {
        return "NicLink[" + macText() + ", mtu=" + mtu + "]";
    }
}
