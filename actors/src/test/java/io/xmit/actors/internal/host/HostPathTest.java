package io.xmit.actors.internal.host;

import io.xmit.actors.PipelineConfig;
import io.xmit.actors.PortAddress;
import io.xmit.pipeline.frame.EthernetFlyweight;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The send path's next hop and destination MAC on a port with ARP, and the ports' host keys. */
class HostPathTest
{
    private static final int OURS = 0x0A4D_0001;        // 10.77.0.1/24
    private static final int NEIGHBOUR = 0x0A4D_0002;   // 10.77.0.2
    private static final int GATEWAY = 0x0A4D_00FE;     // 10.77.0.254
    private static final int FAR = 0x0808_0808;         // 8.8.8.8

    private static HostPath path(final int gateway, final boolean arp)
    {
        return new HostPath(new PortAddress(0x0200_0000_0001L, OURS, 0, 1, 0x0200_0000_00AAL, 24,
            gateway, arp, true), null, null, null, null);
    }

    @Test
    void onLinkDestinationsAreTheirOwnNextHopAndTheOthersGoToTheGateway()
    {
        final HostPath path = path(GATEWAY, true);
        assertEquals(NEIGHBOUR, path.nextHop(NEIGHBOUR));
        assertEquals(GATEWAY, path.nextHop(FAR));
        assertEquals(FAR, path(0, true).nextHop(FAR), "no gateway: every destination on-link");
    }

    @Test
    void unresolvedUntilTheHostActorPublishesTheNextHopThenItsMac()
    {
        final HostPath path = path(GATEWAY, true);
        assertEquals(HostPath.UNRESOLVED, path.resolve(NEIGHBOUR));
        path.publish(new NextHops(new int[] {NEIGHBOUR, GATEWAY}, new long[] {0x0200_0000_0002L, 0x0200_0000_00FEL}));
        assertEquals(0x0200_0000_0002L, path.resolve(NEIGHBOUR));
        assertEquals(0x0200_0000_00FEL, path.resolve(FAR), "off-link: the gateway's MAC");
        assertEquals(HostPath.UNRESOLVED, path.resolve(0x0A4D_0003));
    }

    @Test
    void broadcastAndMulticastDestinationsMapToGroupMacsWithoutArp()
    {
        final HostPath path = path(0, true);
        assertEquals(EthernetFlyweight.BROADCAST_MAC, path.resolve(0xFFFF_FFFF));
        assertEquals(EthernetFlyweight.BROADCAST_MAC, path.resolve(0x0A4D_00FF), "the subnet's broadcast");
        assertEquals(0x0100_5E7F_0001L, path.resolve(0xEFFF_0001), "239.255.0.1, RFC 1112 §6.4");
    }

    @Test
    void withoutArpEveryDestinationGoesToThePeerMac()
    {
        assertEquals(0x0200_0000_00AAL, path(0, false).resolve(NEIGHBOUR));
    }

    @Test
    void nextHopsFindEveryEntryAndMarkUse()
    {
        final int count = 200;
        final int[] ips = new int[count];
        final long[] macs = new long[count];
        for (int i = 0; i < count; i++)
        {
            ips[i] = 0x0A00_0000 + i * 7919 + 1;
            macs[i] = 0x0200_0000_0000L + i;
        }
        final NextHops hops = new NextHops(ips, macs);
        for (int i = 0; i < count; i++)
        {
            assertEquals(macs[i], hops.lookup(ips[i]));
        }
        int used = 0;
        for (int slot = 0; slot < hops.slots(); slot++)
        {
            used += hops.takeUse(slot) ? 1 : 0;
            assertEquals(false, hops.takeUse(slot), "a mark is taken once");
        }
        assertEquals(count, used);
        assertEquals(HostPath.UNRESOLVED, hops.lookup(0x0B00_0001));
    }

    @Test
    void afpacketPortsTakeTheInterfaceMacWithArpAndIcmpOnAndTheKeysAreRead()
    {
        final PipelineConfig afpacket = PipelineConfig.builder().device("afpacket:if=eth9,queues=2").build();
        assertEquals(List.of(PortAddress.defaultForInterface()), afpacket.ports());
        assertEquals(PortAddress.LINK_MAC, afpacket.ports().get(0).mac());
        final PipelineConfig parsed = PipelineConfig.fromConfig(ConfigFactory.parseString("""
            xmit {
              device = "afpacket:if=eth9,queues=2"
              ports = [ { ipv4 = "10.77.0.1", prefix = 16, gateway = "10.77.0.254", arp = off, icmp = on } ]
            }
            """));
        assertEquals(new PortAddress(PortAddress.LINK_MAC, OURS, 0xFD00_0000_0000_0000L,
            1, 0xFFFF_FFFF_FFFFL, 16, GATEWAY, false, true), parsed.ports().get(0));
        assertEquals(false, PipelineConfig.defaults().ports().get(0).hostBasics(), "loop keeps its static peer MAC");
        assertEquals("xmit.ports[0].arp = \"maybe\" is not on or off", assertThrows(IllegalArgumentException.class,
            () -> PipelineConfig.fromConfig(ConfigFactory.parseString("xmit.ports = [ { arp = maybe }, { } ]")))
            .getMessage());
        assertEquals("xmit.ports[0].prefix = 33 is not in 0..32", assertThrows(IllegalArgumentException.class,
            () -> PipelineConfig.fromConfig(ConfigFactory.parseString("xmit.ports = [ { prefix = 33 }, { } ]")))
            .getMessage());
    }
}
