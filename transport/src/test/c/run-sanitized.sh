#!/usr/bin/env bash
# Builds the NIC driver shim together with its C test program under AddressSanitizer and
# UndefinedBehaviorSanitizer into $1 and runs it, then builds it again under ThreadSanitizer and runs the
# groups that start threads; fails on any test failure or sanitizer report (called by the Maven build in
# the test phase). Where ThreadSanitizer is unavailable, says so and skips only that part, unless
# XMIT_REQUIRE_TSAN=1, which makes that a failure. XMIT_REQUIRE_NETNS=1 (set by ./xmit test when run as root)
# reaches the test program through the environment and makes its afpacket leg fail rather than skip without a
# network namespace of its own.
set -euo pipefail
out="${1:?usage: run-sanitized.sh OUTPUT_DIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/../../main/c" && pwd)"

. "$src/find-cc.sh"

mkdir -p "$out"
build() {
    local binary="$1" sanitizers="$2"
    shift 2
    "$cc" -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer "$@" \
        -fsanitize="$sanitizers" -fno-sanitize-recover=all \
        -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion \
        -I "$src" -o "$out/$binary" "$src"/*.c "$here/nic_test.c" -lpthread
}

# ThreadSanitizer needs its runtime library and a kernel whose memory layout it accepts: a program that
# does nothing, built and run with it, tells.
tsan=0
if printf 'int main(void) { return 0; }\n' | "$cc" -x c -fsanitize=thread -o "$out/tsan_probe" - \
        >"$out/tsan_probe.log" 2>&1 && "$out/tsan_probe" >>"$out/tsan_probe.log" 2>&1; then
    tsan=1
fi
if [ "$tsan" -eq 0 ] && [ "${XMIT_REQUIRE_TSAN:-}" = 1 ]; then
    echo "xmit: ThreadSanitizer is not available with $cc here (no runtime, or the kernel's memory layout:" \
        "its output is in $out/tsan_probe.log), and XMIT_REQUIRE_TSAN=1 requires the C tests'" \
        "ThreadSanitizer leg to run" >&2
    exit 1
fi

# The two builds run side by side.
build nic_test address,undefined &
asan_build=$!
if [ "$tsan" -eq 1 ]; then
    # Under ThreadSanitizer every memory access is slow: the groups check what the threads do, not how soon.
    build nic_test_tsan thread -DXMIT_NO_LATENCY_CHECKS &
    tsan_build=$!
fi
if ! wait "$asan_build"; then
    echo "xmit: the NIC shim's C tests do not compile (AddressSanitizer build)" >&2
    exit 1
fi
if [ "$tsan" -eq 1 ] && ! wait "$tsan_build"; then
    echo "xmit: the NIC shim's C tests do not compile (ThreadSanitizer build)" >&2
    exit 1
fi

# Sanitizer reports abort the program, so a non-zero exit covers them as well as failed checks; the log
# is also searched in case a report ever ends without one.
log="$out/nic_test.log"
status=0
ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$out/nic_test" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    echo "xmit: the NIC shim's C tests failed (exit $status); see $log" >&2
    exit 1
fi
if grep -q -E "runtime error:|ERROR: (Address|Leak)Sanitizer" "$log"; then
    echo "xmit: a sanitizer reported a problem in the NIC shim's C tests; see $log" >&2
    exit 1
fi

if [ "$tsan" -eq 0 ]; then
    echo "xmit: ThreadSanitizer is not available with $cc here (no runtime, or the kernel's memory layout);" \
        "the NIC shim's C tests ran under ASan/UBSan only (XMIT_REQUIRE_TSAN=1 makes this a failure)"
    exit 0
fi
# The groups that start threads; the others are single-threaded and add nothing here.
log="$out/nic_test_tsan.log"
status=0
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    "$out/nic_test_tsan" napi napi-rate threads tx-race 2>&1 | sed 's/^nic_test:/nic_test (tsan):/' | tee "$log" \
    || status=$?
if [ "$status" -ne 0 ]; then
    echo "xmit: the NIC shim's C tests failed under ThreadSanitizer (exit $status); see $log" >&2
    exit 1
fi
if grep -q -E "WARNING: ThreadSanitizer|ERROR: ThreadSanitizer" "$log"; then
    echo "xmit: ThreadSanitizer reported a problem in the NIC shim's C tests; see $log" >&2
    exit 1
fi
