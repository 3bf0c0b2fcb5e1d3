//! A Certabo board's calibration kept in a file: read each time its link opens, written again
//! whenever the board teaches a new one (a start position shown with chips it did not know).

use std::path::{Path, PathBuf};

use crate::boards::certabo::{Calibration, CertaboDecoder};
use crate::boards::{DecodeError, Decoded, Decoder, Millis, StreamPosition};

/// The largest calibration file read (a full one is a few kilobytes).
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// A calibration file that could not be read, and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct CalibrationFileError {
    pub path: PathBuf,
    pub problem: CalibrationProblem,
}

/// Why a calibration file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationProblem {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("larger than {MAX_FILE_BYTES} bytes")]
    TooLarge,
    /// The text is no calibration (the board crate's reading says why).
    #[error("{0}")]
    Unreadable(String),
}

/// The calibration in `path`: `Ok(None)` when there is no such file yet.
pub fn load(path: &Path) -> Result<Option<Calibration>, CalibrationFileError> {
    let what = |problem| CalibrationFileError {
        path: path.to_owned(),
        problem,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(what(e.into())),
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(what(CalibrationProblem::TooLarge));
    }
    let text = std::fs::read_to_string(path).map_err(|e| what(e.into()))?;
    Calibration::parse(&text)
        .map(Some)
        .map_err(|e| what(CalibrationProblem::Unreadable(e)))
}

/// Writes `calibration` to `path` whole or not at all (a temporary file renamed over it, never
/// through a link), making
/// its directory when needed.
pub fn save(path: &Path, calibration: &Calibration) -> std::io::Result<()> {
    use crate::io::private_file::{self, Access};
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        private_file::create_dir(dir, Access::Private)?;
    }
    private_file::replace(path, calibration.to_text().as_bytes(), Access::Private)
}

/// A Certabo decoder whose calibration lives in a file: loaded when it is made, saved when the
/// board teaches a new one. Problems with the file are reported in the stream, as the board's
/// own problems are, and never stop the board being read.
pub struct KeptCalibration {
    inner: CertaboDecoder,
    path: PathBuf,
    /// A problem found while loading, reported with the first bytes.
    pending: Option<String>,
}

impl KeptCalibration {
    pub fn open(path: &Path) -> KeptCalibration {
        let (calibration, pending) = match load(path) {
            Ok(c) => (c, None),
            Err(e) => (
                None,
                Some(format!(
                    "the calibration file cannot be read ({e}); the start position will teach a \
                     new one"
                )),
            ),
        };
        KeptCalibration {
            inner: CertaboDecoder::new(calibration),
            path: path.to_owned(),
            pending,
        }
    }

    fn report(message: String, out: &mut Vec<Decoded>) {
        out.push(Err(DecodeError {
            position: StreamPosition::Line(0),
            message,
        }));
    }
}

impl Decoder for KeptCalibration {
    fn feed(&mut self, bytes: &[u8], now: Millis, out: &mut Vec<Decoded>) {
        if let Some(message) = self.pending.take() {
            Self::report(message, out);
        }
        self.inner.feed(bytes, now, out);
        if let Some(calibration) = self.inner.take_learned() {
            match save(&self.path, &calibration) {
                Ok(()) => tracing::info!(
                    path = %self.path.display(),
                    chips = calibration.len(),
                    "Certabo calibration learned from the start position and kept"
                ),
                Err(e) => Self::report(
                    format!(
                        "the calibration learned could not be kept in {}: {e}; it is used until \
                         the board is unplugged",
                        self.path.display()
                    ),
                    out,
                ),
            }
        }
    }

    fn finish(&mut self, now: Millis, out: &mut Vec<Decoded>) {
        self.inner.finish(now, out);
    }

    fn greeting(&self) -> Vec<u8> {
        self.inner.greeting()
    }

    fn snapshot_request(&self) -> Vec<u8> {
        self.inner.snapshot_request()
    }
}

/// The decoder for each connection of a Certabo board whose calibration is kept in `path`.
pub fn certabo_decoders(path: PathBuf) -> impl FnMut() -> Box<dyn Decoder> + Send {
    move || Box::new(KeptCalibration::open(&path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boards::certabo::{ChipBoard, encode_line};
    use shakmaty::Board;

    #[test]
    fn a_learned_calibration_is_kept_and_read_back() {
        let dir = std::env::temp_dir().join(format!("annabella-cal-{}", std::process::id()));
        let path = dir.join("sub").join("t.calibration");
        assert!(matches!(load(&path), Ok(None)));
        let mut d = KeptCalibration::open(&path);
        let line = encode_line(&ChipBoard::new(&Board::new()).codes());
        let mut out = Vec::new();
        d.feed(&line, 0, &mut out);
        d.feed(&line, 0, &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        let kept = load(&path).unwrap().expect("kept");
        assert_eq!(kept.len(), 32);
        // A broken file is reported and a new calibration learned over it.
        std::fs::write(&path, "K 1 2\n").unwrap();
        let mut d = KeptCalibration::open(&path);
        let mut out = Vec::new();
        d.feed(&line, 0, &mut out);
        d.feed(&line, 0, &mut out);
        let first = out[0].as_ref().unwrap_err().to_string();
        assert!(first.contains("cannot be read"), "{first}");
        assert_eq!(load(&path).unwrap().map(|c| c.len()), Some(32));
        std::fs::remove_dir_all(&dir).ok();
    }
}
