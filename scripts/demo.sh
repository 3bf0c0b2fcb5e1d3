#!/usr/bin/env bash
# The main job: installs what is missing, builds annabella, and runs its demo — a real daemon on a
# simulated peg board playing a short game with the system voice: the blind player's moves on the
# peg board, the correspondence opponent's moves in ICCF numeric notation over the control
# interface, one wrongly replicated move caught and corrected, the transcript, and the PGN.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh
cargo build --locked --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/annabella"
# The system voice (speech-dispatcher) may have no sound card to play on; the WAV record, made
# with espeak-ng, keeps what was said either way.
record="$(mktemp -d "${TMPDIR:-/tmp}/annabella-demo-audio.XXXXXX")"
"$bin" demo --speech "tts,wav:$record" "$@"
if ls "$record"/*.wav >/dev/null 2>&1; then
  for f in "$record"/*.wav; do
    printf '\nThe audio record of the game (FIDE D.2.7): %s (%s s)\n' "$f" "$(soxi -D "$f" 2>/dev/null || echo '?')"
  done
fi
