//! Fuzz target: any bytes, cut into any chunks, through the Certabo decoder, with no calibration
//! (it may learn one) and with the start position's: no panic, output bounded by the lines,
//! chunking that changes nothing, and a learned calibration that reads back from its file text.
#![no_main]

use annabella::boards::certabo::{Calibration, CertaboDecoder, ChipBoard};
use annabella::boards::{Decoded, Decoder};
use libfuzzer_sys::fuzz_target;
use shakmaty::Board;

fn run(bytes: &[u8], size: usize, calibration: Option<Calibration>) -> (Vec<Decoded>, CertaboDecoder) {
    let mut out: Vec<Decoded> = Vec::new();
    let mut d = CertaboDecoder::new(calibration);
    for chunk in bytes.chunks(size.max(1)) {
        d.feed(chunk, 0, &mut out);
    }
    d.finish(0, &mut out);
    (out, d)
}

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let start = Calibration::from_start_position(&ChipBoard::new(&Board::new()).codes()).ok();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    for calibration in [None, start] {
        let (whole, mut d) = run(bytes, bytes.len(), calibration.clone());
        assert!(whole.len() <= lines * 64);
        let (chunked, _) = run(bytes, usize::from(cut % 80) + 1, calibration);
        assert_eq!(whole, chunked);
        if let Some(learned) = d.take_learned() {
            assert_eq!(Calibration::parse(&learned.to_text()), Ok(learned));
        }
    }
});
