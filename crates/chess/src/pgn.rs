//! PGN import with pgn-reader: one or many games, FEN/SetUp/Variant tags honoured.
//!
//! Each game comes back on its own, as an [`ImportedGame`] or an [`ImportError`] that names the
//! game (1-based), the half-move (1-based) and the move as written; one bad game does not stop
//! the others.
//!
//! # What is read
//! - Tags, all of them, in order. `FEN` sets the start whether or not `SetUp "1"` is there
//!   (X-FEN and Shredder-FEN castling both work); `Variant` "Chess960", "Fischerandom",
//!   "chess 960", "960", "FRC" (any case and spacing) selects Chess960 castling, "Standard" and
//!   "From Position" the usual rules, anything else (crazyhouse …) is refused.
//! - SAN with English letters, as the PGN standard says; `0-0` and `O-O` both work. Moves are
//!   checked against the rules, including the game's own end: a move after mate, after a
//!   fivefold repetition or after the 75-move limit is an error (games played under pre-2014
//!   rules may therefore be refused).
//! - `[%clk H:MM:SS]` in the comment after a move: the mover's remaining time; and
//!   `[%ccsnt 2019.02.14,17:23]`, when a correspondence move was sent (the ICCF server writes
//!   it, see [`crate::ccsnt`]). Other comments, NAGs and variations are dropped.
//!
//! # What is refused
//! pgn-reader passes over a token it cannot read without a word (`Xy9`, `e5abc`, `exd6e.p.`,
//! `1…e5`, a four-digit ICCF move), and over everything after a `(` that is never closed; the
//! game would then lose moves in silence, or fail later on a move that is fine. So each game's
//! text is also scanned the way pgn-reader tokenizes it, and the first token it would drop is
//! the error, named with its half-move ([`ImportErrorKind::NotAMove`],
//! [`ImportErrorKind::UnclosedVariation`]). Move numbers, results, NAGs, `!?`-style marks,
//! assessments like `+-` and `e.p.` markers are not moves and are not refused.
//!
//! # Bounds
//! Hostile input cannot hang or exhaust memory: pgn-reader runs in linear time and never
//! panics, and here the input is at most [`MAX_INPUT_BYTES`], a game at most
//! [`MAX_GAME_BYTES`], [`MAX_PLIES`] half-moves and [`MAX_TAGS`] tags, and at most
//! [`MAX_GAMES`] games are read.

use std::io::{Cursor, Seek};
use std::ops::ControlFlow;

use pgn_reader::{Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::san::{San, SanError};
use shakmaty::{Chess, Position};

use crate::ccsnt::SentStamp;
use crate::game::{EndReason, Game, GameEnd, GameError, GameResult};
use crate::scoresheet::{self, Headers, Recorder, Scoresheet};

/// Largest input read at all (a big tournament file; not a database).
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;
/// Largest single game, comments included.
pub const MAX_GAME_BYTES: usize = 1024 * 1024;
/// Most half-moves in one game (the bound every reader of games shares).
pub use crate::game::MAX_PLIES;
/// Most tags in one game.
pub const MAX_TAGS: usize = 100;
/// Most games read from one input.
pub const MAX_GAMES: usize = 200_000;

/// Longest tag line pgn-reader is asked to take in one piece.
const TAG_LINE_BYTES: usize = 1024;
/// Longest FEN quoted back in an error.
const MAX_FEN_IN_ERROR: usize = 120;

/// A game read from PGN.
#[derive(Debug, Clone)]
pub struct ImportedGame {
    /// Every tag pair, in the order of the file.
    pub tags: Vec<(String, String)>,
    pub game: Game,
    /// The `Result` tag, or the movetext's result when the tag is missing or `*`.
    pub result: Option<GameResult>,
    /// Per half-move, the mover's remaining time from `[%clk]`, in milliseconds.
    pub clocks: Vec<Option<u64>>,
    /// Per half-move, when a correspondence move was sent, from `[%ccsnt]`.
    pub sent: Vec<Option<SentStamp>>,
    /// The players played on past an end the Laws make by themselves (a dead position, a
    /// fivefold repetition, the 75-move rule): the half-moves before it and that end. The
    /// score keeps every move played.
    pub played_past: Option<(usize, GameEnd)>,
}

impl ImportedGame {
    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn headers(&self) -> Headers {
        let mut h = Headers::from_tags(&self.tags);
        h.result = self.result;
        h
    }

    /// The moves as a scoresheet written by [`Recorder::Imported`], with the clock readings
    /// and the sent-time stamps.
    pub fn scoresheet(&self) -> Scoresheet {
        let mut sheet = Scoresheet::from_game(&self.game, Recorder::Imported);
        for (ply, &clock) in self.clocks.iter().enumerate() {
            sheet.set_clock(ply, clock);
        }
        for (ply, &sent) in self.sent.iter().enumerate() {
            sheet.set_sent(ply, sent);
        }
        sheet
    }
}

/// Why a game could not be imported, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game}{}{}: {kind}",
    .ply.map(|p| format!(", ply {p}")).unwrap_or_default(),
    .token.as_ref().map(|t| format!(", {t:?}")).unwrap_or_default())]
pub struct ImportError {
    /// 1-based number of the game in the input.
    pub game: usize,
    /// 1-based half-move of the game, when the error is about a move.
    pub ply: Option<usize>,
    /// The move as written (normalised by the SAN reader).
    pub token: Option<String>,
    pub kind: ImportErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportErrorKind {
    #[error("illegal move in position {fen}")]
    Illegal { fen: String },
    #[error("ambiguous move: could be {}", .candidates.join(" or "))]
    Ambiguous { candidates: Vec<String> },
    #[error("a null move (-- or Z0) is not a move in a real game")]
    NullMove,
    #[error("move after the game ended ({0})")]
    AfterEnd(GameEnd),
    #[error("bad FEN tag {fen:?}: {reason}")]
    BadFen { fen: String, reason: String },
    #[error("unsupported variant {0:?}; only standard chess and Chess960")]
    UnsupportedVariant(String),
    #[error("more than {MAX_PLIES} half-moves")]
    TooManyPlies,
    #[error("more than {MAX_TAGS} tags")]
    TooManyTags,
    #[error("the game is {0} bytes long; at most {MAX_GAME_BYTES} are read")]
    GameTooLarge(usize),
    #[error("the input is {0} bytes long; at most {MAX_INPUT_BYTES} are read")]
    InputTooLarge(usize),
    #[error("more than {MAX_GAMES} games; the rest is not read")]
    TooManyGames,
    #[error("malformed PGN: {0}")]
    Syntax(String),
    /// A token pgn-reader would skip without a word (see the module documentation).
    #[error("not a move: {0}")]
    NotAMove(&'static str),
    #[error("this variation is never closed, so the moves after it would be lost")]
    UnclosedVariation,
}

fn cut(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// Whether a `Variant` tag means Chess960; `Err` for a variant this program does not play.
fn variant_is_chess960(variant: &str) -> Result<bool, ()> {
    let norm: String = variant
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    match norm.as_str() {
        "" | "standard" | "chess" | "normal" | "fromposition" => Ok(false),
        "chess960"
        | "960"
        | "fischerandom"
        | "fischerrandom"
        | "fischerandomchess"
        | "fischerrandomchess960"
        | "frc" => Ok(true),
        _ => Err(()),
    }
}

/// Finds `[%clk …]` in a comment.
fn clock_in_comment(comment: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(comment);
    let start = text.find("[%clk")? + "[%clk".len();
    let rest = &text[start..];
    let end = rest.find(']')?;
    scoresheet::parse_clock(&rest[..end])
}

struct Importer {
    game_no: usize,
}

struct Movetext {
    tags: Vec<(String, String)>,
    game: Game,
    clocks: Vec<Option<u64>>,
    sent: Vec<Option<SentStamp>>,
    marker: Option<Outcome>,
    played_past: Option<(usize, GameEnd)>,
}

/// `None` for stray text between games (no tags, no moves, no result), which is no game.
type Output = Option<Result<ImportedGame, ImportError>>;

impl Importer {
    fn error(&self, kind: ImportErrorKind) -> ImportError {
        ImportError {
            game: self.game_no,
            ply: None,
            token: None,
            kind,
        }
    }

    fn start(&self, tags: &[(String, String)]) -> Result<Game, ImportError> {
        let tag = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let chess960 = match tag("Variant") {
            None => false,
            Some(v) => variant_is_chess960(v)
                .map_err(|()| self.error(ImportErrorKind::UnsupportedVariant(cut(v, 60))))?,
        };
        match tag("FEN") {
            Some(fen) => Game::from_fen(fen, chess960).map_err(|e| {
                let reason = match e {
                    GameError::InvalidFen { reason, .. } => reason,
                    other => other.to_string(),
                };
                self.error(ImportErrorKind::BadFen {
                    fen: cut(fen, MAX_FEN_IN_ERROR),
                    reason,
                })
            }),
            None if chess960 => Game::chess960(518).map_err(|e| {
                self.error(ImportErrorKind::BadFen {
                    fen: String::new(),
                    reason: e.to_string(),
                })
            }),
            None => Ok(Game::new()),
        }
    }
}

fn ambiguous_candidates(pos: &Chess, san: San) -> Vec<String> {
    pos.legal_moves()
        .into_iter()
        .filter(|m| san.matches(*m))
        .map(|m| San::from_move(pos, m).to_string())
        .collect()
}

impl Visitor for Importer {
    type Tags = Vec<(String, String)>;
    type Movetext = Movetext;
    type Output = Output;

    fn begin_tags(&mut self) -> ControlFlow<Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Output> {
        if tags.len() >= MAX_TAGS {
            return ControlFlow::Break(Some(Err(self.error(ImportErrorKind::TooManyTags))));
        }
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Output, Movetext> {
        match self.start(&tags) {
            Ok(game) => ControlFlow::Continue(Movetext {
                tags,
                game,
                clocks: Vec::new(),
                sent: Vec::new(),
                marker: None,
                played_past: None,
            }),
            Err(e) => ControlFlow::Break(Some(Err(e))),
        }
    }

    fn san(&mut self, mt: &mut Movetext, san_plus: SanPlus) -> ControlFlow<Output> {
        let ply = mt.game.ply_count() + 1;
        let fail = |kind| {
            ControlFlow::Break(Some(Err(ImportError {
                game: self.game_no,
                ply: Some(ply),
                token: Some(san_plus.to_string()),
                kind,
            })))
        };
        if ply > MAX_PLIES {
            return fail(ImportErrorKind::TooManyPlies);
        }
        // A score records what was played: moves after an end the players did not notice (a
        // dead position, say, before they agreed the draw) are kept, and the end noted.
        let past = match mt.game.outcome() {
            Some(end) if can_be_played_past(end) => true,
            Some(end) => return fail(ImportErrorKind::AfterEnd(end)),
            None => false,
        };
        let pos = mt.game.position();
        match san_plus.san.to_move(pos) {
            Ok(m) => {
                let played = if past {
                    mt.game.play_past_automatic_end(m).map(|passed| {
                        if let (None, Some(end)) = (mt.played_past, passed) {
                            mt.played_past = Some((ply - 1, end));
                        }
                    })
                } else {
                    mt.game.play(m)
                };
                match played {
                    Ok(()) => {
                        mt.clocks.push(None);
                        mt.sent.push(None);
                        ControlFlow::Continue(())
                    }
                    Err(e) => fail(ImportErrorKind::Syntax(e.to_string())),
                }
            }
            Err(_) if san_plus.san == San::Null => fail(ImportErrorKind::NullMove),
            Err(SanError::IllegalSan) => fail(ImportErrorKind::Illegal { fen: mt.game.fen() }),
            Err(SanError::AmbiguousSan) => fail(ImportErrorKind::Ambiguous {
                candidates: ambiguous_candidates(pos, san_plus.san),
            }),
        }
    }

    fn comment(&mut self, mt: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<Output> {
        if let (Some(ms), Some(last)) = (clock_in_comment(comment.as_bytes()), mt.clocks.last_mut())
        {
            *last = Some(ms);
        }
        let text = String::from_utf8_lossy(comment.as_bytes());
        if let (Some(stamp), Some(last)) = (SentStamp::find_in_comment(&text), mt.sent.last_mut()) {
            *last = Some(stamp);
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, mt: &mut Movetext, outcome: Outcome) -> ControlFlow<Output> {
        mt.marker = Some(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mt: Movetext) -> Output {
        let tag_result = mt
            .tags
            .iter()
            .find(|(n, _)| n == "Result")
            .and_then(|(_, v)| GameResult::from_pgn(v));
        let marker_result = mt
            .marker
            .and_then(Outcome::known)
            .map(|k| match k.winner() {
                Some(c) => GameResult::win_for(c),
                None => GameResult::Draw,
            });
        let is_noise = mt.tags.is_empty() && mt.game.ply_count() == 0 && mt.marker.is_none();
        if is_noise {
            return None;
        }
        Some(Ok(ImportedGame {
            result: tag_result.or(marker_result),
            tags: mt.tags,
            game: mt.game,
            clocks: mt.clocks,
            sent: mt.sent,
            played_past: mt.played_past,
        }))
    }
}

/// Whether players can play on past this end without noticing it: the ends the Laws make by
/// themselves while legal moves remain. Mate and stalemate leave none; a declared end
/// (resignation, agreement, a flag) ends the score.
fn can_be_played_past(end: GameEnd) -> bool {
    matches!(
        end.reason,
        EndReason::InsufficientMaterial
            | EndReason::FivefoldRepetition
            | EndReason::SeventyFiveMoveRule
    )
}

/// Reads every game of a PGN text.
pub fn read_games(text: &str) -> Vec<Result<ImportedGame, ImportError>> {
    let mut out = Vec::new();
    for_each_game(text, |r| out.push(r));
    out
}

/// Reads the games of a PGN text one by one, handing each to `each` as soon as it is read, so
/// that a large collection is converted without holding every game in memory.
pub fn for_each_game(text: &str, mut each: impl FnMut(Result<ImportedGame, ImportError>)) {
    // Games handed over so far; the next one is game `count + 1`.
    let mut count = 0;
    let mut push = |count: &mut usize, r| {
        *count += 1;
        each(r);
    };
    if text.len() > MAX_INPUT_BYTES {
        push(
            &mut count,
            Err(ImportError {
                game: 1,
                ply: None,
                token: None,
                kind: ImportErrorKind::InputTooLarge(text.len()),
            }),
        );
        return;
    }
    let mut reader = Reader::build(Cursor::new(text.as_bytes()))
        .set_supported_tag_line_length(TAG_LINE_BYTES)
        .finish();
    let mut importer = Importer { game_no: 0 };
    let mut previous: Option<u64> = None;
    loop {
        // Skips what a stopped game left over, and the blank lines before the next one.
        let more = reader.has_more();
        let start = reader.stream_position().unwrap_or(0);
        // pgn-reader always consumes input; this only guards against a future change.
        if previous.is_some_and(|p| start <= p) {
            break;
        }
        previous = Some(start);
        importer.game_no = count + 1;
        match more {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                push(
                    &mut count,
                    Err(importer.error(ImportErrorKind::Syntax(e.to_string()))),
                );
                let _ = reader.skip_game();
                continue;
            }
        }
        if count >= MAX_GAMES {
            push(
                &mut count,
                Err(importer.error(ImportErrorKind::TooManyGames)),
            );
            break;
        }
        let result = reader.read_game(&mut importer);
        let end = reader.stream_position().unwrap_or(start);
        let game_text = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(s, e)| text.as_bytes().get(s..e))
            .unwrap_or_default();
        match result {
            Ok(None) => break,
            Ok(Some(r)) => {
                let bytes = game_text.len();
                let r = match r {
                    Some(Ok(_)) if bytes > MAX_GAME_BYTES => {
                        Some(Err(importer.error(ImportErrorKind::GameTooLarge(bytes))))
                    }
                    // What pgn-reader skipped before the game's end (or before the move that
                    // failed, which the skipped token may well explain) is the error.
                    r => match (r, first_unread(game_text)) {
                        (Some(Err(e)), Some(u)) if e.ply.is_some_and(|p| u.plies < p) => {
                            Some(Err(u.error(importer.game_no)))
                        }
                        (Some(Ok(_)) | None, Some(u)) => Some(Err(u.error(importer.game_no))),
                        (r, _) => r,
                    },
                };
                if let Some(r) = r {
                    push(&mut count, r);
                }
            }
            Err(e) => {
                push(
                    &mut count,
                    Err(importer.error(ImportErrorKind::Syntax(e.to_string()))),
                );
                let _ = reader.skip_game();
            }
        }
    }
}

/// A token pgn-reader would pass over without a word, and where it stands.
struct Unread {
    /// Half-moves of the main line before it (so it stands at ply `plies + 1`).
    plies: usize,
    token: String,
    kind: ImportErrorKind,
}

impl Unread {
    fn error(self, game: usize) -> ImportError {
        ImportError {
            game,
            ply: Some(self.plies + 1),
            token: Some(self.token),
            kind: self.kind,
        }
    }
}

/// Longest token quoted back in an error.
const MAX_TOKEN_IN_ERROR: usize = 40;

/// Where pgn-reader ends a movetext token.
fn is_token_end(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'{'
            | b'}'
            | b'('
            | b')'
            | b'!'
            | b'?'
            | b'$'
            | b';'
            | b'.'
            | b'*'
    )
}

fn find(game: &[u8], from: usize, byte: u8) -> Option<usize> {
    game.get(from..)?
        .iter()
        .position(|&b| b == byte)
        .map(|p| from + p)
}

/// Spaces, line breaks and `%` escape lines, as pgn-reader skips them between tags.
fn skip_whitespace(game: &[u8], mut i: usize, mut new_line: bool) -> usize {
    while let Some(&c) = game.get(i) {
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' => {
                new_line = true;
                i += 1;
            }
            b'%' if new_line => i = find(game, i, b'\n').map_or(game.len(), |p| p + 1),
            _ => return i,
        }
    }
    i
}

/// The end of a tag line, as pgn-reader reads it.
fn skip_ket(game: &[u8], mut i: usize) -> usize {
    while let Some(&c) = game.get(i) {
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b']' => return skip_whitespace(game, i + 1, false),
            b'\n' => return skip_whitespace(game, i + 1, true),
            _ => return i,
        }
    }
    i
}

/// Where the movetext of a game's text starts: after the tag pairs, as pgn-reader reads them.
fn movetext_start(game: &[u8]) -> usize {
    let mut i = skip_whitespace(game, 0, true);
    if game[i..].starts_with(b"\xef\xbb\xbf") {
        i = skip_whitespace(game, i + 3, true);
    }
    while game.get(i) == Some(&b'[') {
        i += 1;
        let stop = game[i..]
            .iter()
            .position(|&b| matches!(b, b'"' | b'\n' | b']'))
            .map(|p| i + p);
        match stop {
            Some(q) if game[q] == b'"' => {
                let mut j = q + 1;
                i = loop {
                    match game[j..]
                        .iter()
                        .position(|&b| matches!(b, b'\\' | b'"' | b'\n'))
                    {
                        Some(d) if game[j + d] == b'"' => break j + d + 1,
                        Some(d) if game[j + d] == b'\n' => break j + d,
                        Some(d) => j = (j + d + 2).min(game.len()),
                        None => break game.len(),
                    }
                };
            }
            Some(eol) => i = eol + 1,
            None => return game.len(),
        }
        i = skip_ket(game, i);
    }
    i
}

/// Skips a variation after its `(`, as pgn-reader does; `None` when it is never closed
/// before a blank line, a tag line or the end.
fn skip_variation(game: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while let Some(&c) = game.get(i) {
        match c {
            b'(' => depth += 1,
            b')' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return Some(i + 1),
            },
            b'{' => i = find(game, i, b'}')?,
            b';' => i = find(game, i, b'\n')?.saturating_sub(1),
            b'\n' => match (game.get(i + 1), game.get(i + 2)) {
                (Some(b'[' | b'\n'), _) | (Some(b'\r'), Some(b'\n')) => return None,
                (Some(b'%'), _) => i = find(game, i + 1, b'\n')?.saturating_sub(1),
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
    None
}

/// `e.p.`-style markers people write after an en-passant capture: not moves, and harmless.
fn en_passant_marker(rest: &[u8]) -> Option<usize> {
    ["e.p.", "e.p", "a.p.", "a.p", "i.p.", "i.p", "ep"]
        .iter()
        .map(|m| m.as_bytes())
        .find(|m| {
            rest.len() >= m.len()
                && rest[..m.len()].eq_ignore_ascii_case(m)
                && rest.get(m.len()).is_none_or(|&b| is_token_end(b))
        })
        .map(<[u8]>::len)
}

fn is_dash(c: char) -> bool {
    matches!(c, '-' | '–' | '—')
}

/// Tokens that are not moves and that losing loses nothing: results, short move numbers,
/// assessments and move marks standing alone (`+-`, `=`, `±`, `‼`, `⟳`) and the ellipsis of a
/// black move number.
fn is_harmless(token: &str) -> bool {
    let results = ["1-0", "0-1", "1/2-1/2", "1/2", "½-½"];
    let is_result = results.iter().any(|r| {
        r.chars().count() == token.chars().count()
            && r.chars()
                .zip(token.chars())
                .all(|(a, b)| a == b || (a == '-' && is_dash(b)))
    });
    let mark = |c: char| {
        matches!(
            c,
            '+' | '#'
                | '='
                | '±'
                | '∓'
                | '∞'
                | '□'
                | '⩲'
                | '⩱'
                | '‡'
                | '†'
                | '…'
                | '‼'
                | '⁇'
                | '⁉'
                | '⁈'
                | '⨀'
                | '⟳'
                | '↑'
                | '→'
                | '⇆'
                | '∆'
                | '⊥'
                | '-'
                | '/'
        )
    };
    is_result
        || (token.chars().all(mark)
            && token.chars().any(|c| !matches!(c, '-' | '/'))
            && token != "--")
}

/// `0-0` and `0-0-0` (with zeros), which pgn-reader reads itself, with check marks.
fn is_zero_castling(token: &str) -> bool {
    let parts: Vec<&str> = token.trim_end_matches(['+', '#']).split(is_dash).collect();
    (2..=3).contains(&parts.len()) && parts.iter().all(|p| *p == "0")
}

/// The first token of a game's text that pgn-reader would skip without a word, or a variation
/// it would never see closed; `None` when everything is read.
fn first_unread(game: &[u8]) -> Option<Unread> {
    let mut i = movetext_start(game);
    let mut plies = 0;
    // The word as the reader sees it on the page (`exd6e.p.`, not pgn-reader's `exd6e`).
    let quote = |from: usize| {
        let word = game[from..]
            .iter()
            .position(|&b| b.is_ascii_whitespace() || matches!(b, b'{' | b'(' | b')' | b';'))
            .map_or(&game[from..], |p| &game[from..from + p]);
        cut(&String::from_utf8_lossy(word), MAX_TOKEN_IN_ERROR)
    };
    while let Some(&c) = game.get(i) {
        match c {
            // An unterminated comment is pgn-reader's own error.
            b'{' => i = find(game, i, b'}')? + 1,
            b'\n' => {
                i += 1;
                match game.get(i) {
                    Some(b'%') => i = find(game, i, b'\n').unwrap_or(game.len()),
                    Some(b'[' | b'\n') => return None,
                    Some(b'\r') if game.get(i + 1) == Some(&b'\n') => return None,
                    _ => {}
                }
            }
            b';' => i = find(game, i, b'\n').unwrap_or(game.len()),
            b'(' => match skip_variation(game, i + 1) {
                Some(after) => i = after,
                None => {
                    return Some(Unread {
                        plies,
                        token: "(".to_owned(),
                        kind: ImportErrorKind::UnclosedVariation,
                    });
                }
            },
            b'$' => {
                i += 1;
                while game.get(i).is_some_and(|&b| !is_token_end(b)) {
                    i += 1;
                }
            }
            b')' | b'}' | b'!' | b'?' | b'*' | b' ' | b'\t' | b'\r' | b'.' => i += 1,
            _ => {
                if let Some(len) = en_passant_marker(&game[i..]) {
                    i += len;
                    continue;
                }
                let end = game[i..]
                    .iter()
                    .position(|&b| is_token_end(b))
                    .map_or(game.len(), |p| i + p);
                let token = &game[i..end];
                let text = String::from_utf8_lossy(token);
                let reason = if c.is_ascii_digit() {
                    let digits = token.iter().all(u8::is_ascii_digit);
                    if is_zero_castling(&text) {
                        plies += 1;
                        None
                    } else if (digits && (token.len() <= 3 || game.get(end) == Some(&b'.')))
                        || is_harmless(&text)
                    {
                        // A move number (`12.`, `12`) or a result.
                        None
                    } else if digits {
                        Some(
                            "a number that is no move number; PGN moves are SAN (Nf3), \
                             ICCF numeric moves are read from a move list without tags",
                        )
                    } else {
                        Some("PGN moves are SAN with English letters (Nf3, exd5, O-O, e8=Q)")
                    }
                } else {
                    match shakmaty::san::SanPlus::from_ascii_prefix(&game[i..]) {
                        Ok((_, n)) if i + n == end => {
                            plies += 1;
                            None
                        }
                        _ if is_harmless(&text) => None,
                        _ => Some("PGN moves are SAN with English letters (Nf3, exd5, O-O, e8=Q)"),
                    }
                };
                if let Some(reason) = reason {
                    return Some(Unread {
                        plies,
                        token: quote(i),
                        kind: ImportErrorKind::NotAMove(reason),
                    });
                }
                i = end.max(i + 1);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants() {
        for v in [
            "Chess960",
            "chess 960",
            "Fischerandom",
            "FRC",
            "960",
            "Chess-960",
        ] {
            assert_eq!(variant_is_chess960(v), Ok(true), "{v}");
        }
        for v in ["Standard", "From Position", ""] {
            assert_eq!(variant_is_chess960(v), Ok(false), "{v}");
        }
        assert!(variant_is_chess960("Crazyhouse").is_err());
    }

    #[test]
    fn noise_is_not_a_game() {
        assert!(read_games("").is_empty());
        assert!(read_games("  \n\n { a comment }\n\n").is_empty());
    }

    #[test]
    fn zero_castling_and_clock() {
        let games = read_games("1. e4 {[%clk 0:10:00]} e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 *");
        let g = games[0].as_ref().unwrap();
        assert_eq!(g.game.ply_count(), 7);
        assert_eq!(g.clocks[0], Some(600_000));
        assert_eq!(g.clocks[1], None);
        assert_eq!(g.result, None);
    }

    #[test]
    fn sent_stamps_beside_clocks() {
        let games = read_games(
            "1. d4 {[%ccsnt 2018.10.02,12:56]} d5 {[%clk 1:00:00] [%ccsnt 2018.10.02,13:34]} \
             2. c4 {a remark} *",
        );
        let g = games[0].as_ref().unwrap();
        let sent: Vec<Option<String>> = g.sent.iter().map(|s| s.map(|s| s.to_string())).collect();
        assert_eq!(
            sent,
            [
                Some("2018.10.02,12:56".to_owned()),
                Some("2018.10.02,13:34".to_owned()),
                None
            ]
        );
        assert_eq!(g.clocks, [None, Some(3_600_000), None]);
        let entries = g.scoresheet();
        assert_eq!(entries.entries()[1].sent, g.sent[1]);
    }

    #[test]
    fn ambiguous_move_lists_candidates() {
        // Knights on b3 and f3: Nbd2 names one, Nd2 could be either.
        let games = read_games("1. Nf3 d5 2. d4 e6 3. Nbd2 Nf6 4. e3 Be7 5. Nb3 O-O 6. Nbd2 *");
        assert_eq!(games[0].as_ref().unwrap().game.ply_count(), 11);
        let games = read_games("1. Nf3 d5 2. d4 e6 3. Nbd2 Nf6 4. e3 Be7 5. Nb3 O-O 6. Nd2 *");
        let e = games[0].as_ref().unwrap_err();
        assert_eq!(e.ply, Some(11));
        assert_eq!(e.token.as_deref(), Some("Nd2"));
        let ImportErrorKind::Ambiguous { candidates } = &e.kind else {
            panic!("{e}")
        };
        assert_eq!(candidates.len(), 2, "{e}");
    }
}
