//! Criterion benchmark of the two-board reconciliation (FIDE D.2.9) on 300-ply scoresheets.
//!
//! The sheets are a 300-ply game played by a fixed pseudo-random walk over the legal moves
//! (real games that long are too rare to sample). Scenarios, each one `reconcile` call:
//! - **agree**: both sheets the whole game, one identity board right, the peg board with a
//!   piece one square off.
//! - **differ**: sheet b takes another move at ply 150, both boards show their own sheet's
//!   end, so both get corrections back to ply 149, with a clock record.
//! - **lag**: sheet b one ply short, the peg board showing the longer sheet.
//!
//! - **from-text**: the agree scenario with both sheets first read from text (SAN and ICCF
//!   numeric), as the command line does.
//!
//! Target: under 1 ms per call. Run: `cargo bench --bench reconcile`. Under `cargo test` each
//! scenario runs once and its verdict is checked.

use std::hint::black_box;
use std::time::Duration;

use annabella::chess::game::Game;
use annabella::chess::language::Language;
use annabella::chess::notation::{Notation, Style, format_move};
use annabella::table::corrections::Observed;
use annabella::table::reconcile::{
    BoardInput, ClockRecord, ReconcileInput, Sheet, Side, Verdict, read_sheet, reconcile,
};
use criterion::Criterion;
use shakmaty::{Chess, Move, Position, Square};

fn next(rng: &mut u64) -> u64 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    *rng
}

/// `plies` legal moves from the start, chosen by a seeded walk that never ends the game early.
fn walk(plies: usize) -> Vec<Move> {
    for seed in 1u64.. {
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut game = Game::new();
        while game.ply_count() < plies && !game.is_over() {
            let legal = game.position().legal_moves();
            let m = legal[(next(&mut rng) % legal.len() as u64) as usize];
            if game.play(m).is_err() {
                break;
            }
        }
        if game.ply_count() == plies {
            return game.moves().to_vec();
        }
    }
    unreachable!("some seed walks 300 plies")
}

fn position(moves: &[Move]) -> Chess {
    let mut pos = Chess::default();
    for &m in moves {
        pos.play_unchecked(m);
    }
    pos
}

struct Scenario {
    name: &'static str,
    sheets: [Sheet; 2],
    boards: [BoardInput; 2],
    clocks: Option<ClockRecord>,
}

fn scenarios() -> Vec<Scenario> {
    let game = walk(300);
    let end = position(&game);
    let pieces = |pos: &Chess| BoardInput {
        observed: Observed::Pieces(pos.board().clone()),
        believed: None,
    };
    let pegs = |pos: &Chess| BoardInput {
        observed: Observed::Occupancy(pos.board().occupied()),
        believed: None,
    };
    // A peg one hole off: the first occupied hole moved to the first empty one.
    let mut off = end.board().occupied();
    let from = off.into_iter().next().unwrap_or(Square::A1);
    let to = (!off).into_iter().next().unwrap_or(Square::H8);
    off.discard(from);
    off.add(to);

    // Sheet b: another legal move at ply 150, then nothing more.
    let before = position(&game[..149]);
    let other = before
        .legal_moves()
        .into_iter()
        .find(|&m| m != game[149])
        .unwrap_or(game[149]);
    let mut b_moves = game[..149].to_vec();
    b_moves.push(other);
    let clocks = ClockRecord {
        used_now: [3_000_000, 3_100_000],
        plies_now: 300,
        after_ply: (0..=300)
            .map(|k| Some([k as u64 * 10_000, k as u64 * 10_500]))
            .collect(),
    };
    vec![
        Scenario {
            name: "agree",
            sheets: [
                Sheet::from_moves(game.clone()),
                Sheet::from_moves(game.clone()),
            ],
            boards: [
                BoardInput {
                    observed: Observed::Occupancy(off),
                    believed: None,
                },
                pieces(&end),
            ],
            clocks: None,
        },
        Scenario {
            name: "differ",
            sheets: [
                Sheet::from_moves(game.clone()),
                Sheet::from_moves(b_moves.clone()),
            ],
            boards: [pegs(&end), pieces(&position(&b_moves))],
            clocks: Some(clocks),
        },
        Scenario {
            name: "lag",
            sheets: [
                Sheet::from_moves(game.clone()),
                Sheet::from_moves(game[..299].to_vec()),
            ],
            boards: [pegs(&end), pieces(&end)],
            clocks: None,
        },
    ]
}

fn run(start: &Game, s: &Scenario) -> annabella::table::reconcile::Resolution {
    let de = Language::german();
    let en = Language::english();
    reconcile(&ReconcileInput {
        start,
        sheets: [&s.sheets[0], &s.sheets[1]],
        boards: [&s.boards[0], &s.boards[1]],
        languages: [de, en],
        clocks: s.clocks.as_ref(),
        lag_disputed: false,
    })
}

fn main() {
    let start = Game::new();
    let scenarios = scenarios();
    for s in &scenarios {
        let r = run(&start, s);
        let ok = match s.name {
            "agree" => {
                r.verdict == Verdict::Agree
                    && !r.board(annabella::table::reconcile::Side::A).correct
            }
            "differ" => r.verdict == Verdict::Differ && r.agreed_plies == 149,
            _ => matches!(r.verdict, Verdict::Lagging { .. }) && r.agreed_plies == 300,
        };
        assert!(ok, "{}: {:?}", s.name, r.explanation);
    }
    // The agree scenario's sheets as a player and a correspondent would write them.
    let agree = &scenarios[0];
    let text = |notation: Notation| -> String {
        let style = Style::new(Language::english());
        let mut pos = Chess::default();
        let mut words = Vec::new();
        for &m in &agree.sheets[0].moves {
            words.push(format_move(
                &pos,
                start.castling_mode(),
                m,
                notation,
                &style,
            ));
            pos.play_unchecked(m);
        }
        words.join(" ")
    };
    let (san, iccf) = (text(Notation::San), text(Notation::Iccf));
    let from_text = || {
        let a = read_sheet(Side::A, &san, &start, Language::english());
        let b = read_sheet(Side::B, &iccf, &start, Language::english());
        run(
            &start,
            &Scenario {
                name: "from-text",
                sheets: [a, b],
                boards: agree.boards.clone(),
                clocks: None,
            },
        )
    };
    assert_eq!(from_text().verdict, Verdict::Agree);
    assert_eq!(from_text().agreed_plies, 300);

    let mut c = Criterion::default()
        .sample_size(50)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut group = c.benchmark_group("reconcile-300-plies");
    for s in &scenarios {
        group.bench_function(s.name, |b| b.iter(|| black_box(run(&start, s))));
    }
    group.bench_function("from-text", |b| b.iter(|| black_box(from_text())));
    group.finish();
    c.final_summary();
}
