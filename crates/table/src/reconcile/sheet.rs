//! A scoresheet read as moves: the text of either side's sheet in any notation the core reads, up to the first entry that is no legal move.

use shakmaty::{Chess, Color, Move, Position};

use super::Side;
use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::notation::{self, MoveError, movelist, spoken};

/// Longest scoresheet text read: a 3000-ply game in spoken words fits many times over.
pub const MAX_SHEET_BYTES: usize = 256 * 1024;

/// Most half-moves one sheet may hold (the game limit of the PGN reader).
pub const MAX_SHEET_PLIES: usize = annabella_chess::pgn::MAX_PLIES;

/// A scoresheet entry that is no legal move: the sheet agrees with nothing from here on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("sheet {side}, ply {ply} ({label}){}: {token:?}: {reason}", line_text(*.line))]
pub struct BadEntry {
    pub side: Side,
    /// 1-based half-move of the sheet.
    pub ply: usize,
    /// The move number as a scoresheet shows it: `3.` for White, `3...` for Black.
    pub label: String,
    /// The 1-based line of the sheet's text, when it was read from text of several lines.
    pub line: Option<usize>,
    /// The entry as written (cut to [`notation::MAX_MOVE_BYTES`]).
    pub token: String,
    /// Why it is no move here, and what would be.
    pub reason: String,
}

fn line_text(line: Option<usize>) -> String {
    line.map(|l| format!(", line {l}")).unwrap_or_default()
}

/// A player's scoresheet: the moves he recorded, as moves, up to the first entry that is none.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sheet {
    pub moves: Vec<Move>,
    /// The first entry that could not be read as a legal move; nothing after it was read.
    pub bad: Option<BadEntry>,
}

impl Sheet {
    pub fn from_moves(moves: Vec<Move>) -> Sheet {
        Sheet { moves, bad: None }
    }
}

/// `3.` for White's third move, `3...` for Black's.
pub(super) fn move_label(pos: &Chess) -> String {
    let n = pos.fullmoves();
    match pos.turn() {
        Color::White => format!("{n}."),
        Color::Black => format!("{n}..."),
    }
}

/// Reads the text of side `side`'s scoresheet from `start`, in any notation the core reads
/// (detected per move; SAN in `lang`'s letters; spoken moves one a line), move numbers and
/// results ignored. Never fails: the first entry that is no legal move is kept as
/// [`Sheet::bad`], with the moves before it.
pub fn read_sheet(side: Side, text: &str, start: &Game, lang: &Language) -> Sheet {
    let mut pos = start.position().clone();
    let mode = start.castling_mode();
    let mut sheet = Sheet::default();
    let bad = |pos: &Chess, ply: usize, line: Option<usize>, token: &str, reason: String| {
        Some(BadEntry {
            side,
            ply,
            label: move_label(pos),
            line,
            token: cut(token, notation::MAX_MOVE_BYTES).to_owned(),
            reason,
        })
    };
    if text.len() > MAX_SHEET_BYTES {
        sheet.bad = bad(
            &pos,
            1,
            None,
            text,
            format!(
                "the sheet is {} bytes long; a scoresheet is at most {MAX_SHEET_BYTES}",
                text.len()
            ),
        );
        return sheet;
    }
    let several_lines = text.trim().lines().nth(1).is_some();
    let spoken = movelist::every_move_line(text, |line| spoken::looks_like(line, lang));
    // A sheet is one game, whatever blank lines or unnumbered lines say to the splitter.
    let mut tokens = Vec::new();
    let mut unclosed = None;
    movelist::for_each_game(text, spoken, |g| {
        tokens.extend(g.moves);
        unclosed = unclosed.or(g.unclosed);
    });
    for token in &tokens {
        let ply = sheet.moves.len() + 1;
        let line = several_lines.then_some(token.line);
        if ply > MAX_SHEET_PLIES {
            sheet.bad = bad(
                &pos,
                ply,
                line,
                &token.text,
                format!("more than {MAX_SHEET_PLIES} half-moves on one sheet"),
            );
            return sheet;
        }
        if let Some(written) = token.number {
            let at = (pos.fullmoves().get(), pos.turn());
            if written != at {
                let why = notation::numbered::wrong_number(written, at);
                sheet.bad = bad(&pos, ply, line, &token.text, why);
                return sheet;
            }
        }
        match notation::parse_move(&pos, mode, &token.text, None, lang) {
            Ok(m) => {
                pos.play_unchecked(m);
                sheet.moves.push(m);
            }
            Err(MoveError { token, kind }) => {
                sheet.bad = bad(&pos, ply, line, &token, kind.to_string());
                return sheet;
            }
        }
    }
    if let Some(open) = unclosed {
        let what = if open.bracket == '{' {
            "comment"
        } else {
            "variation"
        };
        sheet.bad = bad(
            &pos,
            sheet.moves.len() + 1,
            several_lines.then_some(open.line),
            &open.bracket.to_string(),
            format!("this {what} is never closed, so the moves after it are lost; close it"),
        );
    }
    sheet
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
