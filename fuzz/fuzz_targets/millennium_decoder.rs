//! Fuzz target: any bytes, cut into any chunks, through the Millennium ChessLink decoder: no
//! panic, output bounded by the input, chunking that changes nothing, and every board a status
//! reported encodes back to a status that reads as the same board.
#![no_main]

use annabella::boards::millennium::{self, MillenniumDecoder};
use annabella::boards::{Decoded, Decoder, SensorEvent};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let mut whole: Vec<Decoded> = Vec::new();
    let mut d = MillenniumDecoder::new();
    d.feed(bytes, 0, &mut whole);
    d.finish(0, &mut whole);
    assert!(whole.len() <= 2 * bytes.len() + 2);

    let size = usize::from(cut % 80) + 1;
    let mut chunked: Vec<Decoded> = Vec::new();
    let mut d = MillenniumDecoder::new();
    for chunk in bytes.chunks(size) {
        d.feed(chunk, 0, &mut chunked);
    }
    d.finish(0, &mut chunked);
    assert_eq!(whole, chunked);

    for event in whole.into_iter().flatten() {
        if let SensorEvent::Pieces(board) = &event.event {
            let mut again = Vec::new();
            MillenniumDecoder::new().feed(&millennium::encode_status(board), 0, &mut again);
            assert_eq!(again, vec![Ok(event)]);
        }
    }
});
