//! Speech adapters: spec parsing, the transcript format, the speaker's queue rules, dead engines, and real speech where the machine has it.

pub mod common;

use std::fs;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use annabella::io::speech::espeak::EspeakBackend;
use annabella::io::speech::transcript::{self, TranscriptBackend};
use annabella::io::speech::tts::TtsBackend;
use annabella::io::speech::wav::{self, Format, WavBackend};
use annabella::io::speech::{
    About, BackendSpec, Listener, Speaker, SpeechBackend, SpeechError, Urgency, Utterance,
    parse_backends,
};
use common::fs::scratch_dir;

fn normal(text: &str) -> Utterance {
    Utterance::new(Listener::BlindPlayer, text, "de", "g1", 1_700_000_000_000)
}

fn urgent(text: &str) -> Utterance {
    normal(text).urgent()
}

fn on_path(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

// ---------------------------------------------------------------------------------------------
// parse_backends

#[test]
fn parses_every_backend_and_combinations() {
    assert_eq!(parse_backends("tts").unwrap(), vec![BackendSpec::Tts]);
    assert_eq!(parse_backends("none").unwrap(), vec![BackendSpec::None]);
    assert_eq!(
        parse_backends("tts, espeak-ng ,wav:/srv/rec,transcript:/tmp/t.txt").unwrap(),
        vec![
            BackendSpec::Tts,
            BackendSpec::EspeakNg,
            BackendSpec::Wav("/srv/rec".into()),
            BackendSpec::Transcript("/tmp/t.txt".into()),
        ]
    );
    // Only the first colon separates: Windows paths keep theirs.
    assert_eq!(
        parse_backends(r"wav:C:\records").unwrap(),
        vec![BackendSpec::Wav(r"C:\records".into())]
    );
    // Display round-trips.
    for spec in ["tts", "espeak-ng", "wav:/a/b", "transcript:t.txt", "none"] {
        assert_eq!(parse_backends(spec).unwrap()[0].to_string(), spec);
    }
}

#[test]
fn parse_errors_say_what_is_wrong() {
    let cases: &[(&str, &str)] = &[
        ("", "no speech backend"),
        ("   ", "no speech backend"),
        ("festival", "unknown speech backend `festival`"),
        ("mp3:/tmp", "unknown speech backend `mp3:/tmp`"),
        ("tts,,none", "empty speech backend"),
        ("tts,", "empty speech backend"),
        ("wav", "wav needs a directory"),
        ("wav:", "DIR is empty"),
        ("wav:  ", "DIR is empty"),
        ("transcript", "transcript needs a file"),
        ("transcript:", "FILE is empty"),
        ("tts,tts", "listed twice"),
        ("none,tts", "cannot be combined"),
    ];
    for (spec, expected) in cases {
        let err = parse_backends(spec).expect_err(spec).to_string();
        assert!(
            err.contains(expected),
            "{spec:?}: {err:?} lacks {expected:?}"
        );
    }
    // Every unknown-backend message lists the valid ones.
    assert!(
        parse_backends("espeak")
            .unwrap_err()
            .to_string()
            .contains("tts, espeak-ng, espeak-ng@DEVICE, wav:DIR, transcript:FILE or none")
    );
}

#[test]
fn speech_errors_read_as_before() {
    use annabella::io::speech::{parse_outputs, parse_rate};
    let help = "expected tts, espeak-ng, espeak-ng@DEVICE, wav:DIR, transcript:FILE or none";
    let e = |spec: &str| parse_outputs(spec).expect_err(spec).to_string();
    assert_eq!(
        e(""),
        format!("no speech backend given: {help} (none means silence)")
    );
    assert_eq!(
        e("player=tts"),
        "unknown listener `player` in `player=`: expected blind, opponent or arbiter, joined by +"
    );
    assert_eq!(
        e("blind+blind=tts"),
        "listener `blind` is named twice in `blind+blind=`"
    );
    assert_eq!(
        e("tts,,none"),
        "empty speech backend in `tts,,none` (two commas, or a comma at an end)"
    );
    assert_eq!(
        e("festival"),
        format!("unknown speech backend `festival`: {help}")
    );
    assert_eq!(
        e("mp3:/tmp"),
        format!("unknown speech backend `mp3:/tmp`: {help}")
    );
    assert_eq!(
        e("espeak-ng@"),
        "espeak-ng@ needs an audio device: espeak-ng@DEVICE (DEVICE is empty, see aplay -L)"
    );
    assert_eq!(e("wav"), "wav needs a directory: wav:DIR");
    assert_eq!(e("wav:"), "wav needs a directory: wav:DIR (DIR is empty)");
    assert_eq!(e("transcript"), "transcript needs a file: transcript:FILE");
    assert_eq!(
        e("transcript:"),
        "transcript needs a file: transcript:FILE (FILE is empty)"
    );
    assert_eq!(e("tts,tts"), "speech backend `tts` is listed twice");
    assert_eq!(
        e("blind=none"),
        "`none` means silence for everyone and takes no listeners"
    );
    assert_eq!(
        e("none,tts"),
        "`none` means silence and cannot be combined with other speech backends"
    );
    assert_eq!(
        parse_backends("blind=tts").unwrap_err().to_string(),
        "`blind=tts` names listeners; this setting takes backends only"
    );
    assert_eq!(
        parse_rate("fast").unwrap_err().to_string(),
        "`fast` is not a rate: words per minute, e.g. 175"
    );
    assert_eq!(
        parse_rate(" 500 ").unwrap_err().to_string(),
        "rate 500 is out of range: 80 to 450 words per minute"
    );
    let w = |bytes: &[u8]| wav::parse(bytes).unwrap_err().to_string();
    assert_eq!(w(b"junk"), "not a RIFF/WAVE file");
    assert_eq!(w(b"RIFF\0\0\0\0WAVE"), "no data chunk");
    assert_eq!(
        w(b"RIFF\0\0\0\0WAVEdata\0\0\0\0"),
        "data chunk before fmt chunk"
    );
    assert_eq!(
        w(b"RIFF\0\0\0\0WAVEfmt \x02\0\0\0\x03\0"),
        "not PCM (format tag 3)"
    );
    assert_eq!(
        w(b"RIFF\0\0\0\0WAVEfmt \x02\0\0\0\x01\0"),
        "truncated fmt chunk"
    );
}

#[test]
fn listeners_print_and_read_back() {
    for (l, s) in [
        (Listener::BlindPlayer, "blind"),
        (Listener::Opponent, "opponent"),
        (Listener::Arbiter, "arbiter"),
        (Listener::Everyone, "all"),
    ] {
        assert_eq!(l.to_string(), s);
        assert_eq!(s.parse::<Listener>().unwrap(), l);
    }
    assert!("judge".parse::<Listener>().is_err());
}

// ---------------------------------------------------------------------------------------------
// transcript

#[test]
fn transcript_lines_have_the_exact_format() {
    let dir = scratch_dir("transcript");
    let path = dir.join("sub/speech.txt");
    let speaker = Speaker::transcript_only(&path).unwrap();
    speaker.say(Utterance::new(
        Listener::BlindPlayer,
        "Springer Felix drei",
        "de",
        "g1",
        1_700_000_000_123,
    ));
    speaker.say(Utterance::new(
        Listener::Opponent,
        "Zug bitte\nwiederholen\r\njetzt",
        "de",
        "g1",
        1_700_000_000_456,
    ));
    speaker.say(
        Utterance::new(
            Listener::Arbiter,
            "Illegaler Zug\tEva vier",
            "de",
            "g1",
            1_700_000_001_000,
        )
        .urgent(),
    );
    speaker.say(Utterance::new(
        Listener::Everyone,
        "Weiß gewinnt",
        "de",
        "g1",
        1_700_000_002_000,
    ));
    assert!(speaker.flush_blocking(Duration::from_secs(5)));
    let text = fs::read_to_string(&path).unwrap();
    // The urgent one may overtake queued ones, never lines already written, so only the set of
    // lines is fixed when several are queued at once; each line's format is exact.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        vec![
            "1700000000123 blind Springer Felix drei",
            "1700000000456 opponent Zug bitte wiederholen  jetzt",
            "1700000001000 arbiter Illegaler Zug Eva vier",
            "1700000002000 all Weiß gewinnt",
        ]
    );
    assert!(text.ends_with('\n'));
    // And read back.
    let (ms, who, words) = transcript::parse_line("1700000000123 blind Springer Felix drei\n")
        .expect("a transcript line");
    assert_eq!(
        (ms, who, words),
        (
            1_700_000_000_123,
            Listener::BlindPlayer,
            "Springer Felix drei"
        )
    );
    assert!(transcript::parse_line("garbage").is_none());
}

#[test]
fn transcript_appends_in_order_across_speakers() {
    let dir = scratch_dir("transcript-append");
    let path = dir.join("t.txt");
    for i in 0..3u64 {
        let speaker = Speaker::transcript_only(&path).unwrap();
        speaker.say(Utterance::new(
            Listener::BlindPlayer,
            format!("Zug {i}"),
            "de",
            "g",
            i,
        ));
        assert!(speaker.flush_blocking(Duration::from_secs(5)));
    }
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "0 blind Zug 0\n1 blind Zug 1\n2 blind Zug 2\n"
    );
}

#[test]
fn an_unwritable_transcript_is_a_clear_error() {
    let dir = scratch_dir("transcript-bad");
    // A directory where the file should be.
    let err = TranscriptBackend::open(&dir).unwrap_err();
    assert!(matches!(err, SpeechError::Unavailable(_)));
    assert!(err.to_string().contains("cannot open transcript"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// The speaker's queue rules, with a fake engine that takes its time

type Log = Arc<Mutex<Vec<String>>>;

/// Speaks for 20 ms, or 10 s when the text starts with "long", or as long as `hold` is set when
/// it starts with "hold"; logs start, end and stop.
struct SlowFake {
    log: Log,
    hold: Arc<AtomicBool>,
    current: Option<(String, Instant)>,
}

impl SlowFake {
    fn new() -> (Self, Log, Arc<AtomicBool>) {
        let log: Log = Arc::default();
        let hold = Arc::new(AtomicBool::new(true));
        let fake = SlowFake {
            log: log.clone(),
            hold: hold.clone(),
            current: None,
        };
        (fake, log, hold)
    }
}

impl SpeechBackend for SlowFake {
    fn name(&self) -> &str {
        "slow-fake"
    }
    fn speak(&mut self, u: &Utterance) -> Result<(), SpeechError> {
        self.log.lock().unwrap().push(format!("start {}", u.text));
        self.current = Some((u.text.clone(), Instant::now()));
        Ok(())
    }
    fn is_speaking(&mut self) -> Result<bool, SpeechError> {
        let Some((text, at)) = &self.current else {
            return Ok(false);
        };
        let busy = if text.starts_with("hold") {
            self.hold.load(Ordering::SeqCst)
        } else if text.starts_with("long") {
            at.elapsed() < Duration::from_secs(10)
        } else {
            at.elapsed() < Duration::from_millis(20)
        };
        if !busy {
            self.log.lock().unwrap().push(format!("end {text}"));
            self.current = None;
        }
        Ok(busy)
    }
    fn stop(&mut self) {
        let what = self
            .current
            .take()
            .map_or("(nothing)".to_string(), |(t, _)| t);
        self.log.lock().unwrap().push(format!("stop {what}"));
    }
}

fn wait_for(log: &Log, entry: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !log.lock().unwrap().iter().any(|e| e == entry) {
        assert!(Instant::now() < deadline, "never saw {entry:?}: {log:?}");
        thread::sleep(Duration::from_millis(1));
    }
}

fn timed_say(speaker: &Speaker, u: Utterance) {
    let t = Instant::now();
    speaker.say(u);
    assert!(
        t.elapsed() < Duration::from_millis(50),
        "say blocked for {:?}",
        t.elapsed()
    );
}

#[test]
fn an_urgent_utterance_interrupts_a_long_one_and_goes_first() {
    let (fake, log, _hold) = SlowFake::new();
    let speaker = Speaker::from_backends(vec![Box::new(fake)], 8);
    let t = Instant::now();
    // A report of both clocks, cut by the alarms: not said again, as the clock has moved on
    // (anything else that is cut is said again: src/io/speech/queue.rs).
    timed_say(
        &speaker,
        normal("long clock report").about(About::ClockCall {
            color: shakmaty::Color::White,
            remaining_ms: 600_000,
        }),
    );
    wait_for(&log, "start long clock report");
    timed_say(&speaker, normal("Bauer Eva vier"));
    timed_say(&speaker, urgent("Illegaler Zug"));
    timed_say(&speaker, urgent("Fallblättchen gefallen"));
    assert!(speaker.flush_blocking(Duration::from_secs(8)));
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "the long one was not cut short"
    );
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            "start long clock report",
            "stop long clock report",
            "start Illegaler Zug",
            "end Illegaler Zug",
            "start Fallblättchen gefallen",
            "end Fallblättchen gefallen",
            "start Bauer Eva vier",
            "end Bauer Eva vier",
        ]
    );
    assert_eq!(speaker.dropped(), 0);
}

#[test]
fn an_urgent_utterance_does_not_interrupt_another_urgent_one() {
    let (fake, log, hold) = SlowFake::new();
    let speaker = Speaker::from_backends(vec![Box::new(fake)], 8);
    speaker.say(urgent("hold Zeit überschritten"));
    wait_for(&log, "start hold Zeit überschritten");
    speaker.say(urgent("Partie beendet"));
    thread::sleep(Duration::from_millis(100));
    assert!(!log.lock().unwrap().iter().any(|e| e.starts_with("stop")));
    hold.store(false, Ordering::SeqCst);
    assert!(speaker.flush_blocking(Duration::from_secs(5)));
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            "start hold Zeit überschritten",
            "end hold Zeit überschritten",
            "start Partie beendet",
            "end Partie beendet",
        ]
    );
}

#[test]
fn a_full_queue_drops_the_oldest_normal_never_an_urgent() {
    let (fake, log, hold) = SlowFake::new();
    let speaker = Speaker::from_backends(vec![Box::new(fake)], 3);
    // An urgent one keeps the engine busy, so nothing below interrupts it.
    timed_say(&speaker, urgent("hold U0"));
    wait_for(&log, "start hold U0");
    for text in ["N1", "N2", "N3"] {
        timed_say(&speaker, normal(text)); // queue: N1 N2 N3
    }
    assert_eq!(speaker.dropped(), 0);
    timed_say(&speaker, urgent("U1")); // U1 N1 N2 N3 → N1 dropped
    timed_say(&speaker, normal("N4")); // U1 N2 N3 N4 → N2 dropped
    timed_say(&speaker, urgent("U2")); // U1 U2 N3 N4 → N3 dropped
    timed_say(&speaker, urgent("U3")); // U1 U2 U3 N4 → N4 dropped
    timed_say(&speaker, normal("N5")); // U1 U2 U3 N5 → N5 dropped: urgent ones stay
    assert_eq!(speaker.dropped(), 5);
    hold.store(false, Ordering::SeqCst);
    assert!(speaker.flush_blocking(Duration::from_secs(5)));
    let started: Vec<String> = log
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| e.strip_prefix("start ").map(str::to_string))
        .collect();
    assert_eq!(started, vec!["hold U0", "U1", "U2", "U3"]);

    // With room again, normal utterances are spoken in order.
    for text in ["N6", "N7"] {
        speaker.say(normal(text));
    }
    assert!(speaker.flush_blocking(Duration::from_secs(5)));
    let log = log.lock().unwrap();
    assert_eq!(
        &log[log.len() - 4..],
        ["start N6", "end N6", "start N7", "end N7"]
    );
}

/// A backend that fails in every way it can: an error, then a panic.
struct Broken {
    calls: Arc<Mutex<u32>>,
}

impl SpeechBackend for Broken {
    fn name(&self) -> &str {
        "broken"
    }
    fn speak(&mut self, _: &Utterance) -> Result<(), SpeechError> {
        let n = {
            let mut calls = self.calls.lock().unwrap();
            *calls += 1;
            *calls
        };
        match n {
            1 => Err(SpeechError::Failed("synthesizer hiccup".into())),
            _ => panic!("binding bug"),
        }
    }
    fn stop(&mut self) {}
}

#[test]
fn a_failing_or_panicking_backend_falls_silent_and_the_others_go_on() {
    let dir = scratch_dir("broken");
    let path = dir.join("t.txt");
    let calls = Arc::new(Mutex::new(0));
    let speaker = Speaker::from_backends(
        vec![
            Box::new(Broken {
                calls: calls.clone(),
            }),
            Box::new(TranscriptBackend::open(&path).unwrap()),
        ],
        8,
    );
    for i in 0..5 {
        speaker.say(normal(&format!("Zug {i}")));
    }
    assert!(speaker.flush_blocking(Duration::from_secs(5)));
    // A failure is retried on the next utterance; a panic switches the backend off.
    assert_eq!(*calls.lock().unwrap(), 2);
    assert_eq!(fs::read_to_string(&path).unwrap().lines().count(), 5);
}

// ---------------------------------------------------------------------------------------------
// Missing engines

#[test]
fn a_missing_espeak_ng_is_reported_and_does_not_block_the_speaker() {
    let mut missing = EspeakBackend::with_program("/nonexistent/bin/espeak-ng");
    let err = missing.speak(&normal("Eva vier")).unwrap_err();
    assert!(matches!(err, SpeechError::Unavailable(_)), "{err:?}");
    assert!(err.to_string().contains("not installed"), "{err}");
    assert!(!missing.is_speaking().unwrap());
    missing.stop();

    let dir = scratch_dir("missing-engine");
    let path = dir.join("t.txt");
    let speaker = Speaker::from_backends(
        vec![
            Box::new(EspeakBackend::with_program("/nonexistent/bin/espeak-ng")),
            Box::new(
                WavBackend::with_program(dir.join("rec"), "/nonexistent/bin/espeak-ng").unwrap(),
            ),
            Box::new(TranscriptBackend::open(&path).unwrap()),
        ],
        4,
    );
    let t = Instant::now();
    for i in 0..20 {
        speaker.say(normal(&format!("Zug {i}")));
    }
    speaker.say(urgent("Illegaler Zug"));
    assert!(t.elapsed() < Duration::from_millis(50));
    assert!(speaker.flush_blocking(Duration::from_secs(5)));
    let lines = fs::read_to_string(&path).unwrap();
    assert!(lines.contains(" blind Illegaler Zug\n"), "{lines}");
    assert!(!dir.join("rec/g1.wav").exists());
}

#[test]
fn a_speaker_from_a_spec_with_an_unopenable_backend_still_writes_the_others() {
    let dir = scratch_dir("spec-bad");
    // The wav directory cannot be created under a file.
    fs::write(dir.join("file"), b"x").unwrap();
    let spec = format!(
        "wav:{},transcript:{}",
        dir.join("file/rec").display(),
        dir.join("t.txt").display()
    );
    let speaker = Speaker::from_spec(&spec).unwrap();
    assert_eq!(speaker.backend_names().len(), 2);
    speaker.say(normal("Dame David acht"));
    assert!(speaker.flush_blocking(Duration::from_secs(5)));
    assert_eq!(
        fs::read_to_string(dir.join("t.txt")).unwrap(),
        "1700000000000 blind Dame David acht\n"
    );
}

// ---------------------------------------------------------------------------------------------
// The WAV record, without an engine

const VOICE: Format = Format {
    channels: 1,
    sample_rate: 22050,
    bits: 16,
};

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn assert_consistent_header(bytes: &[u8]) -> (Format, usize) {
    assert_eq!(&bytes[0..4], b"RIFF");
    assert_eq!(le32(bytes, 4) as usize, bytes.len() - 8, "RIFF size");
    assert_eq!(&bytes[36..40], b"data");
    assert_eq!(le32(bytes, 40) as usize, bytes.len() - 44, "data size");
    let (format, data) = wav::parse(bytes).unwrap();
    (format, data.len())
}

#[test]
fn appending_keeps_the_wav_header_true_and_inserts_a_gap() {
    let dir = scratch_dir("wav-append");
    let path = dir.join("g.wav");
    wav::append_pcm(&path, VOICE, &[1u8; 1000], wav::GAP_MS).unwrap();
    let bytes = fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 44 + 1000);
    assert_eq!(assert_consistent_header(&bytes), (VOICE, 1000));
    assert_eq!(le32(&bytes, 24), 22050);
    assert_eq!(le32(&bytes, 28), 44100);

    wav::append_pcm(&path, VOICE, &[2u8; 1001], wav::GAP_MS).unwrap();
    let bytes = fs::read(&path).unwrap();
    let gap = 22050 * wav::GAP_MS as usize / 1000 * 2;
    // The odd byte (half a sample) is left out.
    assert_eq!(bytes.len(), 44 + 1000 + gap + 1000);
    assert_consistent_header(&bytes);
    assert!(bytes[44 + 1000..44 + 1000 + gap].iter().all(|b| *b == 0));

    // A header left stale by a crash is repaired on the next append.
    let mut stale = bytes.clone();
    stale[40..44].copy_from_slice(&0u32.to_le_bytes());
    stale.push(7); // and half a frame
    fs::write(&path, &stale).unwrap();
    wav::append_pcm(&path, VOICE, &[3u8; 10], wav::GAP_MS).unwrap();
    let bytes = fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 44 + 1000 + gap + 1000 + gap + 10);
    assert_consistent_header(&bytes);

    // Another format is refused rather than garbling the record.
    let other = Format {
        sample_rate: 16000,
        ..VOICE
    };
    assert!(wav::append_pcm(&path, other, &[0u8; 10], 0).is_err());
    assert_eq!(fs::read(&path).unwrap().len(), bytes.len());
}

#[test]
fn game_ids_become_safe_file_names() {
    assert_eq!(wav::file_stem("2026-03-01_board-3"), "2026-03-01_board-3");
    assert_eq!(wav::file_stem("../../etc/passwd"), "_._.._etc_passwd");
    assert_eq!(wav::file_stem(".hidden"), "_hidden");
    assert_eq!(wav::file_stem(""), "game");
    assert_eq!(wav::file_stem("Müller vs. Weiß"), "M_ller_vs._Wei_");
}

// ---------------------------------------------------------------------------------------------
// Real speech, where the machine has it (scripts/ensure-deps.sh installs espeak-ng and sox)

#[test]
fn espeak_ng_records_a_german_game_as_one_wav() {
    if !on_path("espeak-ng") {
        println!("skipped: espeak-ng is not on PATH (scripts/ensure-deps.sh installs it)");
        return;
    }
    let dir = scratch_dir("wav-real");
    let speaker = Speaker::from_spec(&format!("wav:{}", dir.display())).unwrap();
    // The record is a score: it takes moves (and withdrawals and the result).
    let a_move = |text: &str, number: u32, color: shakmaty::Color, at: u64| {
        Utterance::new(Listener::Everyone, text, "de", "round 1/board 2", at)
            .about(About::Move { number, color })
    };
    speaker.say(a_move("Springer Felix drei", 1, shakmaty::Color::White, 1));
    speaker.say(a_move("Eva fünf", 1, shakmaty::Color::Black, 2));
    assert!(speaker.flush_blocking(Duration::from_secs(30)));
    let path = dir.join("round_1_board_2.wav");
    let bytes = fs::read(&path).unwrap();
    let (format, data_len) = assert_consistent_header(&bytes);
    assert_eq!(format, VOICE, "espeak-ng renders 22050 Hz 16-bit mono");
    let seconds = data_len as f64 / 44100.0;
    assert!(seconds > 1.0, "only {seconds} s of audio");

    if on_path("sox") {
        let out = Command::new("sox")
            .args(["--i", "-D"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let measured: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        assert!(measured > 1.0, "sox measured {measured} s");
        assert!((measured - seconds).abs() < 0.01, "{measured} vs {seconds}");
    } else {
        println!("sox is not on PATH: measured the header only");
    }

    // A restarted daemon appends to the same record.
    drop(speaker);
    let speaker = Speaker::from_spec(&format!("wav:{}", dir.display())).unwrap();
    speaker.say(a_move(
        "Läufer Cesar vier Schach",
        2,
        shakmaty::Color::White,
        3,
    ));
    assert!(speaker.flush_blocking(Duration::from_secs(30)));
    let longer = fs::read(&path).unwrap();
    assert!(longer.len() > bytes.len());
    assert_consistent_header(&longer);
}

#[test]
fn espeak_ng_speaks_and_can_be_cut_short() {
    if !on_path("espeak-ng") {
        println!("skipped: espeak-ng is not on PATH (scripts/ensure-deps.sh installs it)");
        return;
    }
    // Without a sound card espeak-ng still runs to the end; what is checked is that the child is
    // started, finishes or is killed, and reports no error.
    let mut b = EspeakBackend::new();
    b.speak(&normal("Eva vier")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while b.is_speaking().unwrap() {
        assert!(Instant::now() < deadline, "espeak-ng never finished");
        thread::sleep(Duration::from_millis(10));
    }
    b.speak(&Utterance::new(
        Listener::BlindPlayer,
        "Eine sehr lange Ansage über die verbleibende Bedenkzeit beider Spieler und die Zahl der Züge",
        "xx-unknown",
        "g",
        0,
    ))
    .unwrap();
    b.stop();
    assert!(!b.is_speaking().unwrap());
}

#[test]
fn the_system_voice_speaks_or_says_clearly_why_not() {
    let dir = scratch_dir("tts");
    let path = dir.join("t.txt");
    let tts: Box<dyn SpeechBackend> = match TtsBackend::new() {
        Ok(b) => {
            println!("tts: connected ({b:?})");
            Box::new(b)
        }
        Err(e) => {
            println!("tts: unavailable here: {e}");
            assert!(matches!(e, SpeechError::Unavailable(_)));
            assert!(
                e.to_string().contains("speech-dispatcher") || !cfg!(target_os = "linux"),
                "{e}"
            );
            Box::new(annabella::io::speech::NoneBackend)
        }
    };
    let speaker = Speaker::from_backends(
        vec![tts, Box::new(TranscriptBackend::open(&path).unwrap())],
        8,
    );
    let t = Instant::now();
    speaker.say(normal("Springer Felix drei"));
    speaker.say(urgent("Eva vier"));
    assert!(t.elapsed() < Duration::from_millis(50));
    // The transcript does not wait for the voice, whatever state the voice is in.
    let deadline = Instant::now() + Duration::from_secs(5);
    while fs::read_to_string(&path)
        .unwrap_or_default()
        .lines()
        .count()
        < 2
    {
        assert!(
            Instant::now() < deadline,
            "the transcript waited for the voice"
        );
        thread::sleep(Duration::from_millis(5));
    }
    // A voice without audio output is cut short by the speaker's watchdog, so this ends.
    assert!(speaker.flush_blocking(Duration::from_secs(40)));
}

#[cfg(target_os = "linux")]
#[test]
fn an_unreachable_speech_dispatcher_is_a_clear_error() {
    // The address is read from the environment by libspeechd; it is changed in a child process
    // so the other tests keep theirs.
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "tts_unreachable_child",
            "--exact",
            "--nocapture",
            "--include-ignored",
        ])
        .env(
            "SPEECHD_ADDRESS",
            "unix_socket:/nonexistent/annabella-test/speechd.sock",
        )
        .env("ANNABELLA_TTS_CHILD", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("child: unavailable as expected"),
        "{stdout}"
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "run by an_unreachable_speech_dispatcher_is_a_clear_error in a child process"]
fn tts_unreachable_child() {
    if std::env::var_os("ANNABELLA_TTS_CHILD").is_none() {
        return;
    }
    let err = TtsBackend::new().expect_err("no speech-dispatcher at that address");
    assert!(matches!(err, SpeechError::Unavailable(_)), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("speech-dispatcher is not reachable"), "{msg}");
    assert!(msg.contains("spd-say hello"), "{msg}");

    // A speaker whose tts backend cannot open keeps the other backends and never blocks.
    let dir = scratch_dir("tts-unreachable");
    let path = dir.join("t.txt");
    let speaker = Speaker::from_spec(&format!("tts,transcript:{}", path.display())).unwrap();
    speaker.say(normal("Turm Anna eins"));
    assert!(speaker.flush_blocking(Duration::from_secs(10)));
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "1700000000000 blind Turm Anna eins\n"
    );
    println!("child: unavailable as expected: {msg}");
}

#[test]
fn utterances_default_to_normal() {
    let u = Utterance::new(Listener::Opponent, "x", "en", "g", 5);
    assert_eq!(u.urgency, Urgency::Polite);
    assert_eq!(u.clone().urgent().urgency, Urgency::Urgent);
}

#[test]
fn a_silent_speaker_accepts_everything_and_is_shareable() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Speaker>();
    let speaker = Speaker::from_spec("none").unwrap();
    assert!(speaker.backend_names().is_empty());
    speaker.say(normal("Schach"));
    speaker.say(urgent("Matt"));
    assert!(speaker.flush_blocking(Duration::from_millis(10)));
    assert_eq!(speaker.dropped(), 0);
}
