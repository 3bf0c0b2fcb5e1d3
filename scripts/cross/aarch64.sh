#!/usr/bin/env bash
# annabella for the Raspberry Pi and other aarch64 (arm64) Linux boxes, built from Debian/Ubuntu
# on x86_64; called by scripts/cross.sh:
#   scripts/cross.sh aarch64 [build]   release build: target/aarch64-unknown-linux-gnu/release/annabella
#   scripts/cross.sh aarch64 test      the tests under qemu-user (see docs/platforms.md)
#   scripts/cross.sh aarch64 check     cargo check only (what CI runs)
# Installs only what is missing: the Rust target, gcc-aarch64-linux-gnu, qemu-user, and (arm64
# multiarch) libspeechd-dev:arm64, which the `tts` crate links.
#
# Test runs: the library tests of every workspace crate, and the integration tests listed in
# QEMU_TESTS (or those named on the command line: `… aarch64 test cli replay`). A test binary and
# the daemon it starts both run through `qemu-aarch64 -L /`: cargo runs the test binary through
# CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER, and tests/common starts the daemon through
# ANNABELLA_TEST_RUNNER (without binfmt_misc the kernel cannot exec an aarch64 program itself).
# `-L /`, not `-L /usr/aarch64-linux-gnu`: once libc6:arm64 (multiarch) is installed, that
# prefix's loader meets the multiarch libc and every thread start hangs.
set -euo pipefail
cd "$(dirname "$0")/../.."

target=aarch64-unknown-linux-gnu
mode="${1:-build}"
[ $# -gt 0 ] && shift

have() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

install_missing() {
    # The host's own build needs (libclang for bindgen, a C compiler).
    source scripts/ensure-deps.sh
    if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
        echo "aarch64: adding the Rust target $target" >&2
        rustup target add "$target"
    fi
    local need=()
    local pkgs=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross)
    # A check compiles only; building and testing run the result under qemu.
    [ "$mode" = check ] || pkgs+=(qemu-user)
    for pkg in "${pkgs[@]}"; do
        have_pkg "$pkg" || need+=("$pkg")
    done
    if ! have_pkg libspeechd-dev:arm64; then
        if ! dpkg --print-foreign-architectures | grep -qx arm64; then
            echo "aarch64: adding the arm64 architecture to dpkg (for libspeechd-dev:arm64)" >&2
            $SUDO dpkg --add-architecture arm64
        fi
        need+=(libspeechd-dev:arm64)
    fi
    if ((${#need[@]})); then
        echo "aarch64: installing ${need[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    fi
}

install_missing

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
export PKG_CONFIG_ALLOW_CROSS=1
export PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /"
export ANNABELLA_TEST_RUNNER="qemu-aarch64 -L /"
export QEMU_LD_PREFIX=/

# The integration tests run under qemu by default: those that need no board on a
# pseudo-terminal. qemu-user 7.2 (Debian 12) does not translate TCGETS2, the ioctl that sets a
# serial port's baud rate, so every test with a pty board (serial, daemon, daemon_keys,
# private_files, the e-board tests …) fails there with ENOSYS; a real Pi runs them as amd64
# does. setup_guide passes but its exhaustive search takes many minutes in a debug build under
# emulation. Name any test on the command line to run it anyway (docs/platforms.md).
QEMU_TESTS=(appliance cli control replay store strangers)

seconds() { date +%s; }

case "$mode" in
    check)
        cargo check --locked --target "$target" --lib --bins
        ;;
    build)
        start=$(seconds)
        cargo build --release --locked --target "$target" --bin annabella
        took=$(($(seconds) - start))
        bin="${CARGO_TARGET_DIR:-target}/$target/release/annabella"
        echo "aarch64: built $bin in ${took} s ($(du -h "$bin" | cut -f1))"
        file "$bin" 2>/dev/null || true
        # The binary runs: its version under qemu.
        qemu-aarch64 -L / "$bin" --version
        ;;
    test)
        tests=("$@")
        ((${#tests[@]})) || tests=("${QEMU_TESTS[@]}")
        log="${CARGO_TARGET_DIR:-target}/$target/qemu-test.log"
        mkdir -p "$(dirname "$log")"
        start=$(seconds)
        args=()
        for t in "${tests[@]}"; do args+=(--test "$t"); done
        # Compiled first, so the figures separate compile time from run time.
        cargo test --locked --target "$target" --workspace --lib "${args[@]}" --no-run
        built=$(seconds)
        set +e
        cargo test --locked --target "$target" --workspace --lib "${args[@]}" --no-fail-fast \
            -- --test-threads=2 2>&1 | tee "$log"
        status=${PIPESTATUS[0]}
        set -e
        ran=$(seconds)
        passed=$(grep -o '[0-9]* passed' "$log" | awk '{s+=$1} END {print s+0}')
        failed=$(grep -o '[0-9]* failed' "$log" | awk '{s+=$1} END {print s+0}')
        ignored=$(grep -o '[0-9]* ignored' "$log" | awk '{s+=$1} END {print s+0}')
        echo
        echo "aarch64 under qemu-user: $passed passed, $failed failed, $ignored ignored" \
            "(a test that cannot run under qemu says \"skipped: …\" in its output and passes)"
        echo "aarch64: compiled in $((built - start)) s, ran in $((ran - built)) s;" \
            "integration tests run: ${tests[*]}"
        echo "aarch64: the whole output is in $log"
        exit "$status"
        ;;
    *)
        echo "aarch64: unknown step '$mode' (build, test or check)" >&2
        exit 2
        ;;
esac
