package io.xmit.deploy.cluster;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.xmit.deploy.cluster.DeploymentReaderTest.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The lines a node prints as members change, named as the deployment names them. */
class MembershipLogTest
{
    @Test
    void namesMembersCountsThoseUpAndSaysOnceWhenAllAreUp()
    {
        final MembershipLog log = new MembershipLog(read(""));
        assertEquals("edge-1", log.nameOf("127.0.0.1", 25520));
        assertEquals("127.0.0.1:25529", log.nameOf("127.0.0.1", 25529));
        assertEquals(List.of("member edge-1 up (1 of 3 nodes up)"), log.on("edge-1", MembershipLog.Change.UP));
        assertEquals(List.of("member app-1 joining (1 of 3 nodes up)"), log.on("app-1", MembershipLog.Change.JOINED));
        assertEquals(List.of("member app-1 up (2 of 3 nodes up)"), log.on("app-1", MembershipLog.Change.UP));
        assertEquals(List.of("member app-2 up (3 of 3 nodes up)", "all 3 nodes up"),
            log.on("app-2", MembershipLog.Change.UP));
        assertEquals(List.of("member app-2 unreachable (3 of 3 nodes up)"),
            log.on("app-2", MembershipLog.Change.UNREACHABLE));
        assertEquals(List.of("member app-2 reachable again (3 of 3 nodes up)"),
            log.on("app-2", MembershipLog.Change.REACHABLE));
        assertEquals(List.of("member app-2 leaving (2 of 3 nodes up)"), log.on("app-2", MembershipLog.Change.LEFT));
        assertEquals(List.of("member app-2 exiting (2 of 3 nodes up)"), log.on("app-2", MembershipLog.Change.EXITED));
        assertEquals(List.of("member app-2 removed (2 of 3 nodes up)"), log.on("app-2", MembershipLog.Change.REMOVED));
        assertEquals(MembershipLog.Change.REMOVED, log.last("app-2"));
        assertNull(log.last("127.0.0.1:25529"));
        assertEquals(List.of("member app-2 up (3 of 3 nodes up)", "all 3 nodes up"),
            log.on("app-2", MembershipLog.Change.UP));
    }
}
