package io.xmit.deploy;

import picocli.CommandLine.Option;

/** {@code -h}/{@code --help} of every command, mixed in (the version is the top command's alone). */
public final class HelpOption
{
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;
}
