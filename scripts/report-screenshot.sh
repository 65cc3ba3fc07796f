#!/usr/bin/env bash
# Renders a bench report (xmit bench … --report FILE.html) to a PNG in headless Chromium, to check by eye how it looks
# in a real browser. Installs Debian's chromium with apt-get when it is missing (root, or sudo). Not part of
# ./xmit test. Usage: scripts/report-screenshot.sh REPORT.html [OUT.png] [WIDTH,HEIGHT]
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
    echo "usage: $0 REPORT.html [OUT.png] [WIDTH,HEIGHT]   (default OUT: REPORT.png, size 1400,3000)" >&2
    exit 2
fi
report="$1"
out="${2:-${report%.html}.png}"
size="${3:-1400,3000}"
if [ ! -f "$report" ]; then
    echo "$0: no report '$report' (write one with ./xmit bench … --report FILE.html)" >&2
    exit 2
fi
if ! [[ "$size" =~ ^[0-9]{2,5},[0-9]{2,5}$ ]]; then
    echo "$0: size '$size': expected WIDTH,HEIGHT in pixels, e.g. 1400,3000" >&2
    exit 2
fi

browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    echo "$0: installing chromium (apt-get)…" >&2
    timeout 600 $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive timeout 900 $sudo apt-get install -y -qq chromium >/dev/null
    browser="$(command -v chromium)"
fi

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
# No network, sync, updates or first-run pages: the report is self-contained and the profile is thrown away.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" \
    --hide-scrollbars --window-size="$size" --screenshot="$(realpath -m "$out")" \
    "file://$(realpath "$report")" 2>"$profile/chromium.log" || {
    cat "$profile/chromium.log" >&2
    echo "$0: chromium failed to render $report" >&2
    exit 1
}
echo "$out"
