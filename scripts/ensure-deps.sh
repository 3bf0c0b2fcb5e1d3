#!/usr/bin/env bash
# Installs what annabella needs to build and test, only when it is missing (Debian/Ubuntu).
# Sourced by scripts/demo.sh and scripts/test.sh (with --browser for what only the tests need);
# safe to run again and again.
set -euo pipefail

need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# A C compiler and linker: rustc links through cc.
for pkg in gcc libc6-dev; do
  have_pkg "$pkg" || need_apt+=("$pkg")
done

# Speech (src/io/speech, docs/speech.md). To build: the `tts` crate links libspeechd and generates
# its bindings with bindgen, which loads libclang at build time. To speak: speech-dispatcher with
# its espeak-ng module (the `tts` backend) and espeak-ng itself (the `espeak-ng` and `wav:DIR`
# backends). sox measures the recorded WAV files in tests/speech.rs and the stand-in loudspeaker
# of tests/speech_outputs.rs; alsa-utils (aplay) plays espeak-ng@DEVICE.
for pkg in libspeechd-dev libclang-dev speech-dispatcher speech-dispatcher-espeak-ng espeak-ng sox alsa-utils; do
  have_pkg "$pkg" || need_apt+=("$pkg")
done

# The web page's browser test (tests/web.rs): a real headless Chromium, driven by playwright-core
# under Node (tests/web/package.json). Node and npm only when there is none at all: a newer Node
# from elsewhere is kept.
# Only the test suite needs them (`source scripts/ensure-deps.sh --browser`); the demo does not.
if [ "${1:-}" = "--browser" ]; then
  for pkg in chromium chromium-driver; do
    have_pkg "$pkg" || need_apt+=("$pkg")
  done
  have node || need_apt+=(nodejs)
  have npm || need_apt+=(npm)
  # The peg board's firmware run in simavr against the daemon (tests/firmware_sim.rs): the AVR
  # toolchain, and simavr's library for the harness (firmware/sim/).
  for pkg in gcc-avr avr-libc binutils-avr libsimavr-dev libelf-dev; do
    have_pkg "$pkg" || need_apt+=("$pkg")
  done
  have make || need_apt+=(make)
  have pkg-config || need_apt+=(pkg-config)
  # A real SMTP server for the correspondence mail tests (tests/mail.rs): Python's aiosmtpd.
  have_pkg python3-aiosmtpd || need_apt+=(python3-aiosmtpd)
  # The wall clock stepped under a running daemon (tests/clock_restarts.rs): libfaketime.
  have_pkg libfaketime || need_apt+=(libfaketime)
fi

if ((${#need_apt[@]})); then
  echo "annabella: installing system packages: ${need_apt[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if have sudo; then SUDO="sudo"; else
      echo "annabella: need root (or sudo) to install: ${need_apt[*]}" >&2; exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if ! have cargo; then
  [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! have cargo; then
  echo "annabella: installing the Rust toolchain with rustup (needs Rust 1.95 or newer)" >&2
  have curl || { ${SUDO:-} apt-get update -qq && ${SUDO:-} apt-get install -y -qq curl >/dev/null; }
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c rustfmt,clippy
  export PATH="$HOME/.cargo/bin:$PATH"
fi
