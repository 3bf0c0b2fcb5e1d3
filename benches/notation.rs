//! Criterion benchmark of notation parsing and formatting over a real game collection.
//!
//! The games are the TWIC and lichess samples that the pgn-reader crate ships in its package
//! (`benches/*.pgn`); cargo has them on disk because annabella depends on pgn-reader. Set
//! `ANNABELLA_BENCH_PGN=path.pgn` to use another collection. Run: `cargo bench --bench notation`.
//! Under `cargo test` each benchmark runs once on the first few thousand moves.

use std::hint::black_box;
use std::time::Duration;

use annabella::chess::language::Language;
use annabella::chess::notation::{self, Notation, Style};
use criterion::{Criterion, Throughput};
use shakmaty::{CastlingMode, Chess, Move, Position};

mod common;

/// One ply of a real game: the position before it, the move, and the move in each notation.
struct Ply {
    pos: Chess,
    mode: CastlingMode,
    m: Move,
    iccf: String,
    san: String,
}

fn load(limit: usize) -> Vec<Ply> {
    let en = Language::english();
    let style = Style::new(en);
    let mut plies = Vec::new();
    for game in common::games(usize::MAX) {
        let mode = game.castling_mode();
        let mut pos = game.start_position().clone();
        for &m in game.moves() {
            let iccf = notation::format_move(&pos, mode, m, Notation::Iccf, &style);
            let san = notation::format_move(&pos, mode, m, Notation::San, &style);
            plies.push(Ply {
                pos: pos.clone(),
                mode,
                m,
                iccf,
                san,
            });
            pos.play_unchecked(m);
            if plies.len() >= limit {
                return plies;
            }
        }
    }
    plies
}

fn bench(c: &mut Criterion, plies: &[Ply]) {
    let en = Language::english();
    let de = Language::german();
    let style_en = Style::new(en);
    let style_de = Style::new(de);
    let n = plies.len() as u64;

    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Elements(n));
    group.bench_function("iccf", |b| {
        b.iter(|| {
            for p in plies {
                let m = notation::parse_move(
                    &p.pos,
                    p.mode,
                    black_box(&p.iccf),
                    Some(Notation::Iccf),
                    en,
                );
                debug_assert_eq!(m, Ok(p.m));
                black_box(m.ok());
            }
        })
    });
    group.bench_function("san", |b| {
        b.iter(|| {
            for p in plies {
                let m = notation::parse_move(
                    &p.pos,
                    p.mode,
                    black_box(&p.san),
                    Some(Notation::San),
                    en,
                );
                debug_assert_eq!(m, Ok(p.m));
                black_box(m.ok());
            }
        })
    });
    group.bench_function("auto-detected", |b| {
        b.iter(|| {
            for p in plies {
                black_box(notation::parse_move(&p.pos, p.mode, black_box(&p.san), None, en).ok());
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("format");
    group.throughput(Throughput::Elements(n));
    for (name, notation, style) in [
        ("iccf", Notation::Iccf, &style_en),
        ("san", Notation::San, &style_en),
        ("spoken-de", Notation::Spoken, &style_de),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                for p in plies {
                    black_box(notation::format_move(
                        &p.pos,
                        p.mode,
                        black_box(p.m),
                        notation,
                        style,
                    ));
                }
            })
        });
    }
    group.finish();
}

fn main() {
    let benchmarking = std::env::args().any(|a| a == "--bench");
    // Under `cargo test` the benchmark is a smoke test: a small slice, run once.
    let plies = load(if benchmarking { usize::MAX } else { 2_000 });
    assert!(plies.iter().all(|p| p.pos.is_legal(p.m)));
    eprintln!("benchmark corpus: {} plies", plies.len());
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(8))
        .configure_from_args();
    bench(&mut c, &plies);
    c.final_summary();
}
