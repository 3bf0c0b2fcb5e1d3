//! The journal's faults with the real daemon, as an audit found them: an empty journal, a
//! damaged or cut-short write-ahead log and a truncated journal are refused at start with the
//! file and the way to recover (never silently a new or shorter game); a state directory removed
//! while the daemon runs is detected and nothing more is acknowledged; a `kill -9` during a
//! resignation never leaves the finished game without its PGN after the restart, and an
//! archive's stale temporary file is removed.

pub mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::WAIT;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::process::{BIN, Running};

const JOURNAL: &str = "journal.sqlite3";
const MARK: &str = "journal.mark";

fn serve(state: &Path) -> Daemon {
    Serve::new(state)
        .args(["--peg", "sim", "--speech", "none"])
        .start()
}

/// Starts the daemon on `state` and expects it to refuse: it ends non-zero within [`WAIT`]
/// without ever being ready. Returns its log.
fn refused(state: &Path) -> String {
    let mut command = Command::new(BIN);
    command
        .arg("serve")
        .arg("--state-dir")
        .arg(state)
        .args(["--listen", "127.0.0.1:0", "--web", "off"])
        .args(["--peg", "sim", "--speech", "none"])
        .env("RUST_LOG", "info")
        .env_remove("ANNABELLA_TOKEN");
    let mut daemon = Running::start_log(&mut command);
    let status = daemon
        .wait_within(WAIT)
        .expect("the daemon refuses to start rather than run");
    let log = daemon.lines_to_end().join("\n");
    assert!(!status.success(), "{status}: {log}");
    assert!(!log.contains(" ready"), "{log}");
    log
}

/// Plays `moves`, White first, each acknowledged.
fn play(daemon: &Daemon, moves: &[&str]) {
    let mut white = daemon.connect("white");
    let mut black = daemon.connect("black");
    for (i, m) in moves.iter().enumerate() {
        let side = if i % 2 == 0 { &mut white } else { &mut black };
        let reply = side.ask(&format!("move {m}"));
        assert!(reply.starts_with("ok "), "move {m}: {reply}");
    }
}

fn status(daemon: &Daemon) -> String {
    daemon.connect("arbiter").ask("status")
}

fn wal(state: &Path) -> PathBuf {
    state.join(format!("{JOURNAL}-wal"))
}

/// The byte ranges of the frames of a write-ahead log's current generation (those carrying the
/// salts of its header), in order: what SQLite replays unless a checksum stops it.
fn current_frames(log: &[u8]) -> Vec<std::ops::Range<usize>> {
    let be32 = |at: usize| u32::from_be_bytes(log[at..at + 4].try_into().unwrap());
    assert!(log.len() >= 32, "a write-ahead log has a header");
    let page = be32(8) as usize;
    let salts = &log[16..24];
    let mut frames = Vec::new();
    let mut at = 32;
    while at + 24 + page <= log.len() && &log[at + 8..at + 16] == salts {
        frames.push(at..at + 24 + page);
        at += 24 + page;
    }
    frames
}

/// Six moves, then `kill -9`: the write-ahead log holds them (the daemon checkpoints at start
/// and then once a minute).
fn six_moves_then_kill(state: &Path) {
    let daemon = serve(state);
    play(&daemon, &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    assert!(status(&daemon).contains(" ply 6 "));
    daemon.kill9();
}

#[test]
fn an_empty_journal_and_a_journal_gone_beside_its_mark_are_refused() {
    let dir = scratch_dir("faults-empty");
    let state = dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join(JOURNAL), b"").unwrap();
    let log = refused(&state);
    assert!(
        log.contains(&format!(
            "the journal {} is empty (0 bytes",
            state.join(JOURNAL).display()
        )) && log.contains("restore the state directory from a backup"),
        "{log}"
    );
    assert_eq!(
        std::fs::metadata(state.join(JOURNAL)).unwrap().len(),
        0,
        "left as found"
    );
    assert!(
        !state.join("tokens.toml").exists(),
        "no new game, no new tokens"
    );

    // A journal removed from a directory that had one: its mark says so.
    std::fs::remove_dir_all(&state).unwrap();
    let daemon = serve(&state);
    play(&daemon, &["e4"]);
    daemon.kill9();
    std::fs::remove_file(state.join(JOURNAL)).unwrap();
    let _ = std::fs::remove_file(wal(&state));
    let log = refused(&state);
    assert!(
        log.contains(&format!(
            "the journal {} is missing but {} is there",
            state.join(JOURNAL).display(),
            state.join(MARK).display()
        )),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_or_cut_short_write_ahead_log_is_refused_with_the_loss_and_the_way_on() {
    let dir = scratch_dir("faults-wal");
    for damage in ["a byte flipped", "cut in half"] {
        let state = dir.join(damage.replace(' ', "-"));
        six_moves_then_kill(&state);
        let mut log = std::fs::read(wal(&state)).unwrap();
        let frames = current_frames(&log);
        assert!(frames.len() >= 6, "the moves are in the log: {frames:?}");
        let middle = frames[frames.len() / 2].clone();
        if damage == "a byte flipped" {
            log[middle.start + 24 + 100] ^= 0x55;
        } else {
            log.truncate(middle.start + 100);
        }
        std::fs::write(wal(&state), &log).unwrap();

        let log = refused(&state);
        assert!(
            log.contains(&format!("the journal {}", state.join(JOURNAL).display()))
                && log.contains("SQLite dropped the last records")
                && log.contains(&format!("move {} aside", state.join(MARK).display())),
            "{damage}: {log}"
        );
        // The documented way on: the mark moved aside, the daemon starts with what is left
        // and says it wrote a new mark.
        std::fs::rename(state.join(MARK), dir.join("mark-aside")).unwrap();
        let mut daemon = serve(&state);
        let status = status(&daemon);
        let ply: u32 = status
            .split(" ply ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{status}"));
        assert!(ply < 6, "{damage}: records were lost, ply {ply}");
        eprintln!("{damage}: refused; with the mark moved aside, {ply} of 6 moves are left");
        assert!(daemon.terminate().success());
        drop(daemon);
        assert!(state.join(MARK).exists(), "a new mark");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_truncated_journal_file_is_refused() {
    let dir = scratch_dir("faults-truncated");
    let state = dir.join("state");
    let mut daemon = serve(&state);
    play(&daemon, &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    assert!(daemon.terminate().success());
    drop(daemon);
    let journal = state.join(JOURNAL);
    assert!(!wal(&state).exists(), "a clean stop checkpoints the log");
    let len = std::fs::metadata(&journal).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&journal)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let log = refused(&state);
    assert!(
        log.contains(&journal.display().to_string())
            && (log.contains("is damaged") || log.contains("SQLite dropped the last records")),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_state_directory_removed_while_running_refuses_every_move_loudly() {
    let dir = scratch_dir("faults-removed");
    let state = dir.join("state");
    let mut daemon = serve(&state);
    let mut white = daemon.connect("white");
    let mut black = daemon.connect("black");
    let mut arbiter = daemon.connect("arbiter");
    assert_eq!(white.ask("move e4"), "ok e2e4 e4");
    std::fs::remove_dir_all(&state).unwrap();

    let reply = black.ask("move e5");
    assert!(
        reply.starts_with("error state ")
            && reply.contains(&format!("the state directory {} is gone", state.display()))
            && reply.contains("nothing was recorded"),
        "{reply}"
    );
    daemon.expect_log("the journal's error", |l| {
        l.contains("ERROR") && l.contains("the journal refuses every write from now on")
    });
    // Nothing acknowledged that is not durable, even once the path is back (an empty
    // directory, a fresh journal another daemon could open).
    std::fs::create_dir_all(&state).unwrap();
    let reply = black.ask("move e5");
    assert!(reply.contains("is gone"), "{reply}");
    let reply = arbiter.ask("adjust white +1");
    assert!(reply.contains("is gone"), "{reply}");
    assert!(
        arbiter
            .ask("status")
            .starts_with("ok table table-1 ply 1 turn black"),
        "the game as it was"
    );
    assert!(
        !state.join(JOURNAL).exists(),
        "no journal created behind the daemon's back"
    );
    drop((white, black, arbiter));
    drop(daemon);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts a game, has Black resign and kills the daemon `after` the request was sent.
fn resign_and_kill(state: &Path, after: Duration) {
    let daemon = serve(state);
    play(&daemon, &["e4", "e5"]);
    let mut stream = TcpStream::connect(daemon.control).unwrap();
    let mut replies = BufReader::new(stream.try_clone().unwrap());
    writeln!(stream, "auth {}", daemon.token("black")).unwrap();
    let mut reply = String::new();
    replies.read_line(&mut reply).unwrap();
    assert!(reply.starts_with("ok"), "{reply}");
    stream.write_all(b"resign\n").unwrap();
    std::thread::sleep(after);
    daemon.kill9();
}

fn temps(games: &Path) -> Vec<String> {
    std::fs::read_dir(games)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn kill_9_during_a_resignation_never_leaves_the_game_unarchived_after_a_restart() {
    let dir = scratch_dir("faults-resign");
    let started = Instant::now();
    let (mut resigned, mut unarchived, mut temp_left) = (0, 0, 0);
    let points: Vec<Duration> = (0..24).map(|i| Duration::from_micros(i * 400)).collect();
    for (i, after) in points.iter().enumerate() {
        let state = dir.join(format!("state-{i}"));
        resign_and_kill(&state, *after);
        let games = state.join("games");
        let pgn = games.join("table-1-1.pgn");
        if !pgn.exists() {
            unarchived += 1;
        }
        temp_left += temps(&games).len();

        let mut daemon = serve(&state);
        let status = status(&daemon);
        if status.contains(" ply 0 ") {
            // The resignation was recorded: game 1 is over and a new game began.
            resigned += 1;
            let text = std::fs::read_to_string(&pgn)
                .unwrap_or_else(|e| panic!("kill after {after:?}: {}: {e}", pgn.display()));
            assert!(
                text.contains("[Result \"1-0\"]")
                    && text.contains("1. e4 ")
                    && text.contains(" 1... e5 ")
                    && text.trim_end().ends_with(" 1-0"),
                "kill after {after:?}: a whole PGN: {text}"
            );
        } else {
            assert!(status.contains(" ply 2 "), "kill after {after:?}: {status}");
        }
        assert_eq!(
            temps(&games),
            Vec::<String>::new(),
            "no stale temporary file"
        );
        assert!(daemon.terminate().success());
    }
    eprintln!(
        "{} kill points in {:?}: {resigned} with the resignation recorded, {unarchived} without \
         the PGN before the restart ({temp_left} temporary files), 0 after",
        points.len(),
        started.elapsed()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_finished_game_missing_from_the_archive_is_archived_at_start_and_stale_temps_go() {
    let dir = scratch_dir("faults-rearchive");
    let state = dir.join("state");
    let mut daemon = serve(&state);
    play(&daemon, &["e4", "e5"]);
    assert_eq!(daemon.connect("black").ask("resign"), "ok black resigns");
    assert!(daemon.terminate().success());
    drop(daemon);
    let games = state.join("games");
    let pgn = games.join("table-1-1.pgn");
    let whole = std::fs::read_to_string(&pgn).unwrap();
    std::fs::remove_file(&pgn).unwrap();
    std::fs::write(games.join(".table-1-1.pgn.tmp"), &whole[..whole.len() / 2]).unwrap();

    // (The daemon logs "archived now" before it is ready.)
    let mut daemon = serve(&state);
    assert_eq!(std::fs::read_to_string(&pgn).unwrap(), whole);
    assert_eq!(temps(&games), Vec::<String>::new());
    assert!(status(&daemon).contains(" ply 0 "), "the next game");
    assert!(daemon.terminate().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The store's own answers, without the daemon: a journal of an annabella before the mark opens
/// and gains one; a mark ahead of the journal (records or games) is refused; writes after the
/// directory went are refused, also once it is back, and nothing is written there.
#[test]
fn the_store_checks_its_mark_and_its_directory() {
    use annabella::io::store::{Store, StoreError};
    let dir = scratch_dir("faults-store");
    let state = dir.join("state");
    let mut store = Store::open(&state).unwrap();
    store.append("t", 1_000, "one").unwrap();
    store.append("t", 2_000, "two").unwrap();
    store.close().unwrap();

    std::fs::remove_file(state.join(MARK)).unwrap();
    let store = Store::open(&state).expect("a journal without a mark opens");
    assert_eq!(store.load("t").unwrap().len(), 2);
    drop(store);
    let mark = std::fs::read_to_string(state.join(MARK)).unwrap();
    assert!(mark.contains(" seq=2 games=1 "), "{mark:?}");

    // A mark from a longer journal, then one with more games: both refused as lost records.
    let longer = dir.join("longer");
    let mut store = Store::open(&longer).unwrap();
    for i in 0..3 {
        store.append("t", 1_000 + i, "line").unwrap();
    }
    store.begin_game("t", 5_000).unwrap();
    store.close().unwrap();
    std::fs::copy(longer.join(MARK), state.join(MARK)).unwrap();
    match Store::open(&state) {
        Err(e @ StoreError::RecordsLost { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains("ends at record 2 (games: 1)")
                    && text.contains("records up to 3 (games: 2)"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }

    // The write-ahead log removed under an open store: SQLite would go on committing into it.
    std::fs::remove_file(state.join(MARK)).unwrap();
    let mut store = Store::open(&state).unwrap();
    std::fs::remove_file(wal(&state)).unwrap();
    let gone = store.append("t", 3_000, "three").unwrap_err();
    assert!(
        gone.to_string()
            .contains(&format!("{} was removed", wal(&state).display())),
        "{gone}"
    );
    drop(store);
    assert_eq!(Store::open(&state).unwrap().load("t").unwrap().len(), 2);

    // The directory removed under an open store.
    std::fs::remove_file(state.join(MARK)).unwrap();
    let mut store = Store::open(&state).unwrap();
    std::fs::remove_dir_all(&state).unwrap();
    let gone = store.append("t", 3_000, "three").unwrap_err();
    assert!(matches!(gone, StoreError::StateDirGone { .. }), "{gone}");
    std::fs::create_dir_all(&state).unwrap();
    for error in [
        store.append("t", 4_000, "four").unwrap_err(),
        store.begin_game("t", 4_000).unwrap_err(),
        store.heartbeat(4_000).unwrap_err(),
        store.archive_pgn("t", 1, "1. e4 *").unwrap_err(),
    ] {
        assert!(matches!(error, StoreError::StateDirGone { .. }), "{error}");
    }
    drop(store);
    assert_eq!(
        std::fs::read_dir(&state).unwrap().count(),
        0,
        "nothing written into the new directory"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_daemon_on_the_same_state_directory_refuses_naming_the_first() {
    let state = scratch_dir("faults-lock").join("state");
    let first = serve(&state);
    play(&first, &["e4"]);
    let tokens = std::fs::read_to_string(state.join("tokens.toml")).unwrap();
    let log = refused(&state);
    let want = format!(
        "the state directory {} is in use by another annabella (process {}); stop that one, or give each daemon its own state_dir",
        state.display(),
        first.pid()
    );
    assert!(log.contains(&want), "{log}");
    // The first goes on untouched: its game, its tokens.
    assert_eq!(
        std::fs::read_to_string(state.join("tokens.toml")).unwrap(),
        tokens
    );
    assert!(status(&first).contains("ply 1"));
}

/// The state directory is ours or refused (issue 23): one another user owns, or one others may
/// write in, is refused with the remedy before anything is written there; a link planted where
/// the lock goes is never written through.
#[cfg(unix)]
#[test]
fn a_state_directory_others_control_is_refused() {
    use std::fs;
    use std::os::unix::fs::{PermissionsExt, symlink};
    let dir = scratch_dir("storage-not-ours");
    let victim = dir.join("victim");
    fs::write(&victim, "precious\n").unwrap();
    // Writable by everyone (as `mkdir -m 0777 /tmp/annabella-demo-…` by a stranger).
    let open = dir.join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    symlink(&victim, open.join("lock")).unwrap();
    let log = refused(&open);
    assert!(
        log.contains("is refused: others may write in it (mode 777)"),
        "{log}"
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    // Ours, but with a link where the lock goes.
    let linked = dir.join("linked");
    fs::create_dir(&linked).unwrap();
    fs::set_permissions(&linked, fs::Permissions::from_mode(0o700)).unwrap();
    symlink(&victim, linked.join("lock")).unwrap();
    let log = refused(&linked);
    assert!(log.contains("cannot write in the state directory"), "{log}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    // Another user's (the tests run as root in CI: `nobody` owns it).
    if nix::unistd::geteuid().is_root() {
        let theirs = dir.join("theirs");
        fs::create_dir(&theirs).unwrap();
        fs::set_permissions(&theirs, fs::Permissions::from_mode(0o700)).unwrap();
        nix::unistd::chown(&theirs, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
        let log = refused(&theirs);
        assert!(
            log.contains("is refused: it belongs to user 65534"),
            "{log}"
        );
        // Our directory, but a tokens file planted by `nobody`: it could grant him the
        // arbiter's role, so it is refused.
        let planted = dir.join("planted");
        fs::create_dir(&planted).unwrap();
        fs::set_permissions(&planted, fs::Permissions::from_mode(0o700)).unwrap();
        let tokens = planted.join("tokens.toml");
        fs::write(
            &tokens,
            "[[token]]\ntoken = \"mallory-0123456789abcdef\"\nrole = \"arbiter\"\n",
        )
        .unwrap();
        fs::set_permissions(&tokens, fs::Permissions::from_mode(0o600)).unwrap();
        nix::unistd::chown(&tokens, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
        let log = refused(&planted);
        assert!(
            log.contains("it belongs to user 65534") && log.contains("tokens.toml"),
            "{log}"
        );
    }
    // A tokens file that is a link is refused too.
    let linked_tokens = dir.join("linked-tokens");
    fs::create_dir(&linked_tokens).unwrap();
    fs::set_permissions(&linked_tokens, fs::Permissions::from_mode(0o700)).unwrap();
    symlink(&victim, linked_tokens.join("tokens.toml")).unwrap();
    let log = refused(&linked_tokens);
    assert!(log.contains("a symbolic link"), "{log}");
    fs::remove_dir_all(&dir).ok();
}
