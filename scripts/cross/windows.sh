#!/usr/bin/env bash
# annabella for Windows (x86_64-pc-windows-gnu), built on Debian/Ubuntu with mingw-w64:
#   scripts/cross.sh windows build     target/x86_64-pc-windows-gnu/release/annabella.exe
#   scripts/cross.sh windows test      the tests that need no Unix, run under Wine, with figures
#   scripts/cross.sh windows package   target/windows/annabella-<version>-windows-x86_64.zip
#   scripts/cross.sh windows check     cargo check only (what CI runs)
# Installs what is missing (the Rust target, mingw-w64, Wine, zip) with rustup and apt-get.
# WINDOWS_TESTS="lib cli" limits `test` to those (lib = the library's unit tests).
# docs/windows.md says what this tests and what only a real Windows can confirm.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
action="${1:-build}"
triple=x86_64-pc-windows-gnu
tdir="${CARGO_TARGET_DIR:-$root/target}"
work="$tdir/windows-build"
say() { printf 'windows: %s\n' "$*" >&2; }

apt_updated=""
apt_install() {
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    if [ -z "$apt_updated" ]; then
        $sudo apt-get -o DPkg::Lock::Timeout=600 update -q >&2
        apt_updated=1
    fi
    say "installing $*"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q \
        --no-install-recommends "$@" >&2
}

need_toolchain() {
    if ! rustup target list --installed | grep -qx "$triple"; then
        say "adding the Rust target $triple"
        rustup target add "$triple" >&2
    fi
    command -v x86_64-w64-mingw32-gcc > /dev/null && command -v x86_64-w64-mingw32-g++ > /dev/null ||
        apt_install gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64
}

need_wine() {
    [ -x /usr/lib/wine/wine64 ] || command -v wine64 > /dev/null || apt_install wine wine64
}

wine_bin() {
    if [ -x /usr/lib/wine/wine64 ]; then echo /usr/lib/wine/wine64; else command -v wine64; fi
}

# The Windows path of a Linux path, as Wine's Z: drive shows it.
winpath() { printf 'Z:%s' "$(printf '%s' "$1" | tr / '\\')"; }

# The folder of mingw's C++ runtime DLLs (libstdc++-6.dll, libgcc_s_seh-1.dll).
mingw_runtime_dir() {
    dirname "$(x86_64-w64-mingw32-g++ -print-file-name=libstdc++-6.dll)"
}

# The bundled Tolk sources (tolk-sys) need three fixes to build with mingw-w64 on Linux, all in
# the environment so the Linux build is untouched (docs/windows.md):
#  - sapi.h is included before windows.h: force-include windows.h;
#  - tolk-sys links User32, Ole32, OleAut32, but mingw's import libraries are lower-case and
#    Linux file names are case-sensitive: a folder of links with the capitalised names;
#  - g++ compiles the MIDL GUID files as C++, where const has internal linkage:
#    -D_MIDL_USE_GUIDDEF_ defines the GUIDs properly; the SAPI GUIDs come from -lsapi.
setup_env() {
    local case_dir="$work/mingw-case" lib real
    mkdir -p "$case_dir"
    for lib in User32 Ole32 OleAut32; do
        real="$(x86_64-w64-mingw32-gcc -print-file-name="lib${lib,,}.a")"
        [ -f "$real" ] || {
            say "mingw's lib${lib,,}.a is missing ($real)"
            exit 1
        }
        ln -sfn "$real" "$case_dir/lib$lib.a"
    done
    export CXXFLAGS_x86_64_pc_windows_gnu="-include windows.h -D_MIDL_USE_GUIDDEF_"
    export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS="-L $case_dir -l sapi"
}

# Wine 8 (Debian 12) lacks ProcessPrng, which Rust's standard library imports from
# bcryptprimitives.dll: a small shim (scripts/cross/bcryptprimitives.c) stands in for it under
# Wine only; Windows 10 and later have the real one. The folder also gets mingw's runtime DLLs
# and Tolk's, so test executables in deps/ find them.
setup_wine() {
    local dlls="$work/dlls"
    mkdir -p "$dlls"
    if [ ! -f "$dlls/bcryptprimitives.dll" ] ||
        [ "$root/scripts/cross/bcryptprimitives.c" -nt "$dlls/bcryptprimitives.dll" ]; then
        x86_64-w64-mingw32-gcc -shared -O2 -o "$dlls/bcryptprimitives.dll" \
            "$root/scripts/cross/bcryptprimitives.c" -ladvapi32
    fi
    cp -f "$(mingw_runtime_dir)"/libstdc++-6.dll "$(mingw_runtime_dir)"/libgcc_s_seh-1.dll "$dlls/"
    local pthread
    pthread="$(x86_64-w64-mingw32-gcc -print-file-name=libwinpthread-1.dll)"
    [ ! -f "$pthread" ] || cp -f "$pthread" "$dlls/"
    export WINEPREFIX="$work/wineprefix" WINEDEBUG=-all WINEPATH
    WINEPATH="$(winpath "$dlls")"
    # No Mono or Gecko prompt when the prefix is made: the tests need neither.
    export WINEDLLOVERRIDES="mscoree,mshtml="
    export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$(wine_bin)"
    if [ ! -d "$WINEPREFIX/drive_c" ]; then
        say "making the Wine prefix $WINEPREFIX"
        "$(wine_bin)" cmd /c exit > /dev/null 2>&1 || true
    fi
}

build() {
    need_toolchain
    setup_env
    local start end
    start=$(date +%s)
    cargo build --release --target "$triple" --bin annabella
    end=$(date +%s)
    say "built $tdir/$triple/release/annabella.exe in $((end - start)) s"
}

# The integration tests that run under Wine, all of whose tests pass there: those that need no
# pseudo-terminal board, Unix signal (`kill`), file mode, espeak-ng or sox, shell or
# `unshare` (docs/windows.md lists the others and why they are left out).
default_tests="lib board_codecs cli clock control correspondence_time detector eboard_codecs \
game_rules mail_corpus notation_vectors pgn_import phrases reconcile recovery replay \
setup_guide speech store table table_actor"

run_tests() {
    need_toolchain
    need_wine
    setup_env
    setup_wine
    local tests="${WINDOWS_TESTS:-$default_tests}" t args=() start end log
    for t in $tests; do
        if [ "$t" = lib ]; then args+=(--lib); else args+=(--test "$t"); fi
    done
    log="$work/test.log"
    start=$(date +%s)
    say "building the tests"
    cargo test --target "$triple" "${args[@]}" --no-run 2>&1 | tail -n 3 >&2
    end=$(date +%s)
    local build_s=$((end - start))
    start=$(date +%s)
    set +e
    cargo test --target "$triple" --no-fail-fast "${args[@]}" 2>&1 | tee "$log"
    local status=${PIPESTATUS[0]}
    set -e
    end=$(date +%s)
    local passed failed ignored
    read -r passed failed ignored < <(awk '/^test result:/ {
            for (i = 1; i <= NF; i++) {
                if ($(i+1) ~ /^passed/) p += $i
                if ($(i+1) ~ /^failed/) f += $i
                if ($(i+1) ~ /^ignored/) g += $i
            }
        } END { print p + 0, f + 0, g + 0 }' "$log")
    say "tests under $("$(wine_bin)" --version 2>/dev/null || echo Wine): $tests"
    say "building the tests: $build_s s; running them under Wine: $((end - start)) s"
    echo "Wine: $passed passed, $failed failed, $ignored ignored"
    return "$status"
}

# The DLLs annabella.exe (and the DLLs it brings) import that are not part of Windows: mingw's
# runtime, found beside the compiler.
needed_dlls() {
    local exe="$1" runtime todo seen=" " f d
    runtime="$(mingw_runtime_dir)"
    todo=("$exe")
    while [ ${#todo[@]} -gt 0 ]; do
        f="${todo[0]}"
        todo=("${todo[@]:1}")
        for d in $(x86_64-w64-mingw32-objdump -p "$f" | awk '/DLL Name:/ {print $3}'); do
            case "$seen" in *" $d "*) continue ;; esac
            seen="$seen$d "
            if [ -f "$runtime/$d" ]; then
                echo "$runtime/$d"
                todo+=("$runtime/$d")
            elif [ -f "$(x86_64-w64-mingw32-gcc -print-file-name="$d")" ]; then
                echo "$(x86_64-w64-mingw32-gcc -print-file-name="$d")"
                todo+=("$(x86_64-w64-mingw32-gcc -print-file-name="$d")")
            fi
        done
    done
}

package() {
    build
    command -v zip > /dev/null || apt_install zip
    local version name stage exe out zipdir
    version="$(cargo metadata --no-deps --format-version 1 |
        python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "annabella"))')"
    name="annabella-$version-windows-x86_64"
    stage="$work/package/$name"
    exe="$tdir/$triple/release/annabella.exe"
    rm -rf "$stage"
    mkdir -p "$stage/voices"
    cp "$exe" "$stage/"
    needed_dlls "$exe" | sort -u | while read -r d; do cp "$d" "$stage/"; done
    # Tolk loads these at run time to reach NVDA and System Access (not in the import table).
    cp "$tdir/$triple/release/"*.dll "$stage/" 2> /dev/null || true
    # The release profile keeps line tables for Linux backtraces; a player's zip needs none of
    # it (the executable goes from about 90 MB to about 20, libstdc++ from 23 MB to 2).
    for f in "$stage"/annabella.exe "$stage"/lib*.dll; do
        [ ! -f "$f" ] || x86_64-w64-mingw32-strip --strip-debug "$f"
    done
    cp config/voices/*.toml "$stage/voices/"
    # The example configuration with Windows' defaults: the state in the user's profile.
    sed -e 's|^state_dir = "/var/lib/annabella"|# On Windows the state is kept in your own profile, %LOCALAPPDATA%\\annabella, unless you\n# name another folder here, written with forward slashes: state_dir = "D:/chess/annabella"|' \
        config/annabella.example.toml > "$stage/annabella.toml"
    sed -e "s/@VERSION@/$version/g" scripts/cross/windows-README.txt > "$stage/README.txt"
    # Windows' editors and screen readers expect CRLF line ends in text files.
    for f in "$stage/README.txt" "$stage/annabella.toml" "$stage"/voices/*.toml; do
        sed -i 's/\r\{0,1\}$/\r/' "$f"
    done
    zipdir="$root/target/windows"
    mkdir -p "$zipdir"
    out="$zipdir/$name.zip"
    rm -f "$out"
    (cd "$work/package" && zip -q -r "$out" "$name")
    say "DLLs: $(cd "$stage" && ls ./*.dll 2> /dev/null | tr '\n' ' ')"
    say "packaged $out ($(du -k "$out" | cut -f1) KiB)"
}

case "$action" in
    build) build ;;
    check)
        need_toolchain
        setup_env
        cargo check --target "$triple" --lib --bins
        ;;
    test) run_tests ;;
    package) package ;;
    *)
        sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
        ;;
esac
