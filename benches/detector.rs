//! Criterion benchmark of the move detector over sensor streams built from real games.
//!
//! Every game of the collection the pgn-reader crate ships (`twic1599_1000k.pgn`,
//! `lichess_db_1000k.pgn`; or `ANNABELLA_BENCH_PGN=file.pgn`) becomes two recorded streams:
//! - **peg**: each move as the lifts and placements a hand makes, in a human order chosen per
//!   move among all possible ones (capture lifted before or after the capturer, the three
//!   en-passant orders, castling king or rook first, the promotion key), with now and then an
//!   own piece touched and put back first; 100 ms between events.
//! - **dgt**: each move as the field updates of an e-board in a scan order chosen per move among
//!   all possible ones (every changed square once in any order, or a captured square seen empty
//!   first); 10 ms between updates.
//!
//! The stream is replayed as the daemon would: every `Moved` is played into the game, so the
//! figure includes `Game::play`. `per-event` times every single `handle` call and prints the
//! median and tail. Run: `cargo bench --bench detector`. Under `cargo test` each benchmark runs
//! once on a few games and checks that the detector concludes exactly the games' moves.

use std::hint::black_box;
use std::time::{Duration, Instant};

use annabella::boards::gestures::{identity_events, peg_events};
use annabella::boards::{SensorEvent, Timed};
use annabella::chess::game::Game;
use annabella::table::detector::{BoardKind, Conclusion, DetectorSettings, MoveDetector};
use common::games;
use criterion::{Criterion, Throughput};
use shakmaty::{Move, Position};

mod common;

struct Stream {
    start: Game,
    moves: Vec<Move>,
    events: Vec<Timed<SensorEvent>>,
}

fn next(rng: &mut u64) -> u64 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    *rng
}

fn peg_stream(game: &Game, seed: u64) -> Stream {
    let start = Game::from_position(game.start_position().clone(), game.castling_mode());
    let mut pos = start.position().clone();
    let mut rng = seed | 1;
    let mut t = 0;
    let mut events = Vec::new();
    for &m in game.moves() {
        let mut evs = Vec::new();
        if next(&mut rng).is_multiple_of(8) {
            // A piece touched and put back (touch-move is off in the benchmark).
            let own = pos.us();
            if let Some(sq) = own
                .into_iter()
                .nth((next(&mut rng) % own.count().max(1) as u64) as usize)
            {
                evs.push(SensorEvent::Lift(sq));
                evs.push(SensorEvent::Place(sq));
            }
        }
        evs.extend(peg_events(&pos, m, next(&mut rng) as usize));
        for event in evs {
            t += 100;
            events.push(Timed { at: t, event });
        }
        pos.play_unchecked(m);
    }
    Stream {
        start,
        moves: game.moves().to_vec(),
        events,
    }
}

fn dgt_stream(game: &Game, seed: u64) -> Stream {
    let start = Game::from_position(game.start_position().clone(), game.castling_mode());
    let mut pos = start.position().clone();
    let mut rng = seed | 1;
    let mut t = 0;
    let mut events = vec![Timed {
        at: 0,
        event: SensorEvent::Pieces(pos.board().clone()),
    }];
    for &m in game.moves() {
        let changes = identity_events(&pos, m, next(&mut rng) as usize);
        pos.play_unchecked(m);
        for event in changes {
            t += 10;
            events.push(Timed { at: t, event });
        }
    }
    Stream {
        start,
        moves: game.moves().to_vec(),
        events,
    }
}

/// Replays a stream as the daemon does; returns the moves concluded. `timer` sees each
/// `handle` call's duration.
fn replay(kind: BoardKind, s: &Stream, mut timer: impl FnMut(Duration)) -> Vec<Move> {
    let mut game = s.start.clone();
    let mut det = MoveDetector::new(kind, DetectorSettings::for_kind(kind), &game);
    let mut out = Vec::with_capacity(8);
    let mut moves = Vec::with_capacity(s.moves.len());
    for ev in &s.events {
        let t0 = Instant::now();
        det.handle(&game, black_box(ev), &mut out);
        timer(t0.elapsed());
        for c in out.drain(..) {
            if let Conclusion::Moved { m, .. } = c {
                let _ = game.play(m);
                moves.push(m);
            }
        }
    }
    det.poll(&game, u64::MAX, &mut out);
    for c in out.drain(..) {
        if let Conclusion::Moved { m, .. } = c {
            moves.push(m);
        }
    }
    moves
}

fn replay_all(kind: BoardKind, streams: &[Stream]) -> usize {
    let mut n = 0;
    for s in streams {
        let mut game = s.start.clone();
        let mut det = MoveDetector::new(kind, DetectorSettings::for_kind(kind), &game);
        let mut out = Vec::with_capacity(8);
        for ev in &s.events {
            det.handle(&game, black_box(ev), &mut out);
            for c in out.drain(..) {
                if let Conclusion::Moved { m, .. } = c {
                    let _ = game.play(m);
                    n += 1;
                }
            }
        }
        det.poll(&game, u64::MAX, &mut out);
        n += out.len();
        out.clear();
    }
    n
}

fn percentiles(name: &str, kind: BoardKind, streams: &[Stream]) {
    let mut ns: Vec<u64> = Vec::with_capacity(streams.iter().map(|s| s.events.len()).sum());
    let t0 = Instant::now();
    for s in streams {
        replay(kind, s, |d| ns.push(d.as_nanos() as u64));
    }
    let wall = t0.elapsed();
    let busy: u64 = ns.iter().sum();
    ns.sort_unstable();
    let at = |q: f64| ns[((ns.len() - 1) as f64 * q) as usize];
    eprintln!(
        "per-event/{name}: {} events; handle() median {} ns, p90 {} ns, p99 {} ns, p99.9 {} ns, max {} ns; \
         detector alone {:.2} M events/s (sum of handle() times); {:.2} M events/s with game.play \
         and the timer",
        ns.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        at(0.999),
        ns[ns.len() - 1],
        ns.len() as f64 / (busy as f64 / 1e9) / 1e6,
        ns.len() as f64 / wall.as_secs_f64() / 1e6
    );
}

fn main() {
    let benchmarking = std::env::args().any(|a| a == "--bench");
    // Under `cargo test` the benchmark is a smoke test: a few games, run once.
    let games = games(if benchmarking { usize::MAX } else { 20 });
    let peg: Vec<Stream> = games
        .iter()
        .enumerate()
        .map(|(i, g)| peg_stream(g, i as u64))
        .collect();
    let dgt: Vec<Stream> = games
        .iter()
        .enumerate()
        .map(|(i, g)| dgt_stream(g, i as u64))
        .collect();
    for (kind, streams) in [(BoardKind::Occupancy, &peg), (BoardKind::Identity, &dgt)] {
        for s in streams.iter() {
            assert_eq!(
                replay(kind, s, |_| {}),
                s.moves,
                "{kind:?} stream of {}",
                s.start.start_fen()
            );
        }
    }
    let peg_events: usize = peg.iter().map(|s| s.events.len()).sum();
    let dgt_events: usize = dgt.iter().map(|s| s.events.len()).sum();
    let plies: usize = games.iter().map(Game::ply_count).sum();
    eprintln!(
        "benchmark corpus: {} games, {plies} plies; {peg_events} peg events, {dgt_events} dgt events",
        games.len()
    );
    if benchmarking {
        percentiles("peg", BoardKind::Occupancy, &peg);
        percentiles("dgt", BoardKind::Identity, &dgt);
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(10))
        .configure_from_args();
    let mut group = c.benchmark_group("detector");
    group.throughput(Throughput::Elements(peg_events as u64));
    group.bench_function("peg", |b| {
        b.iter(|| black_box(replay_all(BoardKind::Occupancy, &peg)))
    });
    group.throughput(Throughput::Elements(dgt_events as u64));
    group.bench_function("dgt", |b| {
        b.iter(|| black_box(replay_all(BoardKind::Identity, &dgt)))
    });
    group.finish();
    c.final_summary();
}
