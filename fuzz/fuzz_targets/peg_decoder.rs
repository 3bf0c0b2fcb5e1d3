//! Fuzz target: any bytes, cut into any chunks, through the peg decoder and the debouncer: no
//! panic, a bounded line buffer, chunking that changes nothing.
#![no_main]

use annabella::boards::debounce::{self, Debouncer};
use annabella::boards::peg::{self, PegDecoder};
use annabella::boards::{Decoded, Decoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let mut whole: Vec<Decoded> = Vec::new();
    let mut d = PegDecoder::new();
    d.feed(bytes, 0, &mut whole);
    d.finish(0, &mut whole);

    let size = usize::from(cut % 64) + 1;
    let mut chunked: Vec<Decoded> = Vec::new();
    let mut d = PegDecoder::new();
    for chunk in bytes.chunks(size) {
        d.feed(chunk, 0, &mut chunked);
        assert!(d.buffered() <= peg::MAX_LINE_BYTES);
    }
    d.finish(0, &mut chunked);
    assert_eq!(whole, chunked);

    // Recorded timestamps may jump about; the debouncer must cope.
    let mut debouncer = Debouncer::new(u64::from(cut % 50));
    let mut events = Vec::new();
    for event in whole.into_iter().flatten() {
        if let Some(line) = peg::encode_timed(&event) {
            let again = peg::parse_line(line.as_bytes(), 1, 0);
            assert_eq!(again, Some(Ok(event.clone())), "{line}");
        }
        debouncer.push(event, &mut events);
        assert!(debouncer.pending() <= debounce::MAX_PENDING);
        if let Some(deadline) = debouncer.next_deadline() {
            debouncer.poll(deadline, &mut events);
        }
    }
    debouncer.flush(&mut events);
    assert_eq!(debouncer.pending(), 0);
});
