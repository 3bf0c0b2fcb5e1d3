//! Fuzz target: any bytes, cut into any chunks, through the DGT decoder: no panic, chunking that
//! changes nothing, and every decoded board dump or field update encodes back to its bytes.
#![no_main]

use annabella::boards::dgt::{self, DgtDecoder};
use annabella::boards::{Decoded, Decoder, SensorEvent};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let mut whole: Vec<Decoded> = Vec::new();
    let mut d = DgtDecoder::new();
    d.feed(bytes, 0, &mut whole);
    d.finish(0, &mut whole);
    assert!(whole.len() <= bytes.len() + 1);

    let size = usize::from(cut % 80) + 1;
    let mut chunked: Vec<Decoded> = Vec::new();
    let mut d = DgtDecoder::new();
    for chunk in bytes.chunks(size) {
        d.feed(chunk, 0, &mut chunked);
    }
    d.finish(0, &mut chunked);
    assert_eq!(whole, chunked);

    for event in whole.into_iter().flatten() {
        let bytes = match &event.event {
            SensorEvent::Pieces(board) => dgt::encode_board_dump(board),
            SensorEvent::SquareChanged { square, piece } => {
                dgt::encode_field_update(*square, *piece)
            }
            _ => continue,
        };
        let mut again = Vec::new();
        DgtDecoder::new().feed(&bytes, 0, &mut again);
        assert_eq!(again, vec![Ok(event)]);
    }
});
