package io.xmit.tests.example;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

class UdpEchoExampleTest
{
    @Test
    void theReadmeExampleEchoesEveryPing() throws Exception
    {
        final PrintStream original = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try
        {
            UdpEchoExample.main(new String[0]);
        }
        finally
        {
            System.setOut(original);
        }
        assertEquals("echo: ping 1\necho: ping 2\necho: ping 3\n", captured.toString(StandardCharsets.UTF_8));
    }
}
