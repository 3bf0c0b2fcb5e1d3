//! Two boards, two scoresheets (FIDE D.2.9): where the sheets agree, what each board must show,
//! the hand actions that get it there, and what happens to the clocks — explained in words.
//!
//! # The procedure
//! Each side of a table has a board (as last observed: piece identity or pegs only) and a
//! scoresheet (moves, compared as moves, never as text). [`reconcile`] finds the longest common
//! prefix of the two sheets and decides one of three things ([`Verdict`]):
//! - **agree**: the sheets hold the same moves. The position is theirs; every board that shows
//!   something else is wrong and its player gets the corrections.
//! - **lagging**: one sheet is a strict prefix of the other. A player may reply before writing
//!   the last move down (FIDE 8.1.3), so this is no disagreement yet: the position is the longer
//!   sheet's and the missing moves are read to the player who lags, to confirm. If he disputes
//!   them the caller asks again with [`ReconcileInput::lag_disputed`], and the sheets differ.
//! - **differ**: the moves are taken back to the last half-move both sheets agree on; both
//!   boards are corrected to that position, both sheets are cut there (the cut moves are kept in
//!   the resolution for the record), and the clocks go back to the readings at that half-move.
//!
//! An entry that is no legal move (unreadable text, or a move the position does not allow) ends
//! what its sheet can agree with: it agrees with nothing, so the sheets differ there at the
//! latest ([`BadEntry`]).
//!
//! # Boards that see only pegs
//! The corrections come from [`corrections`](crate::corrections): the fewest hand
//! actions. A peg board cannot tell a knight from a bishop, so what stands in each hole is
//! *believed*: given by the caller (the daemon's move detector knows), or else inferred as the
//! position of either sheet whose pegs are nearest to the board's. A hole whose piece cannot be
//! vouched for, or where the belief and the position disagree on the piece, is reported as
//! [`Unverifiable`], never silently passed.
//!
//! Everything here is pure: the caller brings the moves, the boards and the clock readings.

use std::fmt;

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Move, Piece, Position};

use crate::corrections::{self, Correction, Observed, PieceName};
use annabella_boards::peg::occupancy_line;
use annabella_chess::game::Game;
use annabella_chess::language::Language;
use annabella_chess::notation::coordinate::format_uci;
use annabella_chess::notation::{self, MoveError, Notation, Style, movelist, spoken};
use annabella_chess::phrases::{self, duration_phrase};

/// Longest scoresheet text read: a 3000-ply game in spoken words fits many times over.
pub const MAX_SHEET_BYTES: usize = 256 * 1024;

/// Most half-moves one sheet may hold (the game limit of the PGN reader).
pub const MAX_SHEET_PLIES: usize = annabella_chess::pgn::MAX_PLIES;

/// One side of the table: its board and its scoresheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    A,
    B,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::A, Side::B];

    /// `a` or `b`, as the command line and the messages name it.
    pub fn letter(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }

    /// 0 for a, 1 for b: the index into `[a, b]` arrays.
    pub fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }

    fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.letter())
    }
}

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
fn move_label(pos: &Chess) -> String {
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

/// One side's board as last observed, and what is believed to stand in its holes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardInput {
    pub observed: Observed,
    /// For a peg board: the piece believed to stand in each occupied hole (the move detector's
    /// board). `None`: inferred from the sheets. Ignored for a board that sees identities.
    pub believed: Option<Board>,
}

/// Time each colour has used, in milliseconds: `[white, black]`.
pub type Used = [u64; 2];

/// What the clocks have counted, so that they can be put back (FIDE D.2.9: "the arbiter
/// adjusts the clocks accordingly").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockRecord {
    /// Time used by each colour now.
    pub used_now: Used,
    /// Half-moves the clocks have counted now (the moves actually played at the table).
    pub plies_now: usize,
    /// Time used after each half-move where a reading was recorded: index `k` is after `k`
    /// half-moves (0: at the start).
    pub after_ply: Vec<Option<Used>>,
}

/// How the clocks go back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockBasis {
    /// To the readings recorded at the agreed half-move.
    Recorded,
    /// No reading at that half-move: each colour keeps the share of its time used that its
    /// moves still standing bear to its moves played (the 1957 rules' "proportionally").
    Proportional,
}

/// The clocks after a takeback: what the arbiter sets unless he decides otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockAdjustment {
    pub used: Used,
    pub basis: ClockBasis,
}

/// Everything [`reconcile`] looks at.
#[derive(Debug, Clone)]
pub struct ReconcileInput<'a> {
    /// The game as it started (position and castling rules); its moves are not used.
    pub start: &'a Game,
    /// Side a's sheet, side b's sheet.
    pub sheets: [&'a Sheet; 2],
    /// Side a's board, side b's board.
    pub boards: [&'a BoardInput; 2],
    /// Each side's language, for the words spoken to that side.
    pub languages: [&'a Language; 2],
    /// The clocks, when the table has them; `None` and no clock adjustment is proposed.
    pub clocks: Option<&'a ClockRecord>,
    /// The player whose sheet lags has disputed the moves read out to him: the sheets differ.
    pub lag_disputed: bool,
}

/// What the two sheets say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Both sheets hold the same moves.
    Agree,
    /// `side`'s sheet is a strict prefix of the other: `missing` are read out to him.
    Lagging {
        side: Side,
        missing: Vec<Move>,
        /// The missing moves as spoken to the lagging player, in his language.
        read_out: Vec<String>,
    },
    /// The sheets differ from half-move `agreed + 1` on (or one has an entry that is no move).
    Differ,
}

/// A hole of a peg board whose piece the sensors cannot confirm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unverifiable {
    pub square: shakmaty::Square,
    /// What the position needs there.
    pub expected: Piece,
    /// What is believed to stand there (`None`: unknown).
    pub believed: Option<Piece>,
    /// When the peg arrives by a correction, where it comes from.
    pub from: Option<shakmaty::Square>,
}

impl fmt::Display for Unverifiable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected = PieceName(self.expected);
        match (self.believed, self.from) {
            (Some(p), _) => write!(
                f,
                "on {} the record has a {} where the position needs a {expected}; pegs cannot \
                 show the difference, so the piece is exchanged by hand",
                self.square,
                PieceName(p)
            ),
            (None, Some(from)) => write!(
                f,
                "the peg taken from {from} to {} must be the {expected}; the board cannot tell \
                 which piece it is, so check it by touch",
                self.square
            ),
            (None, None) => write!(
                f,
                "a peg stands on {} as it should, but which piece it is is not known; it must \
                 be the {expected}, so check it by touch",
                self.square
            ),
        }
    }
}

/// One board's part of the resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardResolution {
    /// The board shows the position (a peg board: its pegs do).
    pub correct: bool,
    /// The fewest hand actions, in the order a hand can follow.
    pub corrections: Vec<Correction>,
    /// Each correction in the side's language, square by square.
    pub spoken: Vec<String>,
    /// Each correction in English, for the sighted side and the arbiter.
    pub written: Vec<String>,
    /// Holes whose piece a peg board cannot confirm (empty for identity boards).
    pub unverifiable: Vec<Unverifiable>,
    /// For a peg board, where the pieces believed in its holes come from.
    pub identities_from: Option<String>,
}

/// What was decided, with the reasons in words.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub verdict: Verdict,
    /// Half-moves both boards must show (with a lagging sheet: the longer sheet's).
    pub agreed_plies: usize,
    /// The position both boards must show.
    pub position: Chess,
    pub mode: CastlingMode,
    /// The moves cut from sheet a and from sheet b (empty unless the sheets differ).
    pub retracted: [Vec<Move>; 2],
    /// Entries of sheet a and b that are no legal move.
    pub bad_entries: [Option<BadEntry>; 2],
    pub boards: [BoardResolution; 2],
    /// What the clocks go back to, when the sheets differ and the clocks are known.
    pub clocks: Option<ClockAdjustment>,
    /// Each decision, in sentences a player understands (English).
    pub explanation: Vec<String>,
}

impl Resolution {
    /// The sheets hold no contradiction (they agree, or one merely lags).
    pub fn sheets_agree(&self) -> bool {
        !matches!(self.verdict, Verdict::Differ)
    }

    pub fn lagging(&self) -> Option<Side> {
        match self.verdict {
            Verdict::Lagging { side, .. } => Some(side),
            _ => None,
        }
    }

    /// The position both boards must show, as FEN (X-FEN castling in Chess960).
    pub fn fen(&self) -> String {
        Fen::from_position(&self.position, EnPassantMode::Legal).to_string()
    }

    /// The moves cut from `side`'s sheet in UCI (Chess960 castling king-takes-rook).
    pub fn retracted_uci(&self, side: Side) -> Vec<String> {
        self.retracted[side.index()]
            .iter()
            .map(|&m| format_uci(m, self.mode))
            .collect()
    }

    pub fn board(&self, side: Side) -> &BoardResolution {
        &self.boards[side.index()]
    }

    /// The entry for the table's record (arbiter, appeals): both sheets, both boards, what
    /// was decided and why, as plain text.
    pub fn record(&self, input: &ReconcileInput) -> String {
        let english = Style::new(Language::english());
        let mut out = String::new();
        out.push_str("two-board reconciliation (FIDE D.2.9)\n");
        out.push_str(&format!("start: {}\n", input.start.start_fen()));
        for side in Side::BOTH {
            let sheet = input.sheets[side.index()];
            let mut pos = input.start.position().clone();
            let mut text = Vec::new();
            for &m in &sheet.moves {
                if !pos.is_legal(m) {
                    text.push(format!("[{}: not legal]", format_uci(m, self.mode)));
                    break;
                }
                text.push(notation::format_move(
                    &pos,
                    self.mode,
                    m,
                    Notation::San,
                    &english,
                ));
                pos.play_unchecked(m);
            }
            if let Some(bad) = &sheet.bad {
                text.push(format!("[{:?}: {}]", bad.token, bad.reason));
            }
            out.push_str(&format!("sheet {side}: {}\n", text.join(" ")));
        }
        for side in Side::BOTH {
            let board = match &input.boards[side.index()].observed {
                Observed::Pieces(b) => b.to_string(),
                Observed::Occupancy(occ) => occupancy_line(*occ),
            };
            out.push_str(&format!("board {side}: {board}\n"));
        }
        let verdict = match &self.verdict {
            Verdict::Agree => "sheets agree".to_owned(),
            Verdict::Lagging { side, .. } => format!("sheet {side} lags"),
            Verdict::Differ => "sheets differ".to_owned(),
        };
        out.push_str(&format!(
            "decision: {verdict}; {} half-moves stand; position {}\n",
            self.agreed_plies,
            self.fen()
        ));
        for side in Side::BOTH {
            let cut = self.retracted_uci(side);
            if !cut.is_empty() {
                out.push_str(&format!("cut from sheet {side}: {}\n", cut.join(" ")));
            }
        }
        for side in Side::BOTH {
            let b = self.board(side);
            let state = if b.correct {
                "correct".to_owned()
            } else {
                b.written.join("; ")
            };
            out.push_str(&format!("board {side}: {state}\n"));
        }
        if let Some(c) = &self.clocks {
            out.push_str(&format!(
                "clocks: white {} ms used, black {} ms used ({})\n",
                c.used[0],
                c.used[1],
                match c.basis {
                    ClockBasis::Recorded => "recorded",
                    ClockBasis::Proportional => "proportional",
                }
            ));
        }
        for line in &self.explanation {
            out.push_str(&format!("- {line}\n"));
        }
        out
    }
}

/// A sheet replayed from the start: the positions it passes through and where it breaks.
struct Replayed {
    /// `positions[k]`: after `k` half-moves; one more than the legal moves.
    positions: Vec<Chess>,
    /// The first entry that is no legal move.
    bad: Option<BadEntry>,
}

impl Replayed {
    fn legal(&self) -> usize {
        self.positions.len() - 1
    }
}

/// Replays `sheet`, sharing the first `shared` positions already checked for the other sheet.
fn replay(side: Side, sheet: &Sheet, shared: &[Chess], mode: CastlingMode) -> Replayed {
    let mut positions: Vec<Chess> = shared.to_vec();
    let mut bad = None;
    for &m in &sheet.moves[shared.len() - 1..] {
        let pos = &positions[positions.len() - 1];
        if !pos.is_legal(m) {
            bad = Some(BadEntry {
                side,
                ply: positions.len(),
                label: move_label(pos),
                line: None,
                token: format_uci(m, mode),
                reason: "not a legal move in this position".to_owned(),
            });
            break;
        }
        let mut next = pos.clone();
        next.play_unchecked(m);
        positions.push(next);
    }
    // A sheet's own unreadable entry comes after its legal moves.
    Replayed {
        positions,
        bad: bad.or_else(|| sheet.bad.clone()),
    }
}

/// Decides what two boards and two scoresheets mean (FIDE D.2.9), with every decision
/// explained. Pure and total: any sheets and boards give a resolution.
pub fn reconcile(input: &ReconcileInput) -> Resolution {
    let mode = input.start.castling_mode();
    let english = Style::new(Language::english());
    let [sheet_a, sheet_b] = input.sheets;
    let mut explanation = Vec::new();

    // The common prefix is replayed once; each sheet then goes on alone.
    let common = sheet_a
        .moves
        .iter()
        .zip(&sheet_b.moves)
        .take_while(|(a, b)| a == b)
        .count();
    let first = replay(
        Side::A,
        &Sheet::from_moves(sheet_a.moves[..common].to_vec()),
        std::slice::from_ref(input.start.position()),
        mode,
    );
    let replayed = [
        replay(Side::A, sheet_a, &first.positions, mode),
        replay(Side::B, sheet_b, &first.positions, mode),
    ];
    let bad_entries = [replayed[0].bad.clone(), replayed[1].bad.clone()];
    for bad in bad_entries.iter().flatten() {
        explanation.push(format!(
            "On sheet {}, half-move {} ({}) reads {:?}, which is no legal move there ({}). \
             A sheet agrees with nothing after an entry that is no move, so only its first {} \
             half-moves count.",
            bad.side,
            bad.ply,
            bad.label,
            bad.token,
            bad.reason,
            bad.ply - 1
        ));
    }
    let legal = [replayed[0].legal(), replayed[1].legal()];
    let agreed_prefix = common.min(legal[0]).min(legal[1]);
    let any_bad = bad_entries.iter().any(Option::is_some);

    let san = |pos: &Chess, m: Move| -> String {
        format!(
            "{}{}",
            move_label(pos),
            notation::format_move(pos, mode, m, Notation::San, &english)
        )
    };
    let after = |k: usize, side: Side| -> String {
        if k == 0 {
            "the start position".to_owned()
        } else {
            let r = &replayed[side.index()];
            format!(
                "the position after {}",
                san(&r.positions[k - 1], sheet_moves(input, side)[k - 1])
            )
        }
    };

    let lag = if any_bad || legal[0] == legal[1] || agreed_prefix < legal[0].min(legal[1]) {
        None
    } else if legal[0] < legal[1] {
        Some(Side::A)
    } else {
        Some(Side::B)
    };
    let (verdict, agreed_plies, target_side) = match lag {
        None if !any_bad && agreed_prefix == legal[0] && legal[0] == legal[1] => {
            explanation.push(if agreed_prefix == 0 {
                "Both scoresheets are empty, so the boards must show the start position.".to_owned()
            } else {
                format!(
                    "Both scoresheets hold the same {agreed_prefix} half-moves, so the boards \
                     must show {}. A player whose board shows something else wrote the right \
                     move but made a wrong one, and puts his board right (FIDE D.2.9).",
                    after(agreed_prefix, Side::A)
                )
            });
            (Verdict::Agree, agreed_prefix, Side::A)
        }
        Some(side) if !input.lag_disputed => {
            let long = side.other();
            let missing =
                sheet_moves(input, long)[legal[side.index()]..legal[long.index()]].to_vec();
            let positions = &replayed[long.index()].positions;
            let style = Style::new(input.languages[side.index()]);
            let read_out: Vec<String> = missing
                .iter()
                .enumerate()
                .map(|(i, &m)| phrases::move_phrase(&positions[legal[side.index()] + i], m, &style))
                .collect();
            let written: Vec<String> = missing
                .iter()
                .enumerate()
                .map(|(i, &m)| san(&positions[legal[side.index()] + i], m))
                .collect();
            // One missing ply is normal play (8.1.3); more break the rule that a player writes
            // his previous move before the next, but still contradict nothing: read out too.
            let rule = if missing.len() == 1 {
                "a move is written down after it is made, and a player may reply before \
                 writing his opponent's move (FIDE 8.1.3)"
            } else {
                "more than one missing move is more than FIDE 8.1.3 allows, but nothing on \
                 either sheet contradicts the other"
            };
            explanation.push(format!(
                "Sheet {side} has the first {} of the {} half-moves on sheet {long} and nothing \
                 that contradicts them: {rule}, so this is no disagreement yet. The boards must \
                 show {}. The \
                 missing {} ({}) {} read to player {side}; if he confirms, they are written on \
                 his sheet; if he disputes them, the sheets differ and the game goes back to {}.",
                legal[side.index()],
                legal[long.index()],
                after(legal[long.index()], long),
                if missing.len() == 1 { "move" } else { "moves" },
                written.join(" "),
                if missing.len() == 1 { "is" } else { "are" },
                after(legal[side.index()], side),
            ));
            (
                Verdict::Lagging {
                    side,
                    missing,
                    read_out,
                },
                legal[long.index()],
                long,
            )
        }
        _ => {
            let k = agreed_prefix;
            let what = |side: Side| -> String {
                let r = &replayed[side.index()];
                match sheet_moves(input, side).get(k) {
                    Some(&m) if k < r.legal() => san(&r.positions[k], m),
                    _ => match &r.bad {
                        Some(bad) if bad.ply == k + 1 => format!("{:?}, no legal move", bad.token),
                        _ => "nothing".to_owned(),
                    },
                }
            };
            if lag.is_some() {
                let side = lag.unwrap_or(Side::A);
                explanation.push(format!(
                    "Player {side} disputes the moves missing from his sheet, so the sheets \
                     differ after half-move {k}."
                ));
            }
            explanation.push(format!(
                "The scoresheets agree on the first {k} half-moves and then differ (sheet a: \
                 {}; sheet b: {}). The moves are taken back to the last point where both \
                 agree, {} (FIDE D.2.9); both boards are set to it, both sheets are cut there, \
                 and the moves cut are kept in the record.",
                what(Side::A),
                what(Side::B),
                after(k, Side::A)
            ));
            (Verdict::Differ, k, Side::A)
        }
    };
    let retracted = match verdict {
        Verdict::Differ => [
            sheet_a.moves[agreed_plies..legal[0]].to_vec(),
            sheet_b.moves[agreed_plies..legal[1]].to_vec(),
        ],
        _ => [Vec::new(), Vec::new()],
    };
    let position = replayed[target_side.index()].positions[agreed_plies].clone();

    let candidates = Candidates {
        target: &position,
        replayed: &replayed,
    };
    let boards = Side::BOTH.map(|side| resolve_board(side, input, &candidates, &mut explanation));

    let clocks = match (&verdict, input.clocks) {
        (Verdict::Differ, Some(record)) => {
            let adj = adjust_clocks(record, agreed_plies, input.start.turn());
            explanation.push(clock_sentence(&adj, record, agreed_plies));
            Some(adj)
        }
        _ => None,
    };

    Resolution {
        verdict,
        agreed_plies,
        position,
        mode,
        retracted,
        bad_entries,
        boards,
        clocks,
        explanation,
    }
}

fn sheet_moves<'a>(input: &'a ReconcileInput, side: Side) -> &'a [Move] {
    &input.sheets[side.index()].moves
}

/// The positions a board may be showing, in order of preference: the target, then the board's
/// own sheet from its last position back, then the other sheet's.
struct Candidates<'a> {
    target: &'a Chess,
    replayed: &'a [Replayed; 2],
}

/// Where a candidate position comes from (named only for the one chosen).
#[derive(Clone, Copy)]
enum Source {
    Target,
    Sheet(Side, usize),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Target => f.write_str("the position both boards must show"),
            Source::Sheet(_, 0) => f.write_str("the start position"),
            Source::Sheet(side, k) => write!(
                f,
                "sheet {side} after {k} half-moves, the nearest position to its pegs"
            ),
        }
    }
}

impl Candidates<'_> {
    fn in_order(&self, side: Side) -> impl Iterator<Item = (Source, &Chess)> {
        let sheet = |s: Side| {
            self.replayed[s.index()]
                .positions
                .iter()
                .enumerate()
                .rev()
                .map(move |(k, p)| (Source::Sheet(s, k), p))
        };
        std::iter::once((Source::Target, self.target))
            .chain(sheet(side))
            .chain(sheet(side.other()))
    }

    /// The candidate whose pegs are nearest to `occ` (fewest holes that differ); the first
    /// in order of preference among equals.
    fn nearest(&self, side: Side, occ: Bitboard) -> (Source, &Chess) {
        let mut best = (u32::MAX, Source::Target, self.target);
        for (source, pos) in self.in_order(side) {
            let d = (pos.board().occupied() ^ occ).count() as u32;
            if d < best.0 {
                best = (d, source, pos);
                if d == 0 {
                    break;
                }
            }
        }
        (best.1, best.2)
    }

    /// The piece that most likely stands on `square`: the first candidate with one there.
    fn guess(&self, side: Side, square: shakmaty::Square) -> Option<Piece> {
        self.in_order(side)
            .find_map(|(_, pos)| pos.board().piece_at(square))
    }
}

fn resolve_board(
    side: Side,
    input: &ReconcileInput,
    candidates: &Candidates,
    explanation: &mut Vec<String>,
) -> BoardResolution {
    let board_in = input.boards[side.index()];
    let target = candidates.target.board();
    let v = input.languages[side.index()].vocabulary();
    let (believed, identities_from) = match &board_in.observed {
        Observed::Pieces(_) => (None, None),
        Observed::Occupancy(occ) => match &board_in.believed {
            Some(b) => (
                Some(b.clone()),
                Some("the pieces the table believes in its holes".to_owned()),
            ),
            None => {
                let (source, pos) = candidates.nearest(side, *occ);
                (Some(pos.board().clone()), Some(source.to_string()))
            }
        },
    };
    let list = corrections::corrections(&board_in.observed, believed.as_ref(), target);

    // Names for pegs the board cannot identify: a moved peg is the piece its new hole needs; a
    // removed one is what most likely stood there.
    let named: Vec<Correction> = list
        .iter()
        .map(|&c| match c {
            Correction::Move {
                piece: None,
                from,
                to,
            } => Correction::Move {
                piece: target.piece_at(to),
                from,
                to,
            },
            Correction::Remove {
                piece: None,
                square,
            } => Correction::Remove {
                piece: candidates.guess(side, square),
                square,
            },
            other => other,
        })
        .collect();
    let spoken = named
        .iter()
        .map(|c| crate::corrections::spoken(c, v))
        .collect();
    let written = named.iter().map(ToString::to_string).collect();

    let mut unverifiable = Vec::new();
    if let (Observed::Occupancy(occ), Some(believed)) = (&board_in.observed, &believed) {
        let mut touched = Bitboard::EMPTY;
        for c in &list {
            match *c {
                Correction::Move { piece, from, to } => {
                    touched.add(from);
                    touched.add(to);
                    if piece.is_none()
                        && let Some(expected) = target.piece_at(to)
                    {
                        unverifiable.push(Unverifiable {
                            square: to,
                            expected,
                            believed: None,
                            from: Some(from),
                        });
                    }
                }
                Correction::Remove { square, .. } | Correction::Place { square, .. } => {
                    touched.add(square)
                }
            }
        }
        for square in *occ & target.occupied() {
            let Some(expected) = target.piece_at(square) else {
                continue;
            };
            match believed.piece_at(square) {
                None if !touched.contains(square) => unverifiable.push(Unverifiable {
                    square,
                    expected,
                    believed: None,
                    from: None,
                }),
                Some(p) if p != expected => unverifiable.push(Unverifiable {
                    square,
                    expected,
                    believed: Some(p),
                    from: None,
                }),
                _ => {}
            }
        }
        unverifiable.sort_by_key(|u| u.square);
    }

    let correct = list.is_empty();
    let kind = match board_in.observed {
        Observed::Pieces(_) => "",
        Observed::Occupancy(_) => " (pegs only)",
    };
    explanation.push(if correct {
        format!("Board {side}{kind} shows the position; nothing to correct.")
    } else {
        format!(
            "Board {side}{kind} does not show the position: {} it there ({}).",
            match list.len() {
                1 => "one hand action brings".to_owned(),
                n => format!("{n} hand actions bring"),
            },
            named
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )
    });
    if let Some(from) = &identities_from {
        explanation.push(format!(
            "Board {side} senses only which holes hold a peg, not which piece; the pieces in \
             its holes are taken from {from}."
        ));
    }
    for u in &unverifiable {
        explanation.push(format!("Board {side}: {u}."));
    }
    BoardResolution {
        correct,
        corrections: list,
        spoken,
        written,
        unverifiable,
        identities_from,
    }
}

/// Moves `color` made in the first `plies` half-moves of a game whose first mover is `first`.
fn moves_of(color: Color, plies: usize, first: Color) -> u64 {
    let plies = plies as u64;
    if color == first {
        plies.div_ceil(2)
    } else {
        plies / 2
    }
}

/// The clocks at half-move `agreed`: the recorded reading, else each colour's used time in
/// proportion to its moves that still stand.
pub fn adjust_clocks(record: &ClockRecord, agreed: usize, first: Color) -> ClockAdjustment {
    if let Some(Some(used)) = record.after_ply.get(agreed) {
        return ClockAdjustment {
            used: *used,
            basis: ClockBasis::Recorded,
        };
    }
    let share = |i: usize, color: Color| -> u64 {
        let played = moves_of(color, record.plies_now, first);
        let kept = moves_of(color, agreed.min(record.plies_now), first);
        if played == 0 {
            return record.used_now[i];
        }
        // u128: used time × moves cannot overflow.
        (u128::from(record.used_now[i]) * u128::from(kept) / u128::from(played)) as u64
    };
    ClockAdjustment {
        used: [share(0, Color::White), share(1, Color::Black)],
        basis: ClockBasis::Proportional,
    }
}

fn clock_sentence(adj: &ClockAdjustment, record: &ClockRecord, agreed: usize) -> String {
    let en = Language::english().vocabulary();
    let time = |ms: u64| duration_phrase(ms, en);
    let set = format!(
        "White {} used, Black {} used",
        time(adj.used[0]),
        time(adj.used[1])
    );
    match adj.basis {
        ClockBasis::Recorded => format!(
            "The clocks go back to the times recorded after half-move {agreed}: {set}. The \
             arbiter may decide otherwise."
        ),
        ClockBasis::Proportional => format!(
            "No clock reading was recorded at half-move {agreed}, so each player keeps the share \
             of the time he used ({} for White, {} for Black, over {} half-moves) that his moves \
             still standing bear to all his moves played, as the 1957 rules say \
             (proportionally): {set}. The arbiter may decide otherwise.",
            time(record.used_now[0]),
            time(record.used_now[1]),
            record.plies_now
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    fn en() -> &'static Language {
        Language::english()
    }

    fn sheet_from(game: &Game, side: Side, text: &str) -> Sheet {
        read_sheet(side, text, game, en())
    }

    fn position_of(game: &Game, sheet: &Sheet) -> Chess {
        let mut pos = game.start_position().clone();
        for &m in &sheet.moves {
            pos.play_unchecked(m);
        }
        pos
    }

    fn pieces(pos: &Chess) -> BoardInput {
        BoardInput {
            observed: Observed::Pieces(pos.board().clone()),
            believed: None,
        }
    }

    fn pegs(occ: Bitboard) -> BoardInput {
        BoardInput {
            observed: Observed::Occupancy(occ),
            believed: None,
        }
    }

    struct Case<'a> {
        game: &'a Game,
        sheets: [Sheet; 2],
        boards: [BoardInput; 2],
        languages: [&'static Language; 2],
        clocks: Option<ClockRecord>,
        disputed: bool,
    }

    impl Case<'_> {
        fn run(&self) -> Resolution {
            let r = reconcile(&ReconcileInput {
                start: self.game,
                sheets: [&self.sheets[0], &self.sheets[1]],
                boards: [&self.boards[0], &self.boards[1]],
                languages: self.languages,
                clocks: self.clocks.as_ref(),
                lag_disputed: self.disputed,
            });
            // Applying each board's corrections always gives the position (pegs: its holes).
            for side in Side::BOTH {
                let b = &self.boards[side.index()];
                let after = corrections::apply(&b.observed, &r.board(side).corrections);
                assert!(after.matches(r.position.board()), "board {side}: {r:?}");
                assert_eq!(
                    r.board(side).correct,
                    b.observed.matches(r.position.board()) && r.board(side).corrections.is_empty()
                );
                assert_eq!(r.board(side).spoken.len(), r.board(side).corrections.len());
            }
            r
        }
    }

    fn case<'a>(game: &'a Game, a: &str, b: &str) -> Case<'a> {
        let sheets = [sheet_from(game, Side::A, a), sheet_from(game, Side::B, b)];
        let boards = [
            pieces(&position_of(game, &sheets[0])),
            pieces(&position_of(game, &sheets[1])),
        ];
        Case {
            game,
            sheets,
            boards,
            languages: [en(), en()],
            clocks: None,
            disputed: false,
        }
    }

    #[test]
    fn sheets_in_different_notations_agree_and_both_boards_are_right() {
        let game = Game::new();
        let mut c = case(&game, "1. e4 e5 2. Nf3", "5254 5755 7163");
        c.sheets[1] = read_sheet(Side::B, "e4 e5 Sf3", &game, Language::german());
        let r = c.run();
        assert_eq!(r.verdict, Verdict::Agree);
        assert_eq!(r.agreed_plies, 3);
        assert!(r.board(Side::A).correct && r.board(Side::B).correct);
        assert_eq!(
            r.fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
        );
    }

    #[test]
    fn a_wrongly_executed_move_on_the_peg_board_is_put_right_in_german() {
        let game = Game::new();
        let mut c = case(&game, "e4 e5 Nf3", "e4 e5 Nf3");
        // The blind player wrote Nf3 but put the knight on f4 (a square it cannot reach).
        let mut occ = c.boards[0].observed.occupied();
        occ.discard(Square::F3);
        occ.add(Square::F4);
        c.boards[0] = pegs(occ);
        c.languages = [Language::german(), en()];
        let r = c.run();
        assert_eq!(r.verdict, Verdict::Agree);
        let a = r.board(Side::A);
        assert!(!a.correct);
        assert_eq!(a.spoken, vec!["Springer von Felix vier nach Felix drei"]);
        assert_eq!(a.written, vec!["move the white knight from f4 to f3"]);
        assert!(r.board(Side::B).correct);
        // The peg moved cannot be identified: said so.
        assert_eq!(a.unverifiable.len(), 1);
        assert_eq!(a.unverifiable[0].square, Square::F3);
        assert_eq!(a.unverifiable[0].from, Some(Square::F4));
    }

    #[test]
    fn both_boards_wrong_both_get_corrections() {
        let game = Game::new();
        let mut c = case(&game, "e4 e5 Nf3 Nc6", "e4 e5 Nf3 Nc6");
        c.boards[0] = pieces(&position_of(
            &game,
            &sheet_from(&game, Side::A, "e4 e5 Nf3 Nf6"),
        ));
        c.boards[1] = pieces(&position_of(
            &game,
            &sheet_from(&game, Side::B, "e4 e5 Nc3 Nc6"),
        ));
        let r = c.run();
        assert_eq!(r.verdict, Verdict::Agree);
        // Two knights move: each to its nearest home, the fewest squares a hand travels.
        assert_eq!(
            r.board(Side::A).written,
            vec![
                "move the black knight from f6 to g8",
                "move the black knight from b8 to c6"
            ]
        );
        assert_eq!(
            r.board(Side::B).written,
            vec![
                "move the white knight from g1 to f3",
                "move the white knight from c3 to b1"
            ]
        );
    }

    #[test]
    fn a_lagging_sheet_is_read_out_and_a_dispute_makes_the_sheets_differ() {
        let game = Game::new();
        let mut c = case(&game, "e4 e5 Nf3", "e4 e5");
        c.boards[1] = c.boards[0].clone();
        c.languages = [en(), Language::german()];
        let r = c.run();
        assert!(r.sheets_agree());
        assert_eq!(r.lagging(), Some(Side::B));
        assert_eq!(r.agreed_plies, 3);
        assert_eq!(r.retracted, [vec![], vec![]]);
        let Verdict::Lagging {
            read_out, missing, ..
        } = &r.verdict
        else {
            panic!("{r:?}")
        };
        assert_eq!(missing.len(), 1);
        assert_eq!(read_out, &vec!["Springer Felix drei".to_owned()]);

        c.disputed = true;
        let r = c.run();
        assert_eq!(r.verdict, Verdict::Differ);
        assert_eq!(r.agreed_plies, 2);
        assert_eq!(r.retracted_uci(Side::A), vec!["g1f3"]);
        assert!(r.retracted[1].is_empty());
        assert_eq!(
            r.board(Side::A).written,
            vec!["move the white knight from f3 to g1"]
        );
    }

    #[test]
    fn sheets_that_differ_go_back_to_the_last_agreed_move_with_the_clocks() {
        let game = Game::new();
        let mut c = case(&game, "e4 e5 Nf3 Nc6 Bb5", "e4 e5 Nc3 Nf6");
        c.clocks = Some(ClockRecord {
            used_now: [50_000, 40_000],
            plies_now: 5,
            after_ply: vec![Some([0, 0]), Some([1_000, 0]), Some([1_000, 2_000])],
        });
        let r = c.run();
        assert!(!r.sheets_agree());
        assert_eq!(r.agreed_plies, 2);
        assert_eq!(r.retracted_uci(Side::A), vec!["g1f3", "b8c6", "f1b5"]);
        assert_eq!(r.retracted_uci(Side::B), vec!["b1c3", "g8f6"]);
        assert_eq!(
            r.clocks,
            Some(ClockAdjustment {
                used: [1_000, 2_000],
                basis: ClockBasis::Recorded
            })
        );
        assert!(!r.board(Side::A).correct && !r.board(Side::B).correct);
        assert!(
            r.explanation
                .iter()
                .any(|e| e.contains("sheet a: 2.Nf3; sheet b: 2.Nc3"))
        );

        // Without a reading at ply 2: White made 1 of his 3 moves, Black 1 of his 2.
        if let Some(k) = c.clocks.as_mut() {
            k.after_ply.truncate(2);
        }
        let r = c.run();
        assert_eq!(
            r.clocks,
            Some(ClockAdjustment {
                used: [50_000 / 3, 20_000],
                basis: ClockBasis::Proportional
            })
        );
    }

    #[test]
    fn an_illegal_entry_agrees_with_nothing_past_it() {
        let game = Game::new();
        let bad = sheet_from(&game, Side::A, "1. e4 e5 2. Nf9 Nc6");
        let e = bad.bad.clone().expect("Nf9 is no move");
        assert_eq!((e.side, e.ply, e.token.as_str()), (Side::A, 3, "Nf9"));
        assert_eq!(e.label, "2.");
        assert!(
            e.to_string().starts_with("sheet a, ply 3 (2.): \"Nf9\""),
            "{e}"
        );

        let mut c = case(&game, "e4 e5", "e4 e5 Nf3");
        c.sheets[0] = bad;
        let r = c.run();
        assert_eq!(r.verdict, Verdict::Differ);
        assert_eq!(r.agreed_plies, 2);
        assert_eq!(r.retracted_uci(Side::B), vec!["g1f3"]);
        assert!(r.bad_entries[0].is_some());
        assert!(
            r.explanation[0].contains("no legal move"),
            "{:?}",
            r.explanation
        );

        // A move the daemon recorded that the position does not allow counts the same.
        let legal = sheet_from(&game, Side::A, "e4 e5 Nf3").moves;
        let mut moves = legal.clone();
        moves.insert(1, legal[2]);
        c.sheets[0] = Sheet::from_moves(moves);
        let r = c.run();
        assert_eq!((r.verdict.clone(), r.agreed_plies), (Verdict::Differ, 1));
        assert_eq!(r.bad_entries[0].as_ref().map(|b| b.ply), Some(2));
    }

    #[test]
    fn a_piece_identity_pegs_cannot_show_is_stated() {
        // Sheets agree on a promotion to a queen; the peg board's detector believes a knight.
        let game = Game::from_fen("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", false).unwrap();
        let mut c = case(&game, "e8=Q", "e8Q");
        let mut believed = c.boards[1].clone();
        let Observed::Pieces(board) = &mut believed.observed else {
            unreachable!()
        };
        board.set_piece_at(Square::E8, Color::White.knight());
        let board = board.clone();
        c.boards[0] = BoardInput {
            observed: Observed::Occupancy(board.occupied()),
            believed: Some(board),
        };
        let r = c.run();
        let a = r.board(Side::A);
        assert!(!a.correct);
        assert_eq!(a.unverifiable.len(), 1);
        assert_eq!(a.unverifiable[0].believed, Some(Color::White.knight()));
        assert_eq!(a.unverifiable[0].expected.role, Role::Queen);
        assert!(
            r.explanation
                .iter()
                .any(|e| e.contains("pegs cannot show the difference"))
        );

        // Without a belief the pegs match: right as far as pegs go, nothing unverifiable.
        c.boards[0].believed = None;
        let r = c.run();
        assert!(r.board(Side::A).correct);
    }

    #[test]
    fn chess960_castling_is_cut_as_king_takes_rook() {
        // Position 518 is the usual array under Chess960 rules.
        let game = Game::chess960(518).unwrap();
        let c = case(
            &game,
            "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O",
            "e4 e5 Nf3 Nc6 Bc4 Bc5 d3",
        );
        let r = c.run();
        assert_eq!(r.agreed_plies, 6);
        assert_eq!(r.retracted_uci(Side::A), vec!["e1h1"]);
        assert_eq!(r.retracted_uci(Side::B), vec!["d2d3"]);
        assert_eq!(r.board(Side::A).corrections.len(), 2);
    }

    #[test]
    fn the_record_names_both_sheets_boards_and_the_decision() {
        let game = Game::new();
        let c = case(&game, "e4 e5", "e4 c5");
        let r = c.run();
        let text = r.record(&ReconcileInput {
            start: &game,
            sheets: [&c.sheets[0], &c.sheets[1]],
            boards: [&c.boards[0], &c.boards[1]],
            languages: c.languages,
            clocks: None,
            lag_disputed: false,
        });
        assert!(text.contains("sheet a: e4 e5\n"), "{text}");
        assert!(text.contains("sheet b: e4 c5\n"), "{text}");
        assert!(
            text.contains("decision: sheets differ; 1 half-moves stand"),
            "{text}"
        );
        assert!(text.contains("cut from sheet b: c7c5"), "{text}");
    }
}
