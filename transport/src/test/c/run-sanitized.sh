#!/usr/bin/env bash
# Builds the NIC driver shim together with its C test program under AddressSanitizer and
# UndefinedBehaviorSanitizer into $1 and runs it; fails on any test failure or sanitizer report
# (called by the Maven build in the test phase).
set -euo pipefail
out="${1:?usage: run-sanitized.sh OUTPUT_DIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/../../main/c" && pwd)"

cc="${CC:-}"
if [ -z "$cc" ]; then
    for candidate in cc gcc clang; do
        if command -v "$candidate" >/dev/null 2>&1; then cc="$candidate"; break; fi
    done
fi
if [ -z "$cc" ] || ! command -v "$cc" >/dev/null 2>&1; then
    echo "xmit: no C compiler found (tried \$CC, cc, gcc, clang); the NIC driver shim in $src needs one." >&2
    echo "xmit: install one, e.g. 'apt-get install gcc libc6-dev' on Debian, or set CC." >&2
    exit 1
fi

mkdir -p "$out"
"$cc" -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer \
    -fsanitize=address,undefined -fno-sanitize-recover=all \
    -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion \
    -I "$src" -o "$out/nic_test" "$src"/*.c "$here/nic_test.c" -lpthread

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
