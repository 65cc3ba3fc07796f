#!/usr/bin/env bash
# Compiles the NIC driver shim with the system C compiler into $1/libxmitnic.so (called by the Maven build).
set -euo pipefail
out="${1:?usage: build.sh OUTPUT_DIR}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

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
"$cc" -std=c11 -D_GNU_SOURCE -O2 -g -fPIC -shared -fvisibility=hidden \
    -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion \
    -o "$out/libxmitnic.so" "$src"/*.c -lpthread
