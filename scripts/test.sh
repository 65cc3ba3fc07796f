# Sourced by ./xmit for `./xmit test [maven args...]`, the test command (README, .ci/run), after the JDK is chosen
# (scripts/jdk.sh): checks for a C compiler, makes the tools the tests run available, then runs
# ./mvnw -B -ntp verify with the arguments given. A missing tool is installed when root with apt-get (that is how CI
# gets them); otherwise one line says which tests will skip without it, and those tests skip saying why.

# tool, Debian package, the tests that need it
XMIT_TEST_TOOLS=(
    "ip|iproute2|the veth tests (AfPacketDeviceTest, HostOverVethTest) will skip"
    "ping|iputils-ping|HostOverVethTest.kernelPingGetsEchoReplies will skip"
    "tshark|tshark|the checks that tshark reads the trace files as PcapngReader does (PcapngWriterTest, TraceDecisionsTest, TracePipelineTest, TraceCommandTest) will skip"
)

xmit_test_usage() {
    cat <<'EOF'
usage: ./xmit test [maven args...]
Runs all tests: ./mvnw -B -ntp verify [maven args...] on the JDK the launcher picks (JAVA_HOME, else the newest
JDK 25+ under /usr/lib/jvm). One test class, with the modules it needs built first:
  ./xmit test -pl tests -am -Dtest=HostOverVethTest -Dsurefire.failIfNoSpecifiedTests=false
First it checks for a C compiler (the build compiles the NIC driver shim) and for the tools some tests run:
ip (iproute2), ping (iputils-ping), tshark (tshark). As root with apt-get it installs what is missing (gcc and
libc6-dev for the compiler); otherwise it says which tests will skip without each tool, and they skip saying why.
As root it also sets XMIT_REQUIRE_NETNS=1 (unless set already), so the veth tests and the C afpacket leg fail
rather than skip where network namespaces cannot be made; XMIT_REQUIRE_TSAN=1 does the same for the C tests'
ThreadSanitizer leg.
EOF
}

xmit_test_has_cc() {
    local candidate
    for candidate in ${CC:-} cc gcc clang; do
        if command -v "$candidate" >/dev/null 2>&1; then return 0; fi
    done
    return 1
}

xmit_test() {
    local root="$1"
    shift
    case "${1:-}" in
        -h|--help|help) xmit_test_usage; return 0 ;;
    esac

    local can_install=""
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then can_install=1; fi

    local packages=() entry tool package skips
    if ! xmit_test_has_cc; then
        if [ -z "$can_install" ]; then
            echo "xmit test: no C compiler (tried \$CC, cc, gcc, clang), and the build compiles the NIC driver shim with one: install gcc and libc6-dev (sudo apt-get install gcc libc6-dev), or set CC" >&2
            return 1
        fi
        echo "xmit test: no C compiler; installing gcc libc6-dev" >&2
        packages+=(gcc libc6-dev)
    fi
    for entry in "${XMIT_TEST_TOOLS[@]}"; do
        IFS='|' read -r tool package skips <<<"$entry"
        command -v "$tool" >/dev/null 2>&1 && continue
        if [ -n "$can_install" ]; then
            echo "xmit test: no $tool; installing $package" >&2
            packages+=("$package")
        else
            echo "xmit test: no $tool, so $skips; install it with: sudo apt-get install $package" >&2
        fi
    done
    if [ "${#packages[@]}" -gt 0 ]; then
        local log
        log="$(mktemp)"
        if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}"; } \
            >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            echo "xmit test: apt-get install ${packages[*]} failed (output above)" >&2
            return 1
        fi
        rm -f "$log"
    fi
    # As root (CI, or a newcomer with sudo) the tools are installed above and network namespaces are expected to
    # work, so the veth tests and the C tests' afpacket leg must run: XMIT_REQUIRE_NETNS=1 turns their skip into a
    # failure (an XMIT_REQUIRE_NETNS already set is kept, so XMIT_REQUIRE_NETNS=0 opts out). Not root, they skip
    # saying why. XMIT_REQUIRE_TSAN=1 likewise requires the C tests' ThreadSanitizer leg; it is not set here, as
    # whether ThreadSanitizer runs depends on the kernel's memory layout, which installing cannot fix.
    if [ "$(id -u)" -eq 0 ]; then
        export XMIT_REQUIRE_NETNS="${XMIT_REQUIRE_NETNS:-1}"
        if [ "$XMIT_REQUIRE_NETNS" = 1 ]; then
            echo "xmit test: root, so the veth tests (AfPacketDeviceTest, HostOverVethTest) and the C afpacket leg must run: XMIT_REQUIRE_NETNS=1 makes a skip of theirs a failure" >&2
        fi
    else
        echo "xmit test: not root, so the veth tests (AfPacketDeviceTest, HostOverVethTest: network namespaces of their own) and the C afpacket leg will skip; sudo ./xmit test includes them" >&2
    fi

    echo "xmit test: JAVA_HOME=$JAVA_HOME; ./mvnw -B -ntp verify $*" >&2
    cd "$root" && exec ./mvnw -B -ntp verify "$@"
}
