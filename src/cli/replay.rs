//! `annabella replay`: a recorded board stream through the daemon's decoder and detector.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::boards::{self, Millis, Protocol, SensorEvent};
use crate::cli::board_session::BoardSession;
use crate::io::recording;
use crate::table::detector::{TouchMove, TouchMoveError};

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The protocol of the recording: `peg` (text lines, optionally `@ms` stamped), or the raw
    /// bytes a `dgt` board (starting with a board dump), a `millennium` board or a `certabo`
    /// board sent — or those bytes with their timing, as `simulate-board --record` writes them
    /// (`@<ms> <hex bytes>` lines), which replays a hand's rests and slides as they happened.
    #[arg(long, value_parser = parse_protocol)]
    pub protocol: Protocol,
    #[command(flatten)]
    pub start: super::StartArgs,
    /// Touch-move rule (FIDE 4.3–4.4): off, warn (report) or strict (refuse).
    #[arg(long, default_value = "off", value_parser = parse_touch_move)]
    pub touch_move: TouchMove,
    /// Contact-sensor debounce window in milliseconds (peg boards; 0 turns it off).
    #[arg(long, default_value_t = boards::debounce::DEFAULT_WINDOW)]
    pub debounce_ms: Millis,
    /// Certabo recordings: the calibration file to read the chips with (it is not written);
    /// without it the recording's first start position teaches one.
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,
    /// The recording; `-` or nothing for standard input.
    pub file: Option<PathBuf>,
}

pub(crate) fn parse_protocol(s: &str) -> Result<Protocol, String> {
    s.parse()
}

pub(crate) fn parse_touch_move(s: &str) -> Result<TouchMove, TouchMoveError> {
    s.parse()
}

pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let path = args.file.clone().unwrap_or_else(|| PathBuf::from("-"));
    let bytes = super::read_bytes_bounded(&path, super::MAX_INPUT_BYTES)?;
    let mut session = BoardSession::new(
        args.protocol,
        args.start.game()?,
        args.touch_move,
        args.debounce_ms,
    );
    let mut decoder: Box<dyn boards::Decoder> = match (args.protocol, &args.calibration) {
        (Protocol::Certabo, Some(path)) => Box::new(boards::certabo::CertaboDecoder::new(
            crate::io::calibration::load(path).map_err(anyhow::Error::msg)?,
        )),
        _ => boards::decoder(args.protocol),
    };
    let mut decoded = Vec::new();
    let mut lines = Vec::new();
    let mut out = std::io::stdout().lock();
    // An event without a timestamp happens when the one before it did: no time passes, so no
    // settle window decides anything — the events alone do, in order (and nothing is debounced).
    // A stamped peg line (`@1234 Le2`) carries its own time.
    let mut now: Millis = 0;
    // A recording with its timing (`simulate-board --record`, `@<ms> <hex bytes>` lines) gives
    // each chunk its time: a piece resting on its way is read as a hand made it, and the
    // detector's hold on the last move ends at the end of the stream.
    let recorded = (args.protocol != Protocol::Peg && recording::is_text_recording(&bytes))
        .then(|| recording::parse(&String::from_utf8_lossy(&bytes), args.protocol))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let chunks: Box<dyn Iterator<Item = (Option<Millis>, &[u8])>> = match (&recorded, args.protocol)
    {
        (Some(chunks), _) => Box::new(chunks.iter().map(|(ms, b)| (Some(*ms), &b[..]))),
        (None, Protocol::Peg) => {
            Box::new(bytes.split_inclusive(|&b| b == b'\n').map(|c| (None, c)))
        }
        (None, Protocol::Dgt | Protocol::Millennium | Protocol::Certabo) => {
            Box::new(std::iter::once((None, &bytes[..])))
        }
    };
    let mut timeline = boards::dgt::ClockTimeline::default();
    let mut clocked = false;
    for (stamp, chunk) in chunks {
        let timed = stamp.is_some()
            || (args.protocol == Protocol::Peg && chunk.trim_ascii_start().starts_with(b"@"));
        if let Some(ms) = stamp {
            now = now.max(ms);
            session.poll(now, &mut lines);
        }
        decoder.feed(chunk, now, &mut decoded);
        for mut item in decoded.drain(..) {
            // Raw bytes carry no time, but a DGT board with a clock sends the clock's times
            // every second: from the first such frame on, events take their time from them.
            if stamp.is_none()
                && let Ok(e) = &mut item
            {
                if let SensorEvent::Clock(reading) = &e.event {
                    timeline.advance(reading);
                    clocked = true;
                }
                if clocked {
                    e.at = timeline.now();
                }
            }
            if let Ok(e) = &item {
                now = now.max(e.at);
            }
            session.feed(item, timed || clocked, &mut lines);
        }
        emit(&mut out, &mut lines)?;
    }
    decoder.finish(now, &mut decoded);
    for item in decoded.drain(..) {
        session.feed(item, false, &mut lines);
    }
    session.finish(&mut lines);
    emit(&mut out, &mut lines)?;
    Ok(ExitCode::SUCCESS)
}

/// Conclusions to standard output; malformed input (reported, skipped) to standard error.
///
/// A report that cannot be written to standard error (closed, a reader that went away) is
/// dropped: it must not stop the stream, and `eprintln!` would panic on it.
pub(crate) fn emit(out: &mut impl Write, lines: &mut Vec<String>) -> std::io::Result<()> {
    for line in lines.drain(..) {
        match line.strip_prefix("error ") {
            Some(e) => {
                let _ = writeln!(std::io::stderr(), "annabella: {e}");
            }
            None => writeln!(out, "{line}")?,
        }
    }
    out.flush()
}
