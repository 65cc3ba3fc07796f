#!/usr/bin/env bash
# Compiles the NIC driver shim with the system C compiler into $1/libxmitnic.so (called by the Maven build).
set -euo pipefail
out="${1:?usage: build.sh OUTPUT_DIR}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

. "$src/find-cc.sh"

mkdir -p "$out"
"$cc" -std=c11 -D_GNU_SOURCE -O2 -g -fPIC -shared -fvisibility=hidden \
    -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion \
    -o "$out/libxmitnic.so" "$src"/*.c -lpthread
