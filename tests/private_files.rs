//! The daemon's files among other users, through the real binary: the games' records (archived
//! PGN, the transcript, the WAV record; a correspondence game's Braille score goes the same way) are the daemon user's alone whatever
//! the umask, or its group's too when `records_group_readable` says so; a link or another user's
//! file planted where a record goes (a transcript in a shared folder like /tmp) is refused and
//! never written through; a log file is bounded and private.
//!
//! Unix only: file modes, owners and links; on Windows the user's profile folders are private
//! by their permissions (docs/windows.md).
#![cfg(unix)]

pub mod common;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::WAIT;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::process::{BIN, Running};

/// The daemon on `state` under umask 000 (the widest a careless service file could give),
/// speaking into `transcript` and recording WAV into `wav`, with `config`.
fn serve(state: &Path, config: &Path, transcript: &Path, wav: &Path) -> Daemon {
    let speech = format!("transcript:{},wav:{}", transcript.display(), wav.display());
    Serve::new(state)
        .config(config)
        .wrapped(["sh", "-c", "umask 000; exec \"$0\" \"$@\""])
        .args(["--peg", "sim", "--speech", &speech])
        .start()
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// Plays 1.e4 e5, Black resigns (the game is archived), and the daemon stops once the speech
/// thread has recorded something in `wav`.
fn play_a_short_game(mut daemon: Daemon, wav: &Path) {
    let mut white = daemon.connect("white");
    let mut black = daemon.connect("black");
    assert!(white.ask("move e4").starts_with("ok "));
    assert!(black.ask("move e5").starts_with("ok "));
    // The WAV record is written by its speech thread (espeak-ng renders each utterance).
    let started = std::time::Instant::now();
    while !wav_files(wav)
        .iter()
        .any(|f| fs::metadata(f).is_ok_and(|m| m.len() > 44))
    {
        assert!(
            started.elapsed() < WAIT,
            "no WAV record in {}",
            wav.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(black.ask("resign"), "ok black resigns");
    assert!(daemon.terminate().success());
}

fn wav_files(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

/// Each record's mode, and that of the folders the daemon made for them, as the option says.
fn records_have_modes(group: bool) {
    let dir = scratch_dir(if group {
        "records-group"
    } else {
        "records-own"
    });
    let state = dir.join("state");
    let config = dir.join("annabella.toml");
    fs::write(&config, format!("records_group_readable = {group}\n")).unwrap();
    let transcript = dir.join("said").join("transcript.txt");
    let wav = dir.join("wav");
    play_a_short_game(serve(&state, &config, &transcript, &wav), &wav);
    let (file, folder) = if group {
        (0o640, 0o750)
    } else {
        (0o600, 0o700)
    };
    let pgn = state.join("games").join("table-1-1.pgn");
    assert!(fs::read_to_string(&pgn).unwrap().contains("1. e4"));
    let mut records = vec![pgn, transcript.clone()];
    // The WAV record needs espeak-ng, which the README's test command installs.
    let wavs = wav_files(&wav);
    assert!(!wavs.is_empty(), "a WAV record in {}", wav.display());
    records.extend(wavs);
    for record in &records {
        assert_eq!(mode(record), file, "{}", record.display());
    }
    for made in [
        state.join("games"),
        transcript.parent().unwrap().to_path_buf(),
        wav.clone(),
    ] {
        assert_eq!(mode(&made), folder, "{}", made.display());
    }
    // The journal and the tokens stay the daemon user's alone, whatever the option.
    for private in ["journal.sqlite3", "tokens.toml"] {
        assert_eq!(mode(&state.join(private)), 0o600, "{private}");
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn records_are_the_daemon_users_alone_whatever_the_umask() {
    records_have_modes(false);
}

#[test]
fn records_are_readable_by_the_group_when_configured() {
    records_have_modes(true);
}

/// The daemon's log (standard error) until it ends or is ready.
fn log_of(mut daemon: Running) -> String {
    let mut lines = Vec::new();
    while let Some(line) = daemon.next_line(WAIT) {
        let ready = line.contains(" ready");
        lines.push(line);
        if ready {
            break;
        }
    }
    lines.join("\n")
}

#[test]
fn a_link_or_a_strangers_file_where_the_transcript_goes_is_never_written_through() {
    let dir = scratch_dir("records-planted");
    // A folder everyone may write in, like /tmp (sticky).
    let shared = dir.join("shared");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = dir.join("victim");
    fs::write(&victim, "precious\n").unwrap();
    let transcript = shared.join("transcript.txt");
    symlink(&victim, &transcript).unwrap();
    let root = nix::unistd::geteuid().is_root();
    if root {
        // Planted by `nobody`, as a stranger on the machine would.
        nix::unistd::fchownat(
            nix::fcntl::AT_FDCWD,
            &transcript,
            Some(nix::unistd::Uid::from_raw(65534)),
            Some(nix::unistd::Gid::from_raw(65534)),
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .unwrap();
    }
    let start = |state: &str| {
        let mut command = Command::new(BIN);
        command
            .arg("serve")
            .arg("--state-dir")
            .arg(dir.join(state))
            .args(["--listen", "127.0.0.1:0", "--web", "off", "--peg", "sim"])
            .arg("--speech")
            .arg(format!("transcript:{}", transcript.display()))
            .env("RUST_LOG", "info")
            .env_remove("ANNABELLA_TOKEN");
        Running::start_log(&mut command)
    };
    let log = log_of(start("state-1"));
    assert!(
        log.contains("transcript.txt is a link") && log.contains("never through a link"),
        "{log}"
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    if root {
        // A stranger's own file there: his words would go into the players' record, and
        // whoever may read his file would read the game. Refused too.
        fs::remove_file(&transcript).unwrap();
        fs::write(&transcript, "planted\n").unwrap();
        fs::set_permissions(&transcript, fs::Permissions::from_mode(0o666)).unwrap();
        std::os::unix::fs::chown(&transcript, Some(65534), Some(65534)).unwrap();
        let log = log_of(start("state-2"));
        assert!(log.contains("belongs to user 65534"), "{log}");
        assert_eq!(fs::read_to_string(&transcript).unwrap(), "planted\n");
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_log_file_is_private_and_a_link_there_is_refused() {
    let dir = scratch_dir("log-file");
    let log = dir.join("logs").join("annabella.log");
    let config = dir.join("annabella.toml");
    fs::write(
        &config,
        format!("log_file = \"{}\"\nlog_max_mb = 1\n", log.display()),
    )
    .unwrap();
    let run = |state: &str| {
        Command::new(BIN)
            .arg("serve")
            .arg("--config")
            .arg(&config)
            .arg("--state-dir")
            .arg(dir.join(state))
            .args(["--listen", "127.0.0.1:0", "--web", "off", "--peg", "sim"])
            .args(["--speech", "none"])
            .env("RUST_LOG", "info")
            .env_remove("ANNABELLA_TOKEN")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut daemon = run("state-1");
    // The log goes to the file, not to standard error: wait for its ready line there.
    let started = std::time::Instant::now();
    while !fs::read_to_string(&log)
        .unwrap_or_default()
        .contains(" ready")
    {
        assert!(
            started.elapsed() < WAIT,
            "no ready line in {}",
            log.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    assert!(daemon.wait().unwrap().success());
    assert_eq!(mode(&log), 0o600);
    assert_eq!(mode(log.parent().unwrap()), 0o700);
    assert_eq!(
        fs::metadata(&log).unwrap().uid(),
        nix::unistd::geteuid().as_raw()
    );

    // A link planted as the log: the daemon refuses to start, saying why, and writes nothing
    // through it.
    let victim = dir.join("victim");
    fs::write(&victim, "precious\n").unwrap();
    fs::remove_file(&log).unwrap();
    symlink(&victim, &log).unwrap();
    let out = run("state-2").wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("log_file") && stderr.contains("is a link"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    fs::remove_dir_all(&dir).ok();
}
