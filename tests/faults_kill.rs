//! `kill -9` at many points of the real daemon (issue 14): one game played as fast as replies
//! come, with takebacks and new games, killed again and again at a seeded random moment, and
//! after each restart the game must be the acknowledged operations in order, or those and the
//! one in flight: no acknowledged move lost, none doubled.

pub mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use common::WAIT;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;
use common::net::connect_with_retries;
use common::rng::XorShift;

/// Kill points in a default run: about 20 s in a debug build on two cores.
const DEFAULT_ROUNDS: u64 = 100;
/// The kill comes 0 to this many microseconds after the first request of a round: a debug
/// build answers a move in about a millisecond, so this covers a dozen operations and a kill
/// lands before, during and after the journal's commit of one.
const MAX_KILL_DELAY_US: u64 = 15_000;
/// Where the kills are counted by how long after sending the request in flight they came, in
/// microseconds: before it was sent, then under 250 µs, 250 µs to 1 ms, and so on.
const BUCKETS_US: [u128; 3] = [250, 1_000, 2_000];
/// Past this many half-moves the arbiter ends the game and starts the next.
const MAX_PLIES: usize = 80;
/// The rate limits raised: the sweep sends as fast as the replies come.
const CONFIG: &str = "[control]\nrequests_per_second = 10000\nburst = 10000\n";

/// One request of the sweep, as the model applies it.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// A move by the side to move, sent as UCI by that side's connection.
    Move(Move),
    /// The arbiter withdraws the last move.
    Undo,
    /// The arbiter ends the game (`result 1-0`).
    Result,
    /// The arbiter starts the next game.
    NewGame,
}

/// Which connection sends a request; in the order the connections are opened.
#[derive(Clone, Copy)]
enum Who {
    White,
    Black,
    Arbiter,
}

impl Op {
    fn request(&self) -> String {
        match self {
            Op::Move(m) => format!("move {}", m.to_uci(CastlingMode::Standard)),
            Op::Undo => "undo".to_owned(),
            Op::Result => "result 1-0".to_owned(),
            Op::NewGame => "new-game".to_owned(),
        }
    }
}

/// The first four fields of a FEN: placement, side to move, castling, en passant.
fn fen4(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

fn fen_of(position: &Chess) -> String {
    fen4(&Fen::from_position(position, EnPassantMode::Legal).to_string())
}

/// What the daemon must show: the games the acknowledged operations made.
#[derive(Clone)]
struct Model {
    /// The positions of the current game, its start first.
    positions: Vec<Chess>,
    moves: Vec<Move>,
    over: bool,
    /// The moves of each finished game, in order.
    finished: Vec<Vec<Move>>,
}

/// What `status`, `board` and `export pgn` show, as the model says them.
#[derive(Debug, PartialEq)]
struct Shown {
    ply: usize,
    result: String,
    fen: String,
    /// The current game's moves in UCI, from its PGN.
    moves: String,
}

fn ucis(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Model {
    fn new() -> Model {
        Model {
            positions: vec![Chess::default()],
            moves: Vec::new(),
            over: false,
            finished: Vec::new(),
        }
    }

    fn position(&self) -> &Chess {
        self.positions.last().expect("the start is always there")
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Move(m) => {
                let mut next = self.position().clone();
                next.play_unchecked(m);
                self.positions.push(next);
                self.moves.push(m);
            }
            Op::Undo => {
                self.positions.pop();
                self.moves.pop();
            }
            Op::Result => self.over = true,
            Op::NewGame => {
                self.finished.push(std::mem::take(&mut self.moves));
                self.positions.truncate(1);
                self.over = false;
            }
        }
    }

    /// The model after a restart: a game that is over is followed by a new one, as the daemon
    /// begins it when it finds the last game over.
    fn restarted(mut self) -> Model {
        if self.over {
            self.apply(Op::NewGame);
        }
        self
    }

    fn applied(&self, op: Op) -> Model {
        let mut next = self.clone();
        next.apply(op);
        next
    }

    fn shown(&self) -> Shown {
        Shown {
            ply: self.moves.len(),
            result: if self.over { "1-0" } else { "*" }.to_owned(),
            fen: fen_of(self.position()),
            moves: ucis(&self.moves),
        }
    }

    /// The moves the sweep may play: no promotion, nothing after which the position ends the
    /// game by itself (mate, stalemate, too little material), and no position a third time,
    /// so a fivefold repetition never comes; the 75-move rule cannot within [`MAX_PLIES`].
    fn playable(&self) -> Vec<Move> {
        // Zobrist keys rather than FENs: choosing must be quick, or the kills would land in the
        // test rather than in the daemon.
        let key = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let seen: Vec<u64> = self.positions.iter().map(key).collect();
        self.position()
            .legal_moves()
            .into_iter()
            .filter(|m| !m.is_promotion())
            .filter(|m| {
                let mut next = self.position().clone();
                next.play_unchecked(*m);
                let next_key = key(&next);
                !next.is_game_over() && seen.iter().filter(|&&k| k == next_key).count() < 2
            })
            .collect()
    }

    /// The next request: mostly a move of the side to move, now and then a takeback; the
    /// arbiter ends a long game (or one without a playable move) and starts the next.
    fn choose(&self, rng: &mut XorShift) -> (Who, Op) {
        if self.over {
            return (Who::Arbiter, Op::NewGame);
        }
        if self.moves.len() >= MAX_PLIES {
            return (Who::Arbiter, Op::Result);
        }
        if !self.moves.is_empty() && rng.below(8) == 0 {
            return (Who::Arbiter, Op::Undo);
        }
        let moves = self.playable();
        if moves.is_empty() {
            return (Who::Arbiter, Op::Result);
        }
        let m = moves[rng.below(moves.len() as u64) as usize];
        let who = if self.position().turn().is_white() {
            Who::White
        } else {
            Who::Black
        };
        (who, Op::Move(m))
    }

    /// Whether `reply` is the acknowledgement of `op`.
    fn acknowledges(&self, op: Op, reply: &str) -> bool {
        match op {
            Op::Move(m) => reply
                .strip_prefix("ok ")
                .and_then(|r| r.split(' ').next())
                .is_some_and(|uci| uci == m.to_uci(CastlingMode::Standard).to_string()),
            Op::Undo => self.moves.last().is_some_and(|m| {
                reply == format!("ok withdrawn {}", m.to_uci(CastlingMode::Standard))
            }),
            Op::Result => reply == "ok result 1-0",
            Op::NewGame => reply.starts_with("ok new game "),
        }
    }
}

/// A control connection whose reply may never come: the daemon is killed under it. Nothing
/// subscribes to events, so every line is a reply.
struct Line {
    stream: TcpStream,
    replies: BufReader<TcpStream>,
}

impl Line {
    fn open(addr: SocketAddr, token: &str) -> Line {
        let stream = connect_with_retries(addr);
        stream.set_read_timeout(Some(WAIT)).unwrap();
        stream.set_nodelay(true).unwrap();
        let replies = BufReader::new(stream.try_clone().unwrap());
        let mut line = Line { stream, replies };
        let reply = line.ask(&format!("auth {token}"));
        assert!(
            reply.as_deref().is_some_and(|r| r.starts_with("ok ")),
            "auth: {reply:?}"
        );
        line
    }

    /// Sends `request` and reads its reply; `None` once the connection is gone (a line cut
    /// off by the kill is no reply).
    fn ask(&mut self, request: &str) -> Option<String> {
        // One write: a request in pieces would wait on Nagle's algorithm for the first
        // piece's acknowledgement, tens of milliseconds.
        self.stream
            .write_all(format!("{request}\n").as_bytes())
            .ok()?;
        let mut reply = String::new();
        self.replies.read_line(&mut reply).ok()?;
        reply.strip_suffix('\n').map(str::to_owned)
    }
}

fn serve(state: &Path, config: &Path) -> Daemon {
    Serve::new(state)
        .config(config)
        // No peg board: every move comes by the control port, and a new game's clock would
        // otherwise wait for a set-up of the simulated board that nobody makes (issue 24).
        .args(["--peg", "none", "--speech", "none"])
        .start()
}

/// The game as the restarted daemon shows it.
fn shown(daemon: &Daemon) -> Shown {
    let mut arbiter = daemon.connect("arbiter");
    let status = arbiter.ask("status");
    let board = arbiter.ask("board");
    let pgn = arbiter.ask("export pgn");
    let pgn: String = pgn
        .strip_prefix("ok ")
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_else(|| panic!("export pgn: {pgn}"));
    let words: Vec<&str> = status.split_whitespace().collect();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
            .unwrap_or_else(|| panic!("no {key} in {status}"))
            .to_string()
    };
    Shown {
        ply: after("ply").parse().unwrap(),
        result: after("result"),
        fen: fen4(
            board
                .strip_prefix("ok ")
                .unwrap_or_else(|| panic!("{board}")),
        ),
        moves: ucis(&pgn_moves(&pgn, "export pgn")),
    }
}

/// The half-moves of the one game in `text`, a PGN from `whence`.
fn pgn_moves(text: &str, whence: &str) -> Vec<Move> {
    let mut games = annabella::chess::pgn::read_games(text);
    assert_eq!(games.len(), 1, "{whence}: {text}");
    let game = games
        .pop()
        .unwrap()
        .unwrap_or_else(|e| panic!("{whence}: {e:?}"));
    game.game.moves().to_vec()
}

/// The half-moves of an archived game.
fn archived_moves(pgn: &Path) -> Vec<Move> {
    let text = std::fs::read_to_string(pgn).unwrap_or_else(|e| panic!("{}: {e}", pgn.display()));
    pgn_moves(&text, &pgn.display().to_string())
}

fn median(sorted: &[Duration]) -> Duration {
    sorted[sorted.len() / 2]
}

#[test]
fn kill_9_at_many_points_never_loses_or_doubles_an_acknowledged_operation() {
    let rounds: u64 = match std::env::var("ANNABELLA_KILL_ROUNDS") {
        Ok(n) => n
            .parse()
            .unwrap_or_else(|_| panic!("ANNABELLA_KILL_ROUNDS={n:?}: a number of rounds")),
        Err(_) => DEFAULT_ROUNDS,
    };
    assert!(rounds > 0, "ANNABELLA_KILL_ROUNDS must be at least 1");
    let dir = scratch_dir("faults-kill");
    let state = dir.join("state");
    let config = dir.join("annabella.toml");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&config, CONFIG).unwrap();

    let started = Instant::now();
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let mut model = Model::new();
    let mut daemon = serve(&state, &config);
    let tokens = ["white", "black", "arbiter"].map(|role| daemon.token(role));
    let mut ready = Vec::new();
    let (mut acked, mut landed, mut not_landed, mut either) = (0u64, 0u64, 0u64, 0u64);
    let (mut moves, mut undos, mut ends) = (0u64, 0u64, 0u64);
    let mut longest_round = 0u64;
    // Per time from sending the request in flight to the kill: (recorded, not recorded).
    let mut by_delay = [(0u64, 0u64); BUCKETS_US.len() + 2];

    for round in 0..rounds {
        let mut lines = tokens
            .each_ref()
            .map(|token| Line::open(daemon.control, token));
        let delay = Duration::from_micros(rng.below(MAX_KILL_DELAY_US + 1));
        let killer = std::thread::spawn(move || {
            std::thread::sleep(delay);
            let at = Instant::now();
            daemon.kill9();
            at
        });
        // As fast as the replies come, until one does not: that request was in flight.
        let mut in_round = 0u64;
        let (in_flight, sent) = loop {
            let (who, op) = model.choose(&mut rng);
            let line = &mut lines[who as usize];
            let sent = Instant::now();
            let Some(reply) = line.ask(&op.request()) else {
                break (op, sent);
            };
            assert!(
                model.acknowledges(op, &reply),
                "round {round}: {} answered {reply:?} at {}",
                op.request(),
                fen_of(model.position())
            );
            match op {
                Op::Move(_) => moves += 1,
                Op::Undo => undos += 1,
                Op::Result | Op::NewGame => ends += 1,
            }
            model.apply(op);
            acked += 1;
            in_round += 1;
        };
        longest_round = longest_round.max(in_round);
        let killed = killer.join().expect("the kill");
        // How long after its request was sent the kill came, if it came after.
        let after_send = killed.checked_duration_since(sent);
        let bucket = match after_send {
            None => 0,
            Some(d) => 1 + BUCKETS_US.iter().filter(|&&us| d.as_micros() >= us).count(),
        };
        drop(lines);

        daemon = serve(&state, &config);
        ready.push(daemon.ready_after);
        // A game found over at start is followed by a new one (the daemon begins it).
        let without = model.clone().restarted();
        let with = model.applied(in_flight).restarted();
        let shown = shown(&daemon);
        if shown == without.shown() && shown == with.shown() {
            either += 1;
            model = without;
        } else if shown == without.shown() {
            not_landed += 1;
            by_delay[bucket].1 += 1;
            model = without;
        } else if shown == with.shown() {
            landed += 1;
            by_delay[bucket].0 += 1;
            model = with;
        } else {
            let what = if shown.ply < without.shown().ply {
                "an acknowledged operation was lost"
            } else if shown.ply > with.shown().ply {
                "an operation was doubled"
            } else {
                "the game differs"
            };
            panic!(
                "round {round}, kill {delay:?} after the first request ({in_round} acknowledged \
                 in the round, {} in flight, the kill {after_send:?} after it was sent): {what}; the daemon shows {shown:?}; the \
                 acknowledged operations give {:?}, with the one in flight {:?}",
                in_flight.request(),
                without.shown(),
                with.shown()
            );
        }
    }

    // Every finished game is archived whole, its moves the acknowledged ones, and no other.
    assert!(daemon.terminate().success());
    let archived = std::fs::read_dir(state.join("games")).map_or(0, |d| d.count());
    assert_eq!(archived, model.finished.len(), "games archived");
    for (i, game) in model.finished.iter().enumerate() {
        let pgn = state.join("games").join(format!("table-1-{}.pgn", i + 1));
        assert_eq!(
            &archived_moves(&pgn),
            game,
            "game {} as archived and as acknowledged",
            i + 1
        );
    }

    ready.sort();
    eprintln!(
        "kill -9 sweep: {rounds} kill points, 0 to {} ms after a round's first request, in \
         {:.1} s; {acked} operations acknowledged ({moves} moves, {undos} takebacks, {ends} game \
         ends and new games; at most {longest_round} in a round); the request in flight at the \
         kill: recorded {landed}, not recorded {not_landed}, a new game either way {either}; \
         acknowledged operations lost 0, doubled 0; {} finished games archived whole; ready \
         after a restart in {:?} (median), {:?} at most",
        MAX_KILL_DELAY_US / 1000,
        started.elapsed().as_secs_f64(),
        model.finished.len(),
        median(&ready),
        ready.last().unwrap()
    );
    let label = |i: usize| match i {
        0 => "sent after the kill".to_owned(),
        1 => format!("under {} µs", BUCKETS_US[0]),
        i if i == BUCKETS_US.len() + 1 => format!("{} µs and more", BUCKETS_US[i - 2]),
        i => format!("{}–{} µs", BUCKETS_US[i - 2], BUCKETS_US[i - 1]),
    };
    let buckets: Vec<String> = by_delay
        .iter()
        .enumerate()
        .map(|(i, (rec, not))| format!("{}: {rec} recorded, {not} not", label(i)))
        .collect();
    eprintln!(
        "kill -9 sweep: the kill after the request in flight was sent: {}",
        buckets.join("; ")
    );
    assert_eq!(landed + not_landed + either, rounds);
    assert!(acked > rounds, "the sweep played: {acked} acknowledged");
    let _ = std::fs::remove_dir_all(&dir);
}
