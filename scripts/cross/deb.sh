#!/usr/bin/env bash
# annabella as a Debian package (Debian, Ubuntu, Raspberry Pi OS); called by scripts/cross.sh:
#   scripts/cross.sh deb amd64|arm64          target/debian/annabella_VERSION_ARCH.deb
#   scripts/cross.sh deb amd64|arm64 test     the package made, then checked (see below)
# Built with dpkg-deb from a staged tree (no cargo-deb to install: works offline). arm64 is
# cross-built by scripts/cross/aarch64.sh. What the package holds (docs/appliance.md):
#   /usr/bin/annabella                        the daemon (voices are compiled in)
#   /etc/annabella/annabella.toml             a conffile, from config/debian/annabella.toml
#   /lib/systemd/system/annabella.service     from config/debian/annabella.service
#   /usr/share/doc/annabella/                 README, appliance guide, every configuration key
# postinst creates the system user `annabella` (groups dialout, audio) and enables the service;
# /var/lib/annabella is the service's StateDirectory.
#
# `test` on amd64 installs the package here (dpkg -i, with apt for missing dependencies), runs
# the installed binary as the `annabella` user with the installed configuration until it says
# ready and serves its page, checks the unit with `systemd-analyze verify`, and purges the
# package (dpkg -P), checking that the binary and the user are gone. On arm64 (not runnable
# here) it checks the package's contents and runs the packaged binary under qemu-user.
set -euo pipefail
cd "$(dirname "$0")/../.."

arch="${1:-}"
step="${2:-build}"
case "$arch" in
    amd64) target=x86_64-unknown-linux-gnu strip=strip ;;
    arm64) target=aarch64-unknown-linux-gnu strip=aarch64-linux-gnu-strip ;;
    *)
        echo "deb: which architecture? amd64 or arm64" >&2
        exit 2
        ;;
esac
case "$step" in build | test) ;; *)
    echo "deb: unknown step '$step' (build or test)" >&2
    exit 2
    ;;
esac

target_dir="${CARGO_TARGET_DIR:-target}"
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
out_dir="$target_dir/debian"
deb="$out_dir/annabella_${version}_${arch}.deb"

build_binary() {
    local start=$SECONDS
    if [ "$arch" = arm64 ]; then
        bash scripts/cross/aarch64.sh build >&2
    else
        source scripts/ensure-deps.sh
        cargo build --release --locked --target "$target" --bin annabella >&2
    fi
    echo "deb: binary built in $((SECONDS - start)) s" >&2
}

stage() {
    local root="$out_dir/root-$arch"
    rm -rf "$root"
    mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/etc/annabella" \
        "$root/lib/systemd/system" "$root/usr/share/doc/annabella"
    local bin="$target_dir/$target/release/annabella"
    # The release profile keeps line tables for backtraces; the package leaves them out.
    "$strip" --strip-debug -o "$root/usr/bin/annabella" "$bin"
    chmod 755 "$root/usr/bin/annabella"
    install -m 644 config/debian/annabella.toml "$root/etc/annabella/annabella.toml"
    install -m 644 config/debian/annabella.service "$root/lib/systemd/system/annabella.service"
    install -m 644 README.md docs/appliance.md docs/speech.md config/annabella.example.toml \
        "$root/usr/share/doc/annabella/"
    cat >"$root/usr/share/doc/annabella/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: annabella
License: GPL-3.0-or-later
 On Debian systems the full text is in /usr/share/common-licenses/GPL-3.
EOF
    install -m 755 config/debian/postinst config/debian/prerm config/debian/postrm "$root/DEBIAN/"
    echo /etc/annabella/annabella.toml >"$root/DEBIAN/conffiles"
    local size
    size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
    # libspeechd2: the `tts` speech output is linked in (speech-dispatcher itself only
    # recommended: the packaged configuration speaks through espeak-ng and aplay).
    cat >"$root/DEBIAN/control" <<EOF
Package: annabella
Version: $version
Architecture: $arch
Maintainer: annabella <annabella@localhost>
Installed-Size: $size
Depends: libc6 (>= 2.36), libgcc-s1, libspeechd2 (>= 0.11), espeak-ng, alsa-utils, adduser
Recommends: speech-dispatcher, speech-dispatcher-espeak-ng
Section: games
Priority: optional
Description: chess for blind players: peg board, spoken moves, two-board reconciliation
 annabella links a blind player's tactile peg board to the sighted opponent's board,
 announces every move with the FIDE file names (Anna, Bella, Cesar ...) in seven
 languages, runs a talking clock and serves the table's web page. Installed as a
 service that starts with the machine: a Raspberry Pi at the board, no screen needed.
EOF
    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
        xargs -0 md5sum >DEBIAN/md5sums)
    dpkg-deb --root-owner-group --build "$root" "$deb" >&2
    echo "deb: made $deb ($(du -h "$deb" | cut -f1))"
}

# Runs `PROGRAM… serve --config CONFIG` with the addresses on free ports, the state in
# STATE/state and speech off, until it logs `ready`; checks that its page answers, stops it.
# Sets `checked` to what was seen.
serve_check() {
    local state="$1" config="$2"
    shift 2
    local log="$state.log" web="" page
    "$@" serve --config "$config" --state-dir "$state/state" --listen 127.0.0.1:0 \
        --web 127.0.0.1:0 --speech none 2>"$log" &
    local pid=$!
    for _ in $(seq 1 600); do
        web=$(grep -o 'web=http://[0-9.:]*/' "$log" | head -1 | cut -d= -f2 || true)
        [ -n "$web" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$web" ]; then
        cat "$log" >&2
        echo "deb test: the packaged binary did not get ready" >&2
        exit 1
    fi
    page=$(curl -fsS "$web" | head -c 200 | tr -d '\n')
    kill -TERM "$pid"
    wait "$pid" || true
    rm -f "$log"
    checked="page $web answered: ${page:0:60}…"
}

check_amd64() {
    export DEBIAN_FRONTEND=noninteractive
    if dpkg-query -W annabella >/dev/null 2>&1; then
        echo "deb test: annabella is already installed here; not touching it" >&2
        exit 1
    fi
    # apt resolves Depends from the archive; the package itself comes from the file.
    local file="$deb"
    case "$file" in /*) ;; *) file="./$file" ;; esac
    apt-get install -y -qq --no-install-recommends "$file" >/dev/null
    trap 'dpkg -P annabella >/dev/null 2>&1 || true' EXIT
    echo "deb test: installed: $(dpkg-query -W -f='${Package} ${Version} ${Architecture}' annabella)"
    id annabella
    [ -x /usr/bin/annabella ] && [ -f /etc/annabella/annabella.toml ]
    dpkg-query -W -f='${Conffiles}\n' annabella | grep -q /etc/annabella/annabella.toml
    echo "deb test: /etc/annabella/annabella.toml is a conffile"

    # The installed binary with the installed configuration, as the service's user.
    local state
    state=$(mktemp -d /tmp/annabella-deb-test.XXXXXX)
    chown annabella:annabella "$state"
    serve_check "$state" /etc/annabella/annabella.toml runuser -u annabella -- /usr/bin/annabella
    echo "deb test: the installed binary got ready as user annabella; $checked"
    rm -rf "$state"

    if ! command -v systemd-analyze >/dev/null; then
        apt-get install -y -qq --no-install-recommends systemd >/dev/null
    fi
    echo "deb test: systemd-analyze verify annabella.service:"
    if systemd-analyze verify /lib/systemd/system/annabella.service; then
        echo "deb test: the unit verifies clean"
    else
        echo "deb test: systemd-analyze verify FAILED" >&2
        exit 1
    fi

    dpkg -P annabella >/dev/null
    trap - EXIT
    if [ -e /usr/bin/annabella ] || [ -e /etc/annabella/annabella.toml ] || id annabella >/dev/null 2>&1; then
        echo "deb test: something is left after dpkg -P" >&2
        exit 1
    fi
    echo "deb test: purged; /usr/bin/annabella, the conffile and the user are gone"
}

check_arm64() {
    dpkg-deb --info "$deb" | sed -n '/Package:/,/Description:/p'
    dpkg-deb --contents "$deb" | awk '{print $6}'
    local x
    x=$(mktemp -d /tmp/annabella-deb-arm64.XXXXXX)
    dpkg-deb -x "$deb" "$x"
    file "$x/usr/bin/annabella" | grep -q 'ARM aarch64'
    echo "deb test: the packaged binary is aarch64; under qemu-user it says:"
    qemu-aarch64 -L / "$x/usr/bin/annabella" --version
    # The packaged binary with the packaged configuration, under qemu.
    serve_check "$x" "$x/etc/annabella/annabella.toml" qemu-aarch64 -L / "$x/usr/bin/annabella"
    echo "deb test: the packaged binary with the packaged configuration got ready under qemu; $checked"
    rm -rf "$x"
}

start=$SECONDS
build_binary
stage
echo "deb: $arch package in $((SECONDS - start)) s"
if [ "$step" = test ]; then
    "check_$arch"
fi
