//! A message's claims interpreted in the game's positions: one new legal move, nothing new, no
//! move at all, or where the two disagree.
//!
//! Numbered moves stand where their number puts them; the sender's own text outweighs what it
//! quotes, the deeper quote the shallower. An unnumbered run is placed where it fits the game:
//! from move 1 (a record repeated without numbers), ending with the game's next move (a bare
//! move, or the last moves before it), or ending with the game's last move (a repeat). A weak
//! claim (unnumbered, or from the subject, which may be our own reply's) that contradicts the
//! game or a numbered claim is ignored rather than refusing the mail.

use std::collections::BTreeMap;
use std::fmt;

use shakmaty::{Chess, Color, Move};

use annabella_chess::game::{Game, MAX_PLIES};
use annabella_chess::language::Language;
use annabella_chess::notation::{MoveErrorKind, Notation, Style, format_move, parse_move};

use super::claims::{Run, Start, Written};
use super::parts::{IccfMove, numbered};
use super::read::ParsedMessage;

/// A message against the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The game's next half-move, `ply`, legal: the message's new move.
    NewMove { ply: usize, mv: Move },
    /// The message's moves are the game or an earlier part of it (a repeat, an old message):
    /// `behind` half-moves short of the game.
    NothingNew { behind: usize },
    /// The message claims no move at all (only intents and/or words).
    NoMove,
    /// The message's moves are not the game: reported, not applied.
    Disagrees(Disagreement),
}

/// Why a message's moves are not the game, with both records quoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// The first move that differs (`16...`), or the first the game lacks.
    pub first: String,
    pub reason: String,
    pub message_record: String,
    pub game_record: String,
    /// The record agrees with the game and only the new move is illegal or ambiguous (the
    /// BCA charges its sender a day; a differing record charges no one).
    pub new_move_only: bool,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the message's record disagrees with the game at {}: {}; message: {}; game: {}",
            self.first, self.reason, self.message_record, self.game_record
        )
    }
}

fn number_label(ply: usize) -> String {
    match numbered(ply) {
        (n, Color::White) => format!("{n}."),
        (n, Color::Black) => format!("{n}..."),
    }
}

/// The game's moves in ICCF numeric notation, as a message records them.
pub fn game_record(game: &Game) -> Vec<IccfMove> {
    let mode = game.castling_mode();
    let style = Style::new(Language::english());
    game.replay()
        .filter_map(|(pos, m)| IccfMove::new(&format_move(&pos, mode, m, Notation::Iccf, &style)))
        .collect()
}

/// One half-move claimed, and how much it weighs.
#[derive(Debug, Clone)]
struct Slot {
    written: Written,
    /// 0 the sender's own numbered text, 1… quoted that deep; weak claims lose to any.
    rank: usize,
    weak: bool,
    subject: bool,
}

/// The game's positions and moves, and how a written move reads in them.
struct Board<'a> {
    game: &'a Game,
    /// The position before each half-move, and after the last.
    positions: Vec<Chess>,
    langs: Vec<&'a Language>,
}

impl Board<'_> {
    fn played(&self) -> usize {
        self.game.moves().len()
    }

    /// The move a text names at `ply`, in the table's language, English or German letters.
    /// Where they differ the piece wins over a pawn: "Ba4" is the English bishop, not the German
    /// Bauer (a pawn is written without its letter).
    fn read_one(&self, ply: usize, text: &str) -> Result<Move, String> {
        let pos = self.positions.get(ply).ok_or("beyond the game")?;
        let lettered = text.starts_with(char::is_uppercase);
        let mut first_error = None;
        let mut legal_error = None;
        let mut pawn = None;
        for lang in &self.langs {
            match parse_move(pos, self.game.castling_mode(), text, None, lang) {
                Ok(m) if lettered && m.role() == shakmaty::Role::Pawn => {
                    pawn.get_or_insert(m);
                }
                Ok(m) => return Ok(m),
                // Why it is illegal in a language whose letters it is written in says more
                // than that another language has no such letter.
                Err(e) if !matches!(e.kind, MoveErrorKind::Malformed { .. }) => {
                    legal_error.get_or_insert(e.to_string());
                }
                Err(e) => {
                    first_error.get_or_insert(e.to_string());
                }
            }
        }
        if pawn.is_none() && legal_error.is_none() {
            // No preferred language knows the letter ("Cf3" at a German table): another
            // project language that reads it. Never when one of them understood the text, so
            // an illegal "Re2" (rook) is not taken as a Spanish king's move.
            let others = Language::all_builtin()
                .iter()
                .filter(|l| self.langs.iter().all(|p| p.code() != l.code()));
            for lang in others {
                if let Ok(m) = parse_move(pos, self.game.castling_mode(), text, None, lang) {
                    return Ok(m);
                }
            }
        }
        pawn.ok_or_else(|| legal_error.or(first_error).unwrap_or_default())
    }

    /// All ways a half-move is written must name one move.
    fn read(&self, ply: usize, written: &Written) -> Result<Move, String> {
        let mut found: Option<(Move, &str)> = None;
        for text in written {
            let m = self.read_one(ply, text)?;
            match found {
                Some((f, first)) if f != m => {
                    return Err(format!(
                        "the message gives two moves for {}: {first} and {text}",
                        number_label(ply)
                    ));
                }
                Some(_) => {}
                None => found = Some((m, text)),
            }
        }
        found
            .map(|(m, _)| m)
            .ok_or_else(|| "no move written".to_owned())
    }

    fn matches(&self, ply: usize, written: &Written) -> bool {
        self.game
            .moves()
            .get(ply)
            .is_some_and(|m| self.read(ply, written).as_ref() == Ok(m))
    }

    /// Where an unnumbered run fits the game (see the module's comment).
    fn fit(&self, moves: &[Written]) -> Option<usize> {
        let n = self.played();
        let k = moves.len();
        let legal_next = |w: &Written| self.read(n, w).is_ok() && !self.game.is_over();
        let all_match = |start: usize, count: usize| {
            moves[..count]
                .iter()
                .enumerate()
                .all(|(i, w)| self.matches(start + i, w))
        };
        if k >= 2 && k <= n && all_match(0, k) {
            return Some(0);
        }
        if k >= 2 && k == n + 1 && all_match(0, n) && legal_next(&moves[n]) {
            return Some(0);
        }
        if k <= n + 1 && all_match(n + 1 - k, k - 1) && legal_next(&moves[k - 1]) {
            return Some(n + 1 - k);
        }
        if k <= n && all_match(n - k, k) {
            return Some(n - k);
        }
        None
    }
}

/// Interprets a message's moves in the game's positions (see the module's comment). `lang` is
/// the table's language: its piece letters are read besides English and German.
pub fn check_against(parsed: &ParsedMessage, game: &Game, lang: &Language) -> Verdict {
    let mut langs = vec![lang];
    for l in [Language::english(), Language::german()] {
        if l.code() != lang.code() {
            langs.push(l);
        }
    }
    let mut positions: Vec<Chess> = game.replay().map(|(p, _)| p).collect();
    positions.push(game.position().clone());
    let board = Board {
        game,
        positions,
        langs,
    };
    let slots = place(&parsed.runs, &board);
    judge(&slots, &board)
}

/// The half-moves the runs claim, each from the weightiest claim for it.
fn place(runs: &[Run], board: &Board) -> BTreeMap<usize, Slot> {
    let n = board.played();
    let mut slots: BTreeMap<usize, Slot> = BTreeMap::new();
    let numbered_start = |run: &Run| match run.start {
        Start::Ply(p) => Some(p),
        Start::Number(number) => {
            Some((number - 1) * 2 + usize::from(board.game.turn() == Color::Black))
        }
        Start::Free => None,
    };
    // Numbered claims of the body, own over quoted.
    for run in runs.iter().filter(|r| !r.subject) {
        let Some(start) = numbered_start(run) else {
            continue;
        };
        for (i, w) in run.moves.iter().enumerate() {
            let ply = start + i;
            if ply > MAX_PLIES {
                break;
            }
            match slots.get_mut(&ply) {
                None => {
                    slots.insert(ply, strong(w, run.depth));
                }
                Some(s) if s.rank > run.depth => *s = strong(w, run.depth),
                Some(s) if s.rank == run.depth => {
                    for text in w {
                        if !s.written.contains(text) && s.written.len() < 4 {
                            s.written.push(text.clone());
                        }
                    }
                }
                Some(_) => {}
            }
        }
    }
    // Unnumbered runs of the body where they fit; one of the sender's own that fits nowhere is
    // his new move when nothing else claims one (a bare illegal move is refused, not ignored).
    let mut unfitted = None;
    for run in runs.iter().filter(|r| r.start == Start::Free && !r.subject) {
        match board.fit(&run.moves) {
            Some(start) => weak_claims(&mut slots, run, start),
            None if run.depth == 0 && unfitted.is_none() => unfitted = Some(run),
            None => {}
        }
    }
    if let Some(run) = unfitted
        && slots.range(n..).next().is_none()
    {
        for (i, w) in run.moves.iter().enumerate().take(MAX_PLIES) {
            slots.insert(n + i, strong(w, 0));
        }
    }
    // Last the subject's, where the body claims nothing: it may be our own reply's subject.
    for run in runs.iter().filter(|r| r.subject) {
        let start = match numbered_start(run) {
            Some(start) => Some(start),
            None => board.fit(&run.moves),
        };
        if let Some(start) = start {
            weak_claims(&mut slots, run, start);
        }
    }
    slots
}

/// A run's moves from `start` where nothing claims their half-moves yet.
fn weak_claims(slots: &mut BTreeMap<usize, Slot>, run: &Run, start: usize) {
    for (i, w) in run.moves.iter().enumerate() {
        let ply = start + i;
        if ply > MAX_PLIES {
            break;
        }
        slots.entry(ply).or_insert_with(|| Slot {
            written: w.clone(),
            rank: if run.subject { usize::MAX } else { run.depth },
            weak: true,
            subject: run.subject,
        });
    }
}

fn strong(w: &Written, depth: usize) -> Slot {
    Slot {
        written: w.clone(),
        rank: depth,
        weak: false,
        subject: false,
    }
}

/// The verdict on the placed claims.
fn judge(slots: &BTreeMap<usize, Slot>, board: &Board) -> Verdict {
    let game = board.game;
    let n = board.played();
    let disagree = |ply: usize, reason: String, new_move_only: bool| {
        Verdict::Disagrees(Disagreement {
            first: number_label(ply),
            reason,
            message_record: record_of(slots),
            game_record: super::compose::record_text(&game_record(game)),
            new_move_only,
        })
    };
    // Earlier half-moves must be the game's.
    let mut body_claims = false;
    let mut last_agreeing = None;
    for (&ply, slot) in slots.range(..n) {
        match board.read(ply, &slot.written) {
            Ok(m) if m == game.moves()[ply] => {
                last_agreeing = Some(ply);
                body_claims |= !slot.subject;
            }
            _ if slot.weak => {}
            Ok(_) => {
                let theirs = slot.written.join(" / ");
                let ours = game_record(game)
                    .get(ply)
                    .map_or("?".to_owned(), |m| m.to_string());
                return disagree(
                    ply,
                    format!("the message has {theirs}, the game {ours}"),
                    false,
                );
            }
            Err(e) => {
                let theirs = slot.written.join(" / ");
                return disagree(
                    ply,
                    format!("the message's {theirs} is not legal there: {e}"),
                    false,
                );
            }
        }
    }
    let ahead = slots.range(n + 1..).count();
    if ahead > 0 {
        return disagree(
            n,
            format!(
                "the message has {} moves the game lacks: a message may be missing",
                ahead + usize::from(slots.contains_key(&n))
            ),
            false,
        );
    }
    if let Some(slot) = slots.get(&n) {
        return match board.read(n, &slot.written) {
            Ok(_) if game.is_over() => disagree(n, "the game is over".to_owned(), false),
            Ok(mv) => Verdict::NewMove { ply: n, mv },
            Err(e) => disagree(
                n,
                format!("{} is not legal: {e}", slot.written.join(" / ")),
                true,
            ),
        };
    }
    match last_agreeing {
        Some(ply) if body_claims => Verdict::NothingNew {
            behind: n - (ply + 1),
        },
        _ => Verdict::NoMove,
    }
}

/// The claims as a record for a message: `1. 5254 5755 2. Sf3`.
fn record_of(slots: &BTreeMap<usize, Slot>) -> String {
    let mut out = String::new();
    let mut prev: Option<usize> = None;
    for (&ply, slot) in slots.iter().take(MAX_PLIES) {
        let text = slot.written.first().map_or("?", String::as_str);
        let follows = prev.is_some_and(|p| p + 1 == ply);
        if !out.is_empty() {
            out.push(' ');
        }
        match numbered(ply) {
            (number, Color::White) => out.push_str(&format!("{number}. {text}")),
            (_, Color::Black) if follows => out.push_str(text),
            (number, Color::Black) => out.push_str(&format!("{number}... {text}")),
        }
        prev = Some(ply);
    }
    out
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
