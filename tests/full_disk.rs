//! The daemon on a disk that fills up, as an operator found it: the state directory on a small
//! tmpfs (in a mount namespace of the daemon's own, so the test needs no mount on the host).
//! Once the disk is full a request is refused saying so and changes nothing, the daemon serves
//! on, the next write after space is freed works, and a restart succeeds from the journal.

pub mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::WAIT;
use common::control::ControlClient;
use common::daemon::Serve;
use common::fs::scratch_dir;

const ARBITER: &str = "full-disk-arbiter-0123456789";
const WHITE: &str = "full-disk-white-0123456789ab";
const BLACK: &str = "full-disk-black-0123456789ab";

/// Mounts a tmpfs on `$MNT` in this mount namespace, then runs the daemon (`"$@"`). Beside it, a
/// helper fills the disk when `$CTL/fill` appears, frees it when `$CTL/free` appears, and when
/// the daemon has ended copies the state directory out to `$CTL/state` (the tmpfs goes with the
/// namespace).
const SCRIPT: &str = r#"
mount -t tmpfs -o size=8m annabella-full "$MNT" || exit 97
daemon=$$
(
  while kill -0 "$daemon" 2>/dev/null; do
    if [ -e "$CTL/fill" ]; then
      rm -f "$CTL/fill"
      dd if=/dev/zero of="$MNT/filler" bs=4096 2>/dev/null
      touch "$CTL/filled"
    fi
    if [ -e "$CTL/free" ]; then
      rm -f "$CTL/free" "$MNT/filler"
      touch "$CTL/freed"
    fi
    sleep 0.05
  done
  cp -a "$MNT/state" "$CTL/state" && touch "$CTL/copied"
) &
exec "$@"
"#;

/// Asks the helper beside the daemon to do `what` and waits until it has.
fn signal(ctl: &Path, what: &str, done: &str) {
    let _ = std::fs::remove_file(ctl.join(done));
    std::fs::write(ctl.join(what), b"").unwrap();
    let deadline = Instant::now() + WAIT;
    while !ctl.join(done).exists() {
        assert!(Instant::now() < deadline, "the disk helper did not {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn config(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("annabella.toml");
    std::fs::write(
        &path,
        format!(
            "[[token]]\ntoken = \"{ARBITER}\"\nrole = \"arbiter\"\n\n\
             [[token]]\ntoken = \"{WHITE}\"\nrole = \"white\"\n\n\
             [[token]]\ntoken = \"{BLACK}\"\nrole = \"black\"\n"
        ),
    )
    .unwrap();
    // A configuration that holds tokens must be its owner's alone (on Unix, by its mode).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path
}

#[test]
fn a_full_disk_refuses_cleanly_and_the_daemon_serves_on_and_restarts() {
    let dir = scratch_dir("full-disk");
    let (mnt, ctl) = (dir.join("mnt"), dir.join("ctl"));
    std::fs::create_dir_all(&mnt).unwrap();
    std::fs::create_dir_all(&ctl).unwrap();
    let config = config(&dir);
    let mut daemon = Serve::new(&mnt.join("state"))
        .config(&config)
        .args(["--peg", "sim", "--speech", "none"])
        .env("MNT", &mnt)
        .env("CTL", &ctl)
        .wrapped([
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            SCRIPT,
            "sh",
        ])
        .start();
    let mut white = ControlClient::authenticated(daemon.control, WHITE);
    let mut black = ControlClient::authenticated(daemon.control, BLACK);
    let mut arbiter = ControlClient::authenticated(daemon.control, ARBITER);
    // New connections speak English; these use the table's German letters.
    for c in [&mut white, &mut black] {
        assert_eq!(c.ask("lang de"), "ok lang de");
    }
    assert_eq!(white.ask("move e4"), "ok e2e4 e4");

    // The disk fills up. The journal's write-ahead log may still have room for a few records;
    // the arbiter's clock adjustments (each one record) reach the point where nothing fits.
    // White's clock stands (Black is to move), so its reading shows whether one applied.
    signal(&ctl, "fill", "filled");
    let mut refused = None;
    for i in 0..5_000 {
        let before = arbiter.ask("clock quiet");
        let reply = arbiter.ask("adjust white +1");
        if reply.starts_with("error") {
            refused = Some((i, before, reply));
            break;
        }
    }
    let (_, clock_before, reply) = refused.expect("a full disk refuses a record");
    assert!(
        reply.starts_with("error state the journal could not record this (")
            && reply.ends_with("nothing changed and nothing was announced"),
        "{reply}"
    );
    assert!(
        reply.contains("full"),
        "the reason names the full disk: {reply}"
    );
    // Nothing changed: the clock as before the refused adjustment, the move refused the same
    // way, the position still after 1. e4.
    let white_clock = |c: &str| c.split(" black ").next().map(str::to_owned);
    assert_eq!(
        white_clock(&arbiter.ask("clock quiet")),
        white_clock(&clock_before)
    );
    let refused_move = black.ask("move e5");
    assert!(
        refused_move.starts_with("error state the journal could not record this"),
        "{refused_move}"
    );
    let after_e4 = "ok rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    assert_eq!(arbiter.ask("board"), after_e4);
    assert!(
        arbiter
            .ask("status")
            .starts_with("ok table table-1 ply 1 turn black")
    );

    // Space is freed: the next write works, and the game goes on from the right position.
    signal(&ctl, "free", "freed");
    assert_eq!(black.ask("move e5"), "ok e7e5 e5");
    assert_eq!(white.ask("move Sf3"), "ok g1f3 Sf3");
    let status = arbiter.ask("status");
    assert!(
        status.starts_with("ok table table-1 ply 3 turn black"),
        "{status}"
    );
    let clock = arbiter.ask("clock quiet");
    drop((white, black, arbiter));
    assert!(daemon.terminate().success());

    // The journal the daemon left restarts it: the same game, the same clocks' moves.
    let deadline = Instant::now() + WAIT;
    while !ctl.join("copied").exists() {
        assert!(
            Instant::now() < deadline,
            "the state directory was not copied out"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let restarted = Serve::new(&ctl.join("state"))
        .config(&config)
        .args(["--peg", "sim", "--speech", "none"])
        .start();
    let mut arbiter = ControlClient::authenticated(restarted.control, ARBITER);
    let status = arbiter.ask("status");
    assert!(
        status.starts_with("ok table table-1 ply 3 turn black"),
        "{status}"
    );
    assert_eq!(
        arbiter.ask("sheet"),
        "ok 1. e4 e5 2. Nf3",
        "every accepted move and only those"
    );
    let moves = |c: &str| c.split(" moves ").nth(1).map(str::to_owned);
    assert_eq!(moves(&arbiter.ask("clock quiet")), moves(&clock));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A daemon started on a disk that is already full says so — not that it lacks permission.
#[test]
fn a_start_on_a_full_disk_says_the_disk_is_full() {
    let dir = scratch_dir("full-disk-start");
    let mnt = dir.join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    let script = r#"
mount -t tmpfs -o size=1m annabella-full "$MNT" || exit 97
mkdir -m 0700 "$MNT/state"
dd if=/dev/zero of="$MNT/filler" bs=4096 2>/dev/null
exec "$@"
"#;
    let output = std::process::Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(common::process::BIN)
        .arg("serve")
        .arg("--state-dir")
        .arg(mnt.join("state"))
        .args(["--listen", "127.0.0.1:0", "--web", "off"])
        .args(["--peg", "sim", "--speech", "none"])
        .env("MNT", &mnt)
        .env_remove("ANNABELLA_TOKEN")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{log}");
    assert!(
        log.contains("is full") && log.contains("free some space"),
        "{log}"
    );
    assert!(!log.contains("make it writable"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}
