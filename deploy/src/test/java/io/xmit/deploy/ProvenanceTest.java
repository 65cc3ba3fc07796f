package io.xmit.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where a bench's figures come from: the CPU's model from /proc/cpuinfo, and the command quoted as typed. */
class ProvenanceTest
{
    @TempDir
    Path dir;

    @Test
    void theCpuIsTheFirstModelNameInCpuinfo() throws Exception
    {
        final Path cpuinfo = Files.writeString(dir.resolve("cpuinfo"), """
            processor\t: 0
            vendor_id\t: GenuineIntel
            model\t\t: 85
            model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz
            processor\t: 1
            model name\t: Other
            """);
        assertEquals("Intel(R) Xeon(R) CPU @ 2.20GHz", Provenance.cpuModel(cpuinfo));
    }

    @Test
    void theCpuIsUnknownWithoutAModelNameOrWithoutCpuinfo() throws Exception
    {
        // An arm64 /proc/cpuinfo names no model; a system without /proc has none at all.
        final Path arm = Files.writeString(dir.resolve("cpuinfo"), "processor\t: 0\nCPU implementer\t: 0x41\n");
        assertEquals("unknown", Provenance.cpuModel(arm));
        assertEquals("unknown", Provenance.cpuModel(dir.resolve("none")));
    }

    @Test
    void theCommandQuotesTheWordsAShellWouldSplit()
    {
        assertEquals("xmit bench rr --json 'my run.json' --report 'it'\\''s.html' --rounds=3",
            Provenance.command(List.of("bench", "rr", "--json", "my run.json", "--report", "it's.html", "--rounds=3")));
    }
}
