//! The moves a message claims, as written, before any game is looked at: a line of moves (ICCF
//! digits, SAN or long algebraic in any language's letters or figurines, castling as O-O or
//! 0-0) with or without numbers, after a lead phrase ("My move:", "Mein Zug ist", "Zug 2:"),
//! an alternative in parentheses (`2.Sf3 (7163)`). Whether a word is a move is decided by its
//! shape; what it means is for `check`, in the game's positions and the table's language.

use std::sync::OnceLock;

use annabella_chess::game::MAX_PLIES;
use annabella_chess::language::Language;

/// The largest move number read.
const MAX_NUMBER: usize = MAX_PLIES / 2 + 1;
/// The longest move word read (`Na1xa1=Q+` is 9).
const MAX_MOVE_CHARS: usize = 12;
/// Alternatives kept for one half-move.
const MAX_ALTERNATIVES: usize = 4;

/// Where a run of moves starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    /// At this half-move (0-based): the run was numbered (`16...`).
    Ply(usize),
    /// At this move number, whose colour is the game's side to move (`Zug 2: 7163`).
    Number(usize),
    /// Unnumbered: where it fits is decided against the game.
    Free,
}

/// One half-move as written: one text, or several meaning the same move (`Sf3 (7163)`).
pub(super) type Written = Vec<String>;

/// Consecutive moves as written, from one place in the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Run {
    pub start: Start,
    pub moves: Vec<Written>,
    /// 0: the sender's own text; more: quoted.
    pub depth: usize,
    /// From the subject: it may be our own reply's subject, so it never outweighs the body.
    pub subject: bool,
}

/// Phrases before a move, per language, lower case: "My move: 7163", "Mein Zug ist 7163".
/// Longest first within a language does not matter: the longest match is taken.
const LEAD_PHRASES: &[&str] = &[
    // en
    "my move is",
    "my move",
    "my next move is",
    "my next move",
    "my reply is",
    "my reply",
    "my answer is",
    "my answer",
    "i play",
    "i'll play",
    "i will play",
    "move",
    "reply",
    // de
    "mein zug ist",
    "mein zug lautet",
    "mein zug",
    "mein nächster zug ist",
    "mein nächster zug",
    "meine antwort ist",
    "meine antwort",
    "ich spiele",
    "ich ziehe",
    "zug",
    "antwort",
    // es
    "mi jugada es",
    "mi jugada",
    "mi movimiento es",
    "mi movimiento",
    "juego",
    "jugada",
    // fr
    "mon coup est",
    "mon coup",
    "je joue",
    "coup",
    // it
    "la mia mossa è",
    "la mia mossa",
    "mia mossa",
    "gioco",
    "mossa",
    // nl
    "mijn zet is",
    "mijn zet",
    "ik speel",
    "zet",
    // pt
    "o meu lance é",
    "meu lance é",
    "o meu lance",
    "meu lance",
    "jogo",
    "lance",
];

/// One word of a move line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// `16.` (White's) or `16...` (Black's), maybe with the move attached (`16.4244`).
    Number(Start, Option<String>),
    Move(String),
    /// `(7163)`: the move before, written another way.
    Alternative(String),
    /// A result, a lone ellipsis or dash: nothing to place.
    Skip,
}

/// Every piece letter of the built-in languages, and the figurines.
fn piece_letters() -> &'static str {
    static LETTERS: OnceLock<String> = OnceLock::new();
    LETTERS.get_or_init(|| {
        use shakmaty::Role::*;
        let mut s: String = "♔♕♖♗♘♙♚♛♜♝♞♟".into();
        for lang in Language::all_builtin() {
            for role in [King, Queen, Rook, Bishop, Knight] {
                let c = lang.letter(role);
                if !s.contains(c) {
                    s.push(c);
                }
            }
        }
        s
    })
}

/// Check, mate and annotation marks, and an en passant note, dropped from the end.
fn strip_marks(t: &str) -> &str {
    let mut t = t.trim_end_matches(['+', '#', '!', '?', '†', '‡']);
    for ep in ["e.p.", "e.p", "ep"] {
        if let Some(r) = t.strip_suffix(ep)
            && r.ends_with(|c: char| c.is_ascii_digit())
        {
            t = r;
        }
    }
    t
}

/// Whether `t` has the shape of a move in some notation: ICCF digits, castling, SAN or long
/// algebraic with any language's piece letter or a figurine, UCI.
pub(super) fn is_move(t: &str) -> bool {
    let t = strip_marks(t);
    if t.is_empty() || t.chars().count() > MAX_MOVE_CHARS {
        return false;
    }
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return super::parts::IccfMove::new(t).is_some();
    }
    let castle: String = t
        .chars()
        .map(|c| match c {
            '0' | 'o' => 'O',
            '‐' | '‑' | '‒' | '–' | '—' | '−' => '-',
            c => c,
        })
        .collect();
    if castle == "O-O" || castle == "O-O-O" {
        return true;
    }
    let mut chars: Vec<char> = t.chars().collect();
    // A promotion at the end: `=Q`, `(Q)`, `/Q`, `Q` or UCI's `q`.
    if let [.., a, b, c] = chars.as_slice()
        && matches!((a, c), ('(', ')'))
        && b.is_alphabetic()
    {
        chars.truncate(chars.len() - 3);
    } else if let [.., a, b] = chars.as_slice()
        && (matches!(a, '=' | '/') && b.is_alphabetic())
    {
        chars.truncate(chars.len() - 2);
    } else if let [.., r, p] = chars.as_slice()
        && matches!(r, '1' | '8')
        && (piece_letters().contains(*p) || matches!(p, 'q' | 'r' | 'b' | 'n'))
    {
        chars.pop();
    }
    // A piece letter first.
    if let Some(c) = chars.first()
        && (c.is_uppercase() || piece_letters().contains(*c))
    {
        if !piece_letters().contains(*c) {
            return false;
        }
        chars.remove(0);
    }
    // The destination square last.
    let n = chars.len();
    if n < 2 || !matches!(chars[n - 2], 'a'..='h') || !matches!(chars[n - 1], '1'..='8') {
        return false;
    }
    // Between: a from-file, -rank or -square and a capture or dash.
    let between = &chars[..n - 2];
    between.len() <= 4
        && between
            .iter()
            .all(|c| matches!(c, 'a'..='h' | '1'..='8' | 'x' | ':' | '-' | '×'))
}

/// A move number with its dots: `16.`, `16...`, `16…`, `16..`; `Some` with the move when it
/// is attached (`16.4244`). `colon` accepts `2:` (after a lead phrase: "Zug 2: 7163").
fn number_token(t: &str, colon: bool) -> Option<Token> {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 4 {
        return None;
    }
    let n: usize = t[..digits].parse().ok()?;
    if n == 0 || n > MAX_NUMBER {
        return None;
    }
    let after = &t[digits..];
    let (start, rest) = if let Some(r) = after
        .strip_prefix("...")
        .or_else(|| after.strip_prefix('…'))
        .or_else(|| after.strip_prefix(".."))
    {
        (Start::Ply((n - 1) * 2 + 1), r)
    } else if let Some(r) = after.strip_prefix('.') {
        (Start::Ply((n - 1) * 2), r)
    } else if colon && let Some(r) = after.strip_prefix(':') {
        (Start::Number(n), r)
    } else if colon && after.is_empty() {
        // "Zug 3 Lb5": a bare number only after a lead phrase (elsewhere "030 1234 5678" is
        // a phone number).
        (Start::Number(n), after)
    } else {
        return None;
    };
    if rest.is_empty() {
        Some(Token::Number(start, None))
    } else if is_move(rest) {
        Some(Token::Number(start, Some(strip_marks(rest).to_owned())))
    } else {
        None
    }
}

fn token(t: &str, colon: bool) -> Option<Token> {
    if matches!(
        t,
        "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*" | "..." | "…" | "-" | "–" | ":"
    ) {
        return Some(Token::Skip);
    }
    if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        return is_move(inner).then(|| Token::Alternative(strip_marks(inner).to_owned()));
    }
    if is_move(t) {
        return Some(Token::Move(strip_marks(t).to_owned()));
    }
    number_token(t, colon)
}

/// The words of a line: `2 . 7163` joined to `2. 7163`, `Sf3(7163)` split, a full stop or
/// comma after the last move dropped.
fn words(line: &str) -> Vec<String> {
    let spaced = line.replace('(', " (");
    let raw: Vec<&str> = spaced
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|t| !t.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    for w in raw {
        let dots = !w.is_empty() && w.chars().all(|c| c == '.' || c == '…');
        if dots
            && let Some(prev) = out.last_mut()
            && prev.bytes().all(|b| b.is_ascii_digit())
        {
            prev.push_str(w);
            continue;
        }
        // `e8 (Q)`: a promotion written apart is part of its move.
        let mark_free = strip_marks(w);
        if mark_free.len() == 3
            && mark_free.starts_with('(')
            && mark_free.ends_with(')')
            && let Some(prev) = out.last_mut()
            && prev.ends_with(['1', '8'])
        {
            prev.push_str(w);
            continue;
        }
        out.push(w.to_owned());
    }
    if let Some(last) = out.last_mut()
        && last.len() > 1
        && last.ends_with(['.', ','])
        && is_move(&last[..last.len() - 1])
    {
        last.pop();
    }
    out
}

/// The rest of a line after a lead phrase, if it starts with one.
fn after_lead(line: &str) -> Option<&str> {
    let lower = line.to_lowercase();
    // Lower-casing keeps byte lengths for the letters of these phrases; a line where it does
    // not is not one of them.
    if lower.len() != line.len() {
        return None;
    }
    let best = LEAD_PHRASES
        .iter()
        .filter(|p| {
            lower.starts_with(*p)
                && lower[p.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| c == ':' || c.is_whitespace())
        })
        .max_by_key(|p| p.len())?;
    let rest = line[best.len()..].trim_start();
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    Some(rest.trim())
}

/// Reads a line of moves into runs; `None` when the line is prose. `runs` holds the level's
/// runs so far: an unnumbered line continues the last of them when that was unnumbered too
/// or numbered (a record over several lines).
pub(super) fn read_line(line: &str, depth: usize, subject: bool) -> Option<Vec<Run>> {
    let (rest, lead) = match after_lead(line) {
        Some(rest) => (rest, true),
        None => (line, false),
    };
    let mut tokens = Vec::new();
    for w in words(rest) {
        match token(&w, lead) {
            Some(t) => tokens.push(t),
            // After a lead phrase the moves end where the words start ("Mein Zug ist 7163,
            // viele Grüße"); a line without one is all moves or prose.
            None if lead && tokens.iter().any(|t| !matches!(t, Token::Skip)) => break,
            None => return None,
        }
    }
    let mut runs: Vec<Run> = Vec::new();
    let new_run = |start| Run {
        start,
        moves: Vec::new(),
        depth,
        subject,
    };
    for t in tokens {
        match t {
            Token::Skip => {}
            Token::Number(start, m) => {
                let mut run = new_run(start);
                run.moves.extend(m.map(|m| vec![m]));
                runs.push(run);
            }
            Token::Move(m) => match runs.last_mut() {
                Some(run) => run.moves.push(vec![m]),
                None => {
                    let mut run = new_run(Start::Free);
                    run.moves.push(vec![m]);
                    runs.push(run);
                }
            },
            Token::Alternative(m) => {
                let Some(last) = runs.last_mut().and_then(|r| r.moves.last_mut()) else {
                    // `(7163)` first: a move of its own.
                    let mut run = new_run(Start::Free);
                    run.moves.push(vec![m]);
                    runs.push(run);
                    continue;
                };
                if !last.contains(&m) && last.len() < MAX_ALTERNATIVES {
                    last.push(m);
                }
            }
        }
    }
    runs.retain(|r| !r.moves.is_empty());
    (!runs.is_empty()).then_some(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs' starts and moves.
    type Shape = Vec<(Start, Vec<Vec<&'static str>>)>;

    fn shape(line: &str) -> Option<Shape> {
        read_line(line, 0, false).map(|runs| {
            runs.into_iter()
                .map(|r| {
                    let moves = r
                        .moves
                        .into_iter()
                        .map(|w| {
                            w.into_iter()
                                .map(|s| &*Box::leak(s.into_boxed_str()))
                                .collect()
                        })
                        .collect();
                    (r.start, moves)
                })
                .collect()
        })
    }

    #[test]
    fn moves_as_people_write_them() {
        use Start::*;
        assert_eq!(shape("2. 7163"), Some(vec![(Ply(2), vec![vec!["7163"]])]));
        assert_eq!(shape("2 . 7163"), shape("2. 7163"));
        assert_eq!(shape("2.Sf3"), Some(vec![(Ply(2), vec![vec!["Sf3"]])]));
        assert_eq!(
            shape("2.Sf3 (7163)"),
            Some(vec![(Ply(2), vec![vec!["Sf3", "7163"]])])
        );
        assert_eq!(shape("2...Nf6"), Some(vec![(Ply(3), vec![vec!["Nf6"]])]));
        assert_eq!(
            shape("Zug 2: 7163"),
            Some(vec![(Number(2), vec![vec!["7163"]])])
        );
        assert_eq!(
            shape("Zug 3 Lb5"),
            Some(vec![(Number(3), vec![vec!["Lb5"]])])
        );
        assert_eq!(shape("030 1234 5678"), None);
        assert_eq!(
            shape("Mein Zug ist 7163."),
            Some(vec![(Free, vec![vec!["7163"]])])
        );
        assert_eq!(
            shape("Mein Zug ist 7163, viele Grüße"),
            Some(vec![(Free, vec![vec!["7163"]])])
        );
        assert_eq!(
            shape("My move: 2. Nf3."),
            Some(vec![(Ply(2), vec![vec!["Nf3"]])])
        );
        assert_eq!(
            shape("Mi jugada: Cf3"),
            Some(vec![(Free, vec![vec!["Cf3"]])])
        );
        assert_eq!(
            shape("1. e2-e4 e7e5 2. ♘f3 0-0"),
            Some(vec![
                (Ply(0), vec![vec!["e2-e4"], vec!["e7e5"]]),
                (Ply(2), vec![vec!["♘f3"], vec!["0-0"]])
            ])
        );
        assert_eq!(
            shape("5. 5171 1-0"),
            Some(vec![(Ply(8), vec![vec!["5171"]])])
        );
        assert_eq!(
            shape("e7-e8(Q)+"),
            Some(vec![(Free, vec![vec!["e7-e8(Q)"]])])
        );
        assert_eq!(
            shape("Nbd7 Rxe1+ exd6e.p."),
            Some(vec![(Free, vec![vec!["Nbd7"], vec!["Rxe1"], vec!["exd6"]])])
        );
    }

    #[test]
    fn numbers_in_prose_are_never_moves() {
        for prose in [
            "I will think about 7163 tomorrow",
            "+49 30 1234 5678",
            "030 12345678",
            "(555) 123-4567",
            "2026-11-27",
            "27.11.2026",
            "11/27/2026",
            "10:15",
            "Price: 25.00 EUR",
            "50667 Köln",
            "Tel. 030 1234 5678",
            "Move 2000. 5254",
            "A tree",
            "Hello Anna,",
            "My move will follow tomorrow",
        ] {
            assert_eq!(read_line(prose, 0, false), None, "{prose}");
        }
    }
}
