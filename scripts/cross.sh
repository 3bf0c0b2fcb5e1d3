#!/usr/bin/env bash
# Builds, tests and packages annabella for other platforms from Debian/Ubuntu:
#   scripts/cross.sh windows [build|test|package|check] x86_64-pc-windows-gnu, tests under Wine
#   scripts/cross.sh aarch64 [build|test|check]     Raspberry Pi and other aarch64 boxes, tests under qemu-user
#   scripts/cross.sh deb amd64|arm64 [test]         a .deb under target/debian/ (test: install, run, purge)
# Each installs what it needs (Rust targets, cross toolchains, Wine, qemu) only when missing.
# The work for each platform is in scripts/cross/<platform>.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage() {
    sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
[ $# -ge 1 ] || usage
platform="$1"
shift
case "$platform" in
    windows | aarch64 | deb) ;;
    *)
        echo "cross.sh: no platform '$platform'" >&2
        usage
        ;;
esac
script="$here/cross/$platform.sh"
if [ ! -f "$script" ]; then
    echo "cross.sh: $platform is not built yet ($script is missing)" >&2
    exit 2
fi
exec bash "$script" "$@"
