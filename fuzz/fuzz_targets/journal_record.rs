//! Fuzz target: any text as a journal line, with any journal wall time beside it: an entry or
//! an error, never a panic; an entry writes back to a line that reads as the same entry, and
//! that line is a fixed point (written again, it is the same text).
#![no_main]

use annabella::table::record::{Entry, MAX_RECORD_BYTES, Record};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u64, &str)| {
    let (wall_ms, line) = input;
    // The record alone, as a line written before lines carried their table time.
    if let Ok(record) = line.parse::<Record>() {
        let text = record.to_string();
        if text.len() <= MAX_RECORD_BYTES {
            assert_eq!(
                text.parse::<Record>(),
                Ok(record),
                "{line:?} written as {text:?}"
            );
        }
    }
    let Ok(entry) = Entry::parse(line, wall_ms) else {
        return;
    };
    let text = entry.to_string();
    assert!(!text.contains(['\n', '\r']), "{line:?} written as {text:?}");
    // The table time written in front may make a line that was just short enough too long;
    // such a line is refused when it is written, not read back.
    if text.len() > MAX_RECORD_BYTES {
        return;
    }
    // Another wall time: a line with its table time does not depend on it.
    let again = Entry::parse(&text, wall_ms.wrapping_add(1));
    assert_eq!(again.as_ref(), Ok(&entry), "{line:?} written as {text:?}");
    assert_eq!(again.map(|e| e.to_string()), Ok(text));
});
