//! `annabella reconcile`: two scoresheets and two boards in, the D.2.9 resolution out as JSON.
//!
//! The adapter reads the arguments, hands them to [`crate::table::reconcile`] and writes the
//! resolution as one JSON object (the wire format lives here, not in the core). A sheet with an
//! entry that is no legal move is refused with its sheet, ply and token: on the command line a
//! mistyped sheet is far likelier than a player's illegal entry, and a resolution built on a
//! typo would mislead the arbiter (the core still handles such sheets, for the daemon).

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use serde_json::{Value, json};
use shakmaty::Board;

use crate::boards::SensorEvent;
use crate::boards::peg;
use crate::chess::language::Language;
use crate::table::corrections::{Correction, Observed};
use crate::table::reconcile::{
    self, BoardInput, ReconcileInput, Resolution, Side, Verdict, read_sheet,
};

/// Longest board argument read: a FEN board field is at most 71 characters, a full FEN under 100.
const MAX_BOARD_BYTES: usize = 128;

#[derive(Debug, Args)]
pub struct ReconcileArgs {
    #[command(flatten)]
    pub language: super::LanguageArgs,
    #[command(flatten)]
    pub start: super::StartArgs,
    /// Language of side a (its sheet's SAN letters and the words spoken to it); default --lang.
    #[arg(long)]
    pub lang_a: Option<String>,
    /// Language of side b; default --lang.
    #[arg(long)]
    pub lang_b: Option<String>,
    /// Side a's scoresheet: moves in any notation (spoken moves one a line), move numbers allowed.
    #[arg(long, allow_hyphen_values = true)]
    pub sheet_a: String,
    /// Side b's scoresheet.
    #[arg(long, allow_hyphen_values = true)]
    pub sheet_b: String,
    /// Side a's board: a FEN board field (piece identity) or a peg occupancy S<16 hex digits>.
    #[arg(long, allow_hyphen_values = true)]
    pub board_a: String,
    /// Side b's board.
    #[arg(long, allow_hyphen_values = true)]
    pub board_b: String,
    /// The player whose sheet lags disputes the moves read out to him: the sheets differ.
    #[arg(long)]
    pub disputed: bool,
}

pub fn run(args: ReconcileArgs) -> anyhow::Result<ExitCode> {
    let default = args.language.load()?;
    let load = |code: &Option<String>| -> anyhow::Result<Language> {
        match code {
            None => Ok(default.clone()),
            Some(lang) => super::LanguageArgs {
                lang: lang.clone(),
                verbosity: args.language.verbosity,
                name_captured: args.language.name_captured,
            }
            .load(),
        }
    };
    let languages = [load(&args.lang_a)?, load(&args.lang_b)?];
    let start = args.start.game()?;
    let sheets = [
        read_sheet(Side::A, &args.sheet_a, &start, &languages[0]),
        read_sheet(Side::B, &args.sheet_b, &start, &languages[1]),
    ];
    for sheet in &sheets {
        if let Some(bad) = &sheet.bad {
            bail!("{bad}");
        }
    }
    let boards = [
        BoardInput {
            observed: parse_board(Side::A, &args.board_a)?,
            believed: None,
        },
        BoardInput {
            observed: parse_board(Side::B, &args.board_b)?,
            believed: None,
        },
    ];
    let input = ReconcileInput {
        start: &start,
        sheets: [&sheets[0], &sheets[1]],
        boards: [&boards[0], &boards[1]],
        languages: [&languages[0], &languages[1]],
        clocks: None,
        lag_disputed: args.disputed,
    };
    let resolution = reconcile::reconcile(&input);
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &to_json(&resolution))?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A FEN board field (a whole FEN is accepted, its first field read) or `S` and 16 hex digits.
pub fn parse_board(side: Side, text: &str) -> anyhow::Result<Observed> {
    let expected = "expected a FEN board field like rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR \
                    or a peg occupancy like SFFFF00000000FFFF";
    let t = text.trim();
    if t.len() > MAX_BOARD_BYTES {
        bail!(
            "board {side}: {} bytes is too long for a board; {expected}",
            t.len()
        );
    }
    if t.is_empty() {
        bail!("board {side}: empty; {expected}");
    }
    // No FEN board field starts with S (it is no piece letter), so S means pegs.
    if t.starts_with('S') {
        return match peg::parse_line(t.as_bytes(), 1, 0) {
            Some(Ok(timed)) => match timed.event {
                SensorEvent::Occupancy(occ) => Ok(Observed::Occupancy(occ)),
                _ => bail!("board {side}: {t:?} is not a peg occupancy; {expected}"),
            },
            Some(Err(e)) => bail!("board {side}: {}", e.message),
            None => bail!("board {side}: {t:?} is not a board; {expected}"),
        };
    }
    let field = t.split_whitespace().next().unwrap_or(t);
    let board = Board::from_ascii_board_fen(field.as_bytes())
        .with_context(|| format!("board {side}: {field:?} is not a FEN board field; {expected}"))?;
    Ok(Observed::Pieces(board))
}

fn action(c: &Correction) -> Value {
    match *c {
        Correction::Move { from, to, .. } => {
            json!({"op": "move", "from": from.to_string(), "to": to.to_string()})
        }
        Correction::Remove { square, .. } => json!({"op": "remove", "square": square.to_string()}),
        Correction::Place { piece, square } => json!({
            "op": "place",
            "piece": piece.char().to_string(),
            "square": square.to_string(),
        }),
    }
}

/// The resolution as the command line's JSON contract has it (docs/reconciliation.md).
pub fn to_json(r: &Resolution) -> Value {
    let board = |side: Side| {
        let b = r.board(side);
        json!({
            "correct": b.correct,
            "actions": b.corrections.iter().map(action).collect::<Vec<_>>(),
            "spoken": b.spoken,
            "written": b.written,
            "unverifiable": b.unverifiable.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "identities_from": b.identities_from,
        })
    };
    let read_out = match &r.verdict {
        Verdict::Lagging { read_out, .. } => read_out.clone(),
        _ => Vec::new(),
    };
    json!({
        "sheets_agree": r.sheets_agree(),
        "lagging": r.lagging().map(Side::letter),
        "agreed_plies": r.agreed_plies,
        "position": r.fen(),
        "retracted": {"a": r.retracted_uci(Side::A), "b": r.retracted_uci(Side::B)},
        "boards": {"a": board(Side::A), "b": board(Side::B)},
        "read_out": read_out,
        "explanation": r.explanation,
    })
}
