//! The real serial stack, end to end: `annabella simulate-board` on a pseudo-terminal (or a TCP
//! port) and `annabella watch` reading it through tokio-serial, the codecs and the detector.

pub mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::board::SimulatedBoard;
use common::fs::scratch_dir;
use common::process::Running;

/// `annabella watch` on the board at `device`, with further flags.
fn watch(protocol: &str, device: &str, extra: &[&str]) -> Running {
    let mut args = vec!["watch", "--protocol", protocol, "--device", device];
    args.extend_from_slice(extra);
    Running::annabella(&args)
}

/// `watch` once it has connected to the board and found it in sync.
fn watch_in_sync(protocol: &str, device: &str, extra: &[&str]) -> Running {
    let mut watch = watch(protocol, device, extra);
    watch.expect("connected", |l| l.starts_with("connected"));
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    watch
}

/// A scratch directory, a simulated board on a pseudo-terminal linked there, and `watch` in
/// sync with it.
struct Bench {
    dir: PathBuf,
    link: PathBuf,
    protocol: &'static str,
    sim: SimulatedBoard,
    watch: Running,
}

impl Bench {
    /// Board and watcher for `protocol`, both starting from `fen` when one is given.
    fn new(name: &str, protocol: &'static str, fen: Option<&str>) -> Bench {
        let dir = scratch_dir(name);
        let link = dir.join(protocol);
        let flags: Vec<&str> = fen.map(|f| vec!["--fen", f]).unwrap_or_default();
        let sim = SimulatedBoard::on_pty(protocol, &link, &flags);
        let watch = watch_in_sync(protocol, link.to_str().unwrap(), &flags);
        Bench {
            dir,
            link,
            protocol,
            sim,
            watch,
        }
    }

    fn play(&mut self, moves: &[(&str, &str)]) {
        play(&mut self.sim, &mut self.watch, moves);
    }

    /// Pulls the board's plug and waits until the watcher notices; then plugs in a new board
    /// under the same link, showing `fen`, and waits until the watcher has connected again.
    fn replug(&mut self, fen: &str) {
        self.sim.unplug();
        let watch = &mut self.watch;
        watch.expect("disconnected", |l| l.starts_with("disconnected"));
        self.sim = SimulatedBoard::on_pty(self.protocol, &self.link, &["--fen", fen]);
        watch.expect("connected again", |l| l.starts_with("connected"));
    }
}

impl Drop for Bench {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

/// Hands each move on the board and waits for the watcher's line for it.
fn play(sim: &mut SimulatedBoard, watch: &mut Running, moves: &[(&str, &str)]) {
    for (typed, expected) in moves {
        sim.hand(typed);
        watch.expect_line(expected);
    }
}

#[test]
fn peg_board_moves_arrive_through_a_pseudo_terminal_and_survive_an_unplug() {
    let mut bench = Bench::new("peg", "peg", None);
    bench.play(&[
        ("e4", "move e2e4"),
        ("5755", "move e7e5"),
        ("Nf3", "move g1f3"),
        ("Nc6", "move b8c6"),
    ]);
    // A capture, captured piece lifted second and first on the next one (the simulator alternates).
    bench.play(&[
        ("Bb5", "move f1b5"),
        ("a6", "move a7a6"),
        ("Bxc6", "move b5c6"),
    ]);

    // Unplug: the board goes away; the watcher says so and keeps trying. Re-plug under a new
    // pseudo-terminal with the same link name and the same position.
    bench.replug("r1bqkbnr/1ppp1ppp/p1B5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 4");
    let watch = &mut bench.watch;
    watch.expect("the re-plugged board in sync", |l| l.starts_with("in-sync"));
    bench.play(&[("dxc6", "move d7c6"), ("O-O", "move e1g1")]);
}

#[test]
fn a_move_made_while_the_board_was_unplugged_is_not_lost() {
    let mut bench = Bench::new("away", "peg", None);
    bench.play(&[("e4", "move e2e4")]);
    // While the cable is out, Black answers e7-e5 on the board; then it is plugged in again.
    bench.replug("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    bench.watch.expect_line("move e7e5");
    bench.play(&[("Nf3", "move g1f3")]);
}

#[test]
fn peg_board_promotion_waits_for_the_key() {
    let mut bench = Bench::new("promo", "peg", Some("8/P6k/8/8/8/8/8/K7 w - - 0 1"));
    bench.sim.hand("raw La7");
    bench.sim.hand("raw Pa8");
    bench.watch.expect("promotion-pending", |l| {
        l.starts_with("promotion-pending a7a8")
    });
    bench.sim.hand("raw KN");
    bench.watch.expect_line("move a7a8n");
}

#[test]
fn dgt_board_moves_arrive_through_a_pseudo_terminal() {
    let mut bench = Bench::new("dgt", "dgt", None);
    bench.play(&[
        ("e4", "move e2e4"),
        ("d5", "move d7d5"),
        ("exd5", "move e4d5"),
        ("Qxd5", "move d8d5"),
        ("Nc3", "move b1c3"),
    ]);
    // Unplugged; while away, Black plays Qa5 on the board; plugged in under a new terminal:
    // the board dump shows exactly that move.
    bench.replug("rnb1kbnr/ppp1pppp/8/q7/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 4");
    bench.watch.expect_line("move d5a5");
    bench.play(&[("Nf3", "move g1f3")]);
}

#[test]
fn a_board_behind_a_tcp_bridge() {
    let mut sim = SimulatedBoard::on_tcp("peg");
    let mut watch = watch_in_sync("peg", sim.address(), &[]);
    play(
        &mut sim,
        &mut watch,
        &[("d4", "move d2d4"), ("Nf6", "move g8f6")],
    );
}

#[test]
fn a_board_that_is_not_there_is_reported_and_retried() {
    let dir = scratch_dir("absent");
    let link = dir.join("nothing");
    let mut watch = watch("peg", link.to_str().unwrap(), &[]);
    // Plug it in late: the watcher finds it by itself.
    std::thread::sleep(Duration::from_millis(700));
    let mut sim = SimulatedBoard::on_pty("peg", &link, &[]);
    watch.expect("connected", |l| l.starts_with("connected"));
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    play(&mut sim, &mut watch, &[("c4", "move c2c4")]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_device_that_cannot_be_opened_is_reported_not_waited_on_in_silence() {
    let dir = scratch_dir("no-device");
    let missing = dir.join("ttyNONE");
    let mut watch = watch("peg", missing.to_str().unwrap(), &[]);
    let line = watch.expect("a waiting line", |l| l.starts_with("waiting"));
    assert!(line.contains("ttyNONE"), "{line}");
    watch.kill();
}
