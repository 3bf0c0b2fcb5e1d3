//! The real serial stack, end to end: `annabella simulate-board` on a pseudo-terminal (or a TCP
//! port) and `annabella watch` reading it through tokio-serial, the codecs and the detector.

pub mod common;

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

#[test]
fn peg_board_moves_arrive_through_a_pseudo_terminal_and_survive_an_unplug() {
    let dir = scratch_dir("peg");
    let link = dir.join("pegboard");
    let mut sim = SimulatedBoard::on_pty("peg", &link, &[]);
    let mut watch = watch_in_sync("peg", link.to_str().unwrap(), &[]);
    for (typed, expected) in [
        ("e4", "move e2e4"),
        ("5755", "move e7e5"),
        ("Nf3", "move g1f3"),
        ("Nc6", "move b8c6"),
    ] {
        sim.hand(typed);
        watch.expect_line(expected);
    }
    // A capture, captured piece lifted second and first on the next one (the simulator alternates).
    sim.hand("Bb5");
    watch.expect_line("move f1b5");
    sim.hand("a6");
    watch.expect_line("move a7a6");
    sim.hand("Bxc6");
    watch.expect_line("move b5c6");

    // Unplug: the board goes away; the watcher says so and keeps trying.
    sim.unplug();
    watch.expect("disconnected", |l| l.starts_with("disconnected"));
    // Re-plug under a new pseudo-terminal with the same link name and the same position.
    let fen = "r1bqkbnr/1ppp1ppp/p1B5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 4";
    let mut sim = SimulatedBoard::on_pty("peg", &link, &["--fen", fen]);
    watch.expect("connected again", |l| l.starts_with("connected"));
    watch.expect("the re-plugged board in sync", |l| l.starts_with("in-sync"));
    sim.hand("dxc6");
    watch.expect_line("move d7c6");
    sim.hand("O-O");
    watch.expect_line("move e1g1");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_move_made_while_the_board_was_unplugged_is_not_lost() {
    let dir = scratch_dir("away");
    let link = dir.join("pegboard");
    let mut sim = SimulatedBoard::on_pty("peg", &link, &[]);
    let mut watch = watch("peg", link.to_str().unwrap(), &[]);
    watch.expect("the board in sync", |l| l.starts_with("in-sync"));
    sim.hand("e4");
    watch.expect_line("move e2e4");
    sim.unplug();
    watch.expect("disconnected", |l| l.starts_with("disconnected"));
    // While the cable is out, Black answers e7-e5 on the board; then it is plugged in again.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let mut sim = SimulatedBoard::on_pty("peg", &link, &["--fen", fen]);
    watch.expect("connected again", |l| l.starts_with("connected"));
    watch.expect_line("move e7e5");
    sim.hand("Nf3");
    watch.expect_line("move g1f3");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn peg_board_promotion_waits_for_the_key() {
    let dir = scratch_dir("promo");
    let link = dir.join("pegboard");
    let mut sim = SimulatedBoard::on_pty("peg", &link, &["--fen", "8/P6k/8/8/8/8/8/K7 w - - 0 1"]);
    let mut watch = watch_in_sync(
        "peg",
        link.to_str().unwrap(),
        &["--fen", "8/P6k/8/8/8/8/8/K7 w - - 0 1"],
    );
    sim.hand("raw La7");
    sim.hand("raw Pa8");
    watch.expect("promotion-pending", |l| {
        l.starts_with("promotion-pending a7a8")
    });
    sim.hand("raw KN");
    watch.expect_line("move a7a8n");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dgt_board_moves_arrive_through_a_pseudo_terminal() {
    let dir = scratch_dir("dgt");
    let link = dir.join("dgt");
    let mut sim = SimulatedBoard::on_pty("dgt", &link, &[]);
    let mut watch = watch_in_sync("dgt", link.to_str().unwrap(), &[]);
    for (typed, expected) in [
        ("e4", "move e2e4"),
        ("d5", "move d7d5"),
        ("exd5", "move e4d5"),
        ("Qxd5", "move d8d5"),
        ("Nc3", "move b1c3"),
    ] {
        sim.hand(typed);
        watch.expect_line(expected);
    }
    // Unplugged; while away, Black plays Qa5 on the board; plugged in under a new terminal:
    // the board dump shows exactly that move.
    sim.unplug();
    watch.expect("disconnected", |l| l.starts_with("disconnected"));
    let fen = "rnb1kbnr/ppp1pppp/8/q7/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 4";
    let mut sim = SimulatedBoard::on_pty("dgt", &link, &["--fen", fen]);
    watch.expect("connected again", |l| l.starts_with("connected"));
    watch.expect_line("move d5a5");
    sim.hand("Nf3");
    watch.expect_line("move g1f3");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_board_behind_a_tcp_bridge() {
    let mut sim = SimulatedBoard::on_tcp("peg");
    let mut watch = watch_in_sync("peg", sim.address(), &[]);
    sim.hand("d4");
    watch.expect_line("move d2d4");
    sim.hand("Nf6");
    watch.expect_line("move g8f6");
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
    sim.hand("c4");
    watch.expect_line("move c2c4");
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
