//! Fuzz target: any text as a `--speech` specification (and as the configuration's backends
//! alone, and a speech rate): read or refused, never a panic; what is read writes back to a
//! spec that reads as the same outputs.
#![no_main]

use annabella::io::speech::{Listener, parse_backends, parse_outputs, parse_rate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|spec: &str| {
    let _ = parse_rate(spec);
    if let Ok(backends) = parse_backends(spec) {
        let written: Vec<String> = backends.iter().map(ToString::to_string).collect();
        let written = written.join(",");
        assert_eq!(
            parse_backends(&written).as_ref(),
            Ok(&backends),
            "{spec:?} as {written:?}"
        );
    }
    let Ok(outputs) = parse_outputs(spec) else {
        return;
    };
    assert!(!outputs.is_empty());
    let written: Vec<String> = outputs.iter().map(ToString::to_string).collect();
    let written = written.join(",");
    assert_eq!(
        parse_outputs(&written).as_ref(),
        Ok(&outputs),
        "{spec:?} as {written:?}"
    );
    for o in &outputs {
        // Every output serves someone: an utterance for everyone reaches it.
        assert!(o.listeners.serves(Listener::Everyone));
        let _ = o.backend.voiced();
    }
});
