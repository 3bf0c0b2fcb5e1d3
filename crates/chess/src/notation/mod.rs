//! One parser and one formatter for every notation a player, assistant or correspondent uses.
//!
//! Parsing is two steps: a notation module reads the text into a [`MoveSpec`] without looking
//! at the position (syntax), then [`resolve`] matches the spec against the legal moves
//! (semantics). Errors from either step come out as a [`MoveError`] naming the token and why.
//!
//! - [`iccf`]: ICCF numeric (`5254`, `17181`).
//! - [`telegraph`]: the seed's telegraph grid (`GEGO`).
//! - [`san`]: SAN in any language's piece letters, figurines, and the lenient forms people write.
//! - [`coordinate`]: long algebraic (`Ng1-f3`, `e5xd6`) and UCI (`e2e4`, `e7e8q`).
//! - [`spoken`]: moves in words ("Springer Felix drei"), as a voice says them and read back.
//! - [`movelist`]: splitting a typed or pasted text into games and move tokens.

pub mod coordinate;
pub mod iccf;
pub mod movelist;
pub mod numbered;
pub mod resolve;
pub mod san;
pub mod spoken;
pub mod telegraph;

use std::fmt;
use std::str::FromStr;

use shakmaty::{CastlingMode, Chess, Move};

use crate::language::Language;
pub use resolve::{MoveSpec, ResolveError, Target};

/// Longest move text accepted; the longest spoken phrase is well under this.
pub const MAX_MOVE_BYTES: usize = 200;

/// A notation for moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Notation {
    San,
    Lan,
    Uci,
    Iccf,
    Telegraph,
    Spoken,
}

impl Notation {
    pub const ALL: [Notation; 6] = [
        Notation::San,
        Notation::Lan,
        Notation::Uci,
        Notation::Iccf,
        Notation::Telegraph,
        Notation::Spoken,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Notation::San => "san",
            Notation::Lan => "lan",
            Notation::Uci => "uci",
            Notation::Iccf => "iccf",
            Notation::Telegraph => "telegraph",
            Notation::Spoken => "spoken",
        }
    }

    /// What the notation is called in an error message.
    pub fn description(self) -> &'static str {
        match self {
            Notation::San => "SAN",
            Notation::Lan => "long algebraic",
            Notation::Uci => "UCI",
            Notation::Iccf => "ICCF numeric",
            Notation::Telegraph => "telegraph code",
            Notation::Spoken => "spoken",
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Notation {
    type Err = String;

    fn from_str(s: &str) -> Result<Notation, String> {
        Notation::ALL
            .into_iter()
            .find(|n| n.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!("unknown notation {s:?}; one of san, lan, uci, iccf, telegraph, spoken")
            })
    }
}

/// How much a spoken move says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verbosity {
    /// Like SAN: "Springer Felix drei", the from-square only where SAN disambiguates.
    #[default]
    Short,
    /// Always the from-square: "Springer Gustav eins Felix drei".
    Long,
}

impl FromStr for Verbosity {
    type Err = String;

    fn from_str(s: &str) -> Result<Verbosity, String> {
        match s.to_ascii_lowercase().as_str() {
            "short" => Ok(Verbosity::Short),
            "long" => Ok(Verbosity::Long),
            _ => Err(format!("unknown verbosity {s:?}; short or long")),
        }
    }
}

/// How moves are written: the language, and the choices a player makes about the words.
#[derive(Debug, Clone, Copy)]
pub struct Style<'a> {
    pub lang: &'a Language,
    pub verbosity: Verbosity,
    /// Spoken: name the captured piece ("schlägt Springer Felix drei").
    pub name_captured: bool,
    /// SAN/LAN: figurines (♘f3) instead of letters.
    pub figurines: bool,
}

impl<'a> Style<'a> {
    pub fn new(lang: &'a Language) -> Style<'a> {
        Style {
            lang,
            verbosity: Verbosity::Short,
            name_captured: false,
            figurines: false,
        }
    }
}

/// A move text that names no legal move, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{token:?}: {kind}")]
pub struct MoveError {
    /// The text as given (cut to [`MAX_MOVE_BYTES`]).
    pub token: String,
    pub kind: MoveErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveErrorKind {
    #[error("empty move")]
    Empty,
    #[error("too long ({0} bytes; a move is at most {MAX_MOVE_BYTES})")]
    TooLong(usize),
    /// The text is not a move in the notation (which one, when known) for the stated reason.
    #[error("{}", malformed_message(*.notation, .reason))]
    Malformed {
        notation: Option<Notation>,
        reason: String,
    },
    #[error("no such square {0:?}")]
    NoSuchSquare(String),
    #[error("illegal here: {0}")]
    Illegal(String),
    /// The candidates, written in the notation and language the player used where possible.
    #[error("ambiguous: could be {}", .0.join(" or "))]
    Ambiguous(Vec<String>),
    /// Says how to write the piece in this notation.
    #[error("promotion piece missing: {0}")]
    PromotionMissing(String),
}

fn malformed_message(notation: Option<Notation>, reason: &str) -> String {
    match notation {
        Some(n) => format!("not a move in {} notation: {reason}", n.description()),
        None => format!("not a move in any notation: {reason}"),
    }
}

impl MoveError {
    pub fn new(token: &str, kind: MoveErrorKind) -> MoveError {
        let mut end = token.len().min(MAX_MOVE_BYTES);
        while !token.is_char_boundary(end) {
            end -= 1;
        }
        MoveError {
            token: token[..end].to_owned(),
            kind,
        }
    }
}

/// Guesses the notation of one move's text (overridable by naming the notation).
pub fn detect(text: &str) -> Notation {
    let t = text.trim();
    if iccf::looks_like(t) {
        Notation::Iccf
    } else if telegraph::looks_like(t) {
        Notation::Telegraph
    } else if coordinate::looks_like_uci(t) {
        Notation::Uci
    } else if san::strip_suffixes(t).contains(char::is_whitespace) {
        Notation::Spoken
    } else if coordinate::looks_like_lan(t) {
        Notation::Lan
    } else {
        Notation::San
    }
}

/// Reads one move in `notation` (or the detected one) and finds it among the legal moves.
pub fn parse_move(
    pos: &Chess,
    mode: CastlingMode,
    text: &str,
    notation: Option<Notation>,
    lang: &Language,
) -> Result<Move, MoveError> {
    if text.len() > MAX_MOVE_BYTES {
        return Err(MoveError::new(text, MoveErrorKind::TooLong(text.len())));
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(MoveError::new(text, MoveErrorKind::Empty));
    }
    let notation = notation.unwrap_or_else(|| detect(trimmed));
    let spec = match notation {
        Notation::San => san::parse(trimmed, lang),
        Notation::Lan => coordinate::parse_lan(trimmed, lang),
        Notation::Uci => coordinate::parse_uci(trimmed),
        Notation::Iccf => iccf::parse(trimmed, mode),
        Notation::Telegraph => telegraph::parse(trimmed, mode),
        Notation::Spoken => spoken::parse(trimmed, lang),
    }
    .map_err(|kind| MoveError::new(trimmed, kind))?;
    resolve::resolve(pos, mode, &spec).map_err(|e| {
        let kind = match e {
            ResolveError::Illegal(why) => MoveErrorKind::Illegal(why),
            ResolveError::Ambiguous(candidates) => {
                let style = Style::new(lang);
                // Spoken candidates are long; SAN in the player's letters is what he can retype.
                let shown = if notation == Notation::Spoken {
                    Notation::San
                } else {
                    notation
                };
                MoveErrorKind::Ambiguous(
                    candidates
                        .iter()
                        .map(|&m| format_move(pos, mode, m, shown, &style))
                        .collect(),
                )
            }
            ResolveError::PromotionMissing => {
                MoveErrorKind::PromotionMissing(promotion_hint(notation, lang))
            }
        };
        MoveError::new(trimmed, kind)
    })
}

fn promotion_hint(notation: Notation, lang: &Language) -> String {
    use shakmaty::Role::*;
    match notation {
        Notation::Iccf | Notation::Telegraph => {
            "add a fifth digit: 1 queen, 2 rook, 3 bishop, 4 knight".to_owned()
        }
        Notation::Uci => "add q, r, b or n (e.g. e7e8q)".to_owned(),
        Notation::Spoken => {
            let v = lang.vocabulary();
            format!(
                "say the new piece: {}",
                spoken::promotion_choices(v).join(", ")
            )
        }
        Notation::San | Notation::Lan => format!(
            "add ={}, ={}, ={} or ={}",
            lang.letter(Queen),
            lang.letter(Rook),
            lang.letter(Bishop),
            lang.letter(Knight)
        ),
    }
}

/// Writes a legal move of `pos` in `notation`. The move must be legal in `pos`.
pub fn format_move(
    pos: &Chess,
    mode: CastlingMode,
    m: Move,
    notation: Notation,
    style: &Style,
) -> String {
    match notation {
        Notation::San => san::format(pos, m, style),
        Notation::Lan => coordinate::format_lan(pos, m, style),
        Notation::Uci => coordinate::format_uci(m, mode),
        Notation::Iccf => iccf::format(m, mode),
        Notation::Telegraph => telegraph::format(m, mode),
        Notation::Spoken => spoken::format(pos, m, style),
    }
}
