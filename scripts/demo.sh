#!/usr/bin/env bash
# The main job: installs what is missing, builds annabella, and shows a correspondence game
# (ICCF numeric, as a correspondent sends it) read into every form the project writes, and a
# recorded peg-board stream read by the move detector. (The daemon's demo replaces this when the
# daemon lands.)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh
cargo build --locked --release --quiet
bin=target/release/annabella
game=docs/examples/correspondence-iccf.txt
show() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }
show "The game as the correspondent sent it" cat "$game"
show "Read back as SAN with German piece letters" "$bin" convert --to san --lang de "$game"
show "As the blind player hears it (German, FIDE file names)" "$bin" convert --to spoken --lang de "$game"
show "As PGN for the archive" "$bin" convert --to pgn "$game"
show "As a Braille scoresheet (Unicode braille)" "$bin" convert --to braille --lang de "$game"
show "One move announced in Spanish, long form" "$bin" announce --lang es --verbosity long e4 e5 Cf3
show "A recorded peg-board stream (with sensor chatter and a misplaced knight) read by the move detector" \
  "$bin" replay --protocol peg docs/examples/peg-recording.txt
