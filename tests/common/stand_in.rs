//! A stand-in loudspeaker: an `espeak-ng` that plays each utterance for its real length and logs when it starts, ends or is cut.
//!
//! The script renders the text with the real espeak-ng (same voice, same rate), measures the
//! audio with sox's `soxi`, and sleeps that long instead of playing, so a test hears the
//! daemon's speech with real timing on a machine without a sound card. It writes one line per
//! fact to its log: `start MS PID TEXT`, `end MS PID TEXT`, `cut MS PID TEXT` (MS in Unix
//! milliseconds). The speaker cuts an utterance by killing the process, which no signal handler
//! sees, so a watcher beside it logs the cut when the process is gone before its end. With
//! `--stdout` (the `wav:DIR` backend) it writes the real WAV instead and logs `record MS PID
//! TEXT`. A voice
//! probe (`-q`) succeeds at once. Put its directory first on `PATH`, or run it by its path.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// What the stand-in logged about one utterance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// `start`, `end` or `cut`.
    pub what: String,
    pub at_unix_ms: u64,
    pub pid: u32,
    pub text: String,
}

/// A stand-in `espeak-ng` in a directory of its own, with its log.
pub struct StandIn {
    pub dir: PathBuf,
    pub program: PathBuf,
    pub log: PathBuf,
}

/// The real espeak-ng's path, looked up on PATH before anything is put in front of it.
pub fn real_espeak() -> Option<PathBuf> {
    let out = Command::new("sh")
        .args(["-c", "command -v espeak-ng"])
        .output()
        .ok()?;
    let path = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
}

/// Whether the stand-in can run here: the real espeak-ng and soxi are installed
/// (scripts/ensure-deps.sh installs both).
pub fn available() -> bool {
    real_espeak().is_some()
        && Command::new("sh")
            .args(["-c", "command -v soxi"])
            .output()
            .is_ok_and(|o| o.status.success())
}

const SCRIPT: &str = r#"#!/bin/bash
# A stand-in espeak-ng written by tests/common/stand_in.rs: see there.
REAL='@REAL@'
LOG='@LOG@'
ms() { date +%s%3N; }
args=()
stdout=0
for a in "$@"; do
  case "$a" in
    -q) exit 0 ;;
    --stdout) stdout=1 ;;
    *) args+=("$a") ;;
  esac
done
text=$(cat)
tmp=$(mktemp --suffix=.wav)
trap 'rm -f "$tmp"' EXIT
printf '%s\n' "$text" | "$REAL" "${args[@]}" -w "$tmp" || exit 1
if [ "$stdout" = 1 ]; then
  echo "record $(ms) $$ $text" >> "$LOG"
  cat "$tmp"
  exit 0
fi
len=$(soxi -D "$tmp")
echo "start $(ms) $$ $text" >> "$LOG"
( while kill -0 $$ 2>/dev/null; do sleep 0.01; done; echo "cut $(ms) $$ $text" >> "$LOG" ) &
watcher=$!
sleep "$len"
kill "$watcher" 2>/dev/null
echo "end $(ms) $$ $text" >> "$LOG"
"#;

impl StandIn {
    /// Writes the stand-in as `DIR/espeak-ng`, logging to `DIR/played.log`. `None` when the
    /// real espeak-ng is missing.
    pub fn create(dir: &Path) -> Option<StandIn> {
        let real = real_espeak()?;
        std::fs::create_dir_all(dir).ok()?;
        let program = dir.join("espeak-ng");
        let log = dir.join("played.log");
        let script = SCRIPT
            .replace("@REAL@", &real.display().to_string())
            .replace("@LOG@", &log.display().to_string());
        std::fs::write(&program, script).ok()?;
        std::fs::write(&log, "").ok()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).ok()?;
        }
        Some(StandIn {
            dir: dir.to_path_buf(),
            program,
            log,
        })
    }

    /// Everything logged so far.
    pub fn played(&self) -> Vec<Played> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines()
            .filter_map(|line| {
                let mut parts = line.splitn(4, ' ');
                Some(Played {
                    what: parts.next()?.to_string(),
                    at_unix_ms: parts.next()?.parse().ok()?,
                    pid: parts.next()?.parse().ok()?,
                    text: parts.next().unwrap_or("").to_string(),
                })
            })
            .collect()
    }

    /// The texts in the order they started.
    pub fn started(&self) -> Vec<String> {
        self.played()
            .into_iter()
            .filter(|p| p.what == "start")
            .map(|p| p.text)
            .collect()
    }

    /// The texts the audio record got, in order.
    pub fn recorded(&self) -> Vec<String> {
        self.played()
            .into_iter()
            .filter(|p| p.what == "record")
            .map(|p| p.text)
            .collect()
    }

    /// Waits until `done` holds for the log, or fails after `within`.
    pub fn wait_until(&self, within: Duration, done: impl Fn(&[Played]) -> bool) -> Vec<Played> {
        let deadline = Instant::now() + within;
        loop {
            let played = self.played();
            if done(&played) {
                return played;
            }
            assert!(
                Instant::now() < deadline,
                "the stand-in loudspeaker never got there: {played:#?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
