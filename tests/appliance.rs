//! The appliance without a screen, through the real binary (docs/appliance.md): each voiced
//! output says whom it is for and the page's address at start (heard on the stand-in
//! loudspeaker of tests/common), the audio devices are listed and an output moved to another
//! (a stand-in `aplay` lists devices and logs what it plays where), and a peg board named by
//! a stable `/dev/serial/by-id/…`-style link is accepted.

pub mod common;

use std::fs;
use std::path::Path;
use std::time::Duration;

use annabella::chess::language::Language;
use annabella::chess::ready::page_phrase;
use common::board::SimulatedBoard;
use common::daemon::Serve;
use common::fs::scratch_dir;
use common::stand_in::{self, StandIn};

/// A stand-in `aplay` in `dir`: `-L` lists three devices the way aplay does (names at the
/// start of a line, descriptions indented); playing logs `DEVICE BYTES` to `dir/aplay.log`.
fn stand_in_aplay(dir: &Path) -> std::path::PathBuf {
    let log = dir.join("aplay.log");
    let script = format!(
        r#"#!/bin/sh
if [ "$1" = "-L" ]; then
  printf 'null\n    Discard all samples\ndefault\n    Default ALSA Output\nplughw:CARD=Headphones,DEV=0\n    bcm2835 Headphones, bcm2835 Headphones\n'
  exit 0
fi
device=""
while [ $# -gt 0 ]; do
  case "$1" in -D) device="$2"; shift ;; esac
  shift
done
bytes=$(wc -c)
echo "$device $bytes" >> '{}'
"#,
        log.display()
    );
    let program = dir.join("aplay");
    fs::write(&program, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&program, fs::Permissions::from_mode(0o755)).unwrap();
    }
    log
}

#[test]
fn each_output_says_whom_it_is_for_and_the_page_and_moves_to_another_device() {
    if !stand_in::available() {
        eprintln!("skipped: espeak-ng or soxi is missing (scripts/ensure-deps.sh installs them)");
        return;
    }
    let dir = scratch_dir("appliance-ready");
    let speaker = StandIn::create(&dir.join("bin")).expect("the stand-in loudspeaker");
    let aplay_log = stand_in_aplay(&speaker.dir);
    let path = format!(
        "{}:{}",
        speaker.dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let transcript = dir.join("transcript.txt");
    // The blind player's output plays itself (the stand-in logs `start`); the opponent's and the
    // arbiter's goes through `aplay -D speaker` (the stand-in logs `record`, aplay the device).
    let speech = format!(
        "blind=espeak-ng,opponent+arbiter=espeak-ng@speaker,transcript:{}",
        transcript.display()
    );
    let daemon = Serve::new(&dir.join("state"))
        .env("PATH", path)
        .web("127.0.0.1:0")
        .args(["--peg", "none", "--speech", &speech, "--lang", "de"])
        .start();
    let web = daemon.web.expect("the page's address");
    let de = Language::builtin("de").unwrap().vocabulary();
    let page = de.pronounce_for_espeak(&page_phrase([127, 0, 0, 1], web.port(), de));
    assert!(
        page.starts_with("Seite: hundertsiebenundzwanzig Punkt null Punkt null Punkt eins, Port ")
    );
    let blind_ready = "annabella bereit. Lautsprecher für den blinden Spieler";
    let others_ready = "annabella bereit. Lautsprecher für den Gegner und den Schiedsrichter";
    let said = |what: &'static str, text: &str| {
        let text = text.to_owned();
        move |p: &[stand_in::Played]| p.iter().any(|p| p.what == what && p.text == text)
    };
    let within = Duration::from_secs(60);
    speaker.wait_until(within, said("start", blind_ready));
    speaker.wait_until(within, said("start", &page));
    speaker.wait_until(within, said("record", others_ready));
    let played = speaker.wait_until(within, said("record", &page));
    // The ready phrase comes first, before the table's first words ("Neue Partie"), and each
    // output says its own phrase only.
    let first_on_blind = played
        .iter()
        .find(|p| p.what == "start")
        .map(|p| p.text.as_str());
    assert_eq!(first_on_blind, Some(blind_ready), "{played:?}");
    let first_on_others = played
        .iter()
        .find(|p| p.what == "record")
        .map(|p| p.text.as_str());
    assert_eq!(first_on_others, Some(others_ready), "{played:?}");
    assert!(
        !played
            .iter()
            .any(|p| p.what == "start" && p.text == others_ready)
    );
    assert!(
        !played
            .iter()
            .any(|p| p.what == "record" && p.text == blind_ready)
    );
    let transcript_text = fs::read_to_string(&transcript).unwrap_or_default();
    assert!(
        !transcript_text.contains("bereit"),
        "a transcript is no loudspeaker: {transcript_text}"
    );
    assert!(
        fs::read_to_string(&aplay_log)
            .unwrap()
            .starts_with("speaker ")
    );

    // The devices, listed for the arbiter; the blind player's output moved to the headphones.
    let mut arbiter = daemon.connect("arbiter");
    let listed = arbiter.ask("audio-devices");
    assert!(
        listed.starts_with(&format!(
            "ok outputs: 1 blind=espeak-ng, 2 opponent+arbiter=espeak-ng@speaker, 3 transcript:{}; devices: null default plughw:CARD=Headphones,DEV=0",
            transcript.display()
        )),
        "{listed}"
    );
    let records_before = speaker.recorded().len();
    assert_eq!(
        arbiter.ask("audio-device blind plughw:CARD=Headphones,DEV=0"),
        "ok audio-device 1 blind=espeak-ng@plughw:CARD=Headphones,DEV=0"
    );
    // There it says again whom it is for, through aplay on the headphones.
    speaker.wait_until(within, |p| {
        p.iter().filter(|p| p.what == "record").count() > records_before
            && p.iter()
                .filter(|p| p.what == "record")
                .skip(records_before)
                .any(|p| p.text == blind_ready)
    });
    let deadline = std::time::Instant::now() + within;
    while !fs::read_to_string(&aplay_log)
        .unwrap()
        .lines()
        .any(|l| l.starts_with("plughw:CARD=Headphones,DEV=0 "))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "aplay never played on the headphones"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        arbiter
            .ask("audio-devices")
            .contains("1 blind=espeak-ng@plughw:CARD=Headphones,DEV=0,")
    );
    // And back to the default output.
    assert_eq!(
        arbiter.ask("audio-device 1 default"),
        "ok audio-device 1 blind=espeak-ng"
    );

    // What cannot move, or whom it is not for, is refused with the reason.
    let refused = arbiter.ask("audio-device 3 default");
    assert!(
        refused.starts_with("error state output 3 is transcript:"),
        "{refused}"
    );
    assert!(
        arbiter
            .ask("audio-device 9 default")
            .starts_with("error state no output 9")
    );
    assert!(
        arbiter
            .ask("audio-device nobody default")
            .starts_with("error state output \"nobody\"")
    );
    assert!(
        arbiter
            .ask("audio-device blind two words")
            .starts_with("error syntax")
    );
    let mut white = daemon.connect("white");
    assert!(white.ask("audio-devices").starts_with("ok outputs: "));
    let refused = white.ask("audio-device blind default");
    assert!(refused.starts_with("error "), "{refused}");
    let mut observer = daemon.connect("observer");
    assert!(observer.ask("audio-devices").starts_with("error "));
}

#[test]
fn a_peg_board_named_by_a_stable_by_id_link_is_accepted() {
    if std::env::var_os("ANNABELLA_TEST_RUNNER").is_some() {
        // Under qemu-user (scripts/cross/aarch64.sh) no pseudo-terminal can be a serial port:
        // qemu 7.2 does not translate the TCGETS2 ioctl that sets its baud rate (ENOSYS).
        eprintln!("skipped: a serial device under qemu-user (TCGETS2 is not translated)");
        return;
    }
    let dir = scratch_dir("appliance-by-id");
    // The shape udev gives a USB serial device: /dev/serial/by-id/usb-MAKER_MODEL_SERIAL-if00,
    // a link to /dev/ttyACM0. Here the link leads to the simulated board's pseudo-terminal.
    let by_id = dir.join("serial").join("by-id");
    fs::create_dir_all(&by_id).unwrap();
    let link = by_id.join("usb-annabella_Peg_Board_0001-if00");
    let _board = SimulatedBoard::on_pty("peg", &link, &[]);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the board is reached through a link"
    );
    let daemon = Serve::new(&dir.join("state"))
        .args(["--peg", link.to_str().unwrap(), "--speech", "none"])
        .start();
    let mut watcher = daemon.connect("observer");
    watcher.wait_status("peg connected in-sync");
}
