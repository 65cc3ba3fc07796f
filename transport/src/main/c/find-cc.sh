# Sourced by build.sh and run-sanitized.sh: sets `cc` to the C compiler ($CC, else cc, gcc or clang), or stops
# the build with a message naming what is missing and how to install it.
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
