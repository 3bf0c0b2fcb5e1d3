//! SAN in any language's piece letters, figurines, and the lenient forms people really write.
//!
//! The piece letters are always the language's: the letters of different languages overlap (`R`
//! is a rook in English and a king in Spanish), so guessing would turn typos into wrong moves.
//! Piece letters are uppercase, files lowercase; `b` is never a bishop at the start of a move.
//! A promotion piece is the one place where a lowercase letter is read as a piece (`e8q`,
//! `exd8b`): it comes after the destination square, where no file can stand.
//!
//! The same reader serves long algebraic notation ([`super::coordinate`]), whose only difference
//! is that the from-square is written; SAN input may give it too (`Ng1f3`, `e4d5`).

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{CastlingSide, Chess, File, Move, Rank, Role, Square};

use super::{MoveErrorKind, MoveSpec, Notation, Style, Target};
use crate::language::Language;

/// Longest algebraic move body read (after suffixes); `Na1xa1=Q` is 8, `e7-e8(Q)` is 8.
const MAX_CHARS: usize = 16;

/// Reads SAN (`Nf3`, `Sf3`, `♘f3`, `0-0`, `e8Q`, `exd6 e.p.`) into a spec, without the position.
pub fn parse(text: &str, lang: &Language) -> Result<MoveSpec, MoveErrorKind> {
    parse_algebraic(text, lang, Notation::San)
}

/// Writes SAN with check/mate suffix in the style's language letters (or figurines).
pub fn format(pos: &Chess, m: Move, style: &Style) -> String {
    let san_plus = SanPlus::from_move(pos.clone(), m);
    let mut out = String::with_capacity(8);
    match san_plus.san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            if role != Role::Pawn {
                out.push(piece_char(role, style));
            }
            if let Some(f) = file {
                out.push(f.char());
            }
            if let Some(r) = rank {
                out.push(r.char());
            }
            if capture {
                out.push('x');
            }
            push_square(&mut out, to);
            if let Some(p) = promotion {
                out.push('=');
                out.push(piece_char(p, style));
            }
        }
        San::Castle(side) => out.push_str(castling_text(side)),
        // Drops and null moves are not chess moves; shakmaty's own text keeps this total.
        other => out.push_str(&other.to_string()),
    }
    push_suffix(&mut out, san_plus.suffix);
    out
}

/// The text without trailing check/mate/annotation marks and en-passant markers (`e.p.`, `ep`).
///
/// Marks may come in any order and with spaces between (`exd6 e.p.+`, `Nf3 !?`). An e.p. marker
/// is removed only after a digit or a space, so that a word ending in "ep" stays whole.
pub fn strip_suffixes(text: &str) -> &str {
    let mut t = text.trim_end();
    loop {
        let before = t.len();
        t = t.trim_end_matches(['+', '#', '‡', '†', '!', '?', '‼', '⁇', '⁉', '⁈']);
        if let Some(rest) = t.strip_suffix("(=)") {
            t = rest;
        }
        t = strip_en_passant(t).trim_end();
        if t.len() == before {
            return t;
        }
    }
}

fn strip_en_passant(t: &str) -> &str {
    const MARKERS: [&str; 7] = ["e.p.", "e.p", "a.p.", "a.p", "i.p.", "i.p", "ep"];
    let bytes = t.as_bytes();
    for marker in MARKERS {
        let m = marker.as_bytes();
        if bytes.len() > m.len() && bytes[bytes.len() - m.len()..].eq_ignore_ascii_case(m) {
            // The marker is ASCII, so the cut is on a char boundary.
            let rest = &t[..t.len() - m.len()];
            if rest.ends_with(|c: char| c.is_ascii_digit() || c.is_whitespace()) {
                return rest;
            }
        }
    }
    t
}

/// The role of a figurine, white or black glyph alike.
pub(crate) fn figurine_role(c: char) -> Option<Role> {
    Some(match c {
        '♔' | '♚' => Role::King,
        '♕' | '♛' => Role::Queen,
        '♖' | '♜' => Role::Rook,
        '♗' | '♝' => Role::Bishop,
        '♘' | '♞' => Role::Knight,
        '♙' | '♟' => Role::Pawn,
        _ => return None,
    })
}

/// The white figurine of a role (publications use the white glyphs for both sides).
pub(crate) fn figurine(role: Role) -> char {
    match role {
        Role::King => '♔',
        Role::Queen => '♕',
        Role::Rook => '♖',
        Role::Bishop => '♗',
        Role::Knight => '♘',
        Role::Pawn => '♙',
    }
}

pub(crate) fn piece_char(role: Role, style: &Style) -> char {
    if style.figurines {
        figurine(role)
    } else {
        style.lang.letter(role)
    }
}

pub(crate) fn is_dash(c: char) -> bool {
    matches!(c, '-' | '‐' | '‑' | '‒' | '–' | '—' | '−')
}

pub(crate) fn castling_text(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "O-O",
        CastlingSide::QueenSide => "O-O-O",
    }
}

pub(crate) fn push_square(out: &mut String, sq: Square) {
    out.push(sq.file().char());
    out.push(sq.rank().char());
}

pub(crate) fn push_suffix(out: &mut String, suffix: Option<Suffix>) {
    if let Some(s) = suffix {
        out.push(s.char());
    }
}

fn file_of(c: char) -> Option<File> {
    match c {
        'a'..='h' => File::from_char(c),
        _ => None,
    }
}

fn rank_of(c: char) -> Option<Rank> {
    match c {
        '1'..='8' => Rank::from_char(c),
        _ => None,
    }
}

fn letters_of(lang: &Language) -> String {
    [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
    ]
    .iter()
    .map(|&r| lang.letter(r).to_string())
    .collect::<Vec<_>>()
    .join(" ")
}

/// Reads algebraic notation, short or long, in `lang`'s letters; `notation` names it in errors.
pub(crate) fn parse_algebraic(
    text: &str,
    lang: &Language,
    notation: Notation,
) -> Result<MoveSpec, MoveErrorKind> {
    let malformed = |reason: String| MoveErrorKind::Malformed {
        notation: Some(notation),
        reason,
    };
    let body = strip_suffixes(text);
    if body.is_empty() {
        return Err(malformed("only annotation marks, no move".to_owned()));
    }
    let mut buf = ['\0'; MAX_CHARS];
    let mut n = 0;
    for c in body.chars() {
        if n == MAX_CHARS {
            return Err(malformed(format!(
                "too long for a move (more than {MAX_CHARS} characters)"
            )));
        }
        buf[n] = c;
        n += 1;
    }
    let c = &buf[..n];

    if let Some(side) = castling(c, &malformed)? {
        return Ok(MoveSpec::castle(side));
    }

    // Promotion at the end: `=Q`, `/Q`, `(Q)`, or the bare letter after the rank.
    let mut end = n;
    let mut promotion = None;
    if end >= 1 && c[end - 1] == ')' {
        if end >= 4 && c[end - 3] == '(' && c[end - 4].is_ascii_digit() {
            promotion = Some(promotion_piece(c[end - 2], lang, &malformed)?);
            end -= 3;
        } else {
            return Err(malformed(
                "a closing bracket only follows a promotion piece, as in e8(Q)".to_owned(),
            ));
        }
    } else if end >= 1 && matches!(c[end - 1], '=' | '/') {
        return Err(malformed(format!(
            "{} must be followed by the new piece ({})",
            c[end - 1],
            promotion_letters(lang)
        )));
    } else if end >= 2 && (c[end - 1].is_alphabetic() || figurine_role(c[end - 1]).is_some()) {
        let before = c[end - 2];
        if before.is_ascii_digit() || matches!(before, '=' | '/') {
            promotion = Some(promotion_piece(c[end - 1], lang, &malformed)?);
            end -= 1;
            if matches!(before, '=' | '/') {
                end -= 1;
            }
        }
    }

    // The destination square.
    if end < 2 {
        return Err(malformed("no destination square (like e4)".to_owned()));
    }
    let (tf, tr) = (c[end - 2], c[end - 1]);
    let to = match (file_of(tf), rank_of(tr)) {
        (Some(f), Some(r)) => Square::from_coords(f, r),
        (None, Some(_)) if file_of(tf.to_ascii_lowercase()).is_some() => {
            return Err(malformed(format!(
                "files are lowercase: {}{tr}, not {tf}{tr}",
                tf.to_ascii_lowercase()
            )));
        }
        _ if tf.is_ascii_lowercase() && tr.is_ascii_digit() => {
            return Err(MoveErrorKind::NoSuchSquare(format!("{tf}{tr}")));
        }
        _ => {
            return Err(malformed(format!(
                "no destination square (like e4) at the end, found {:?}",
                c[end - 2..end].iter().collect::<String>()
            )));
        }
    };
    end -= 2;

    // What comes before: piece, from-file, from-rank, capture sign or dash, in this order.
    let mut i = 0;
    let mut role = None;
    if end > 0 {
        let first = c[0];
        if let Some(r) = figurine_role(first) {
            role = Some(r);
            i = 1;
        } else if first.is_uppercase() {
            match lang.role_for_letter(first) {
                Some(r) => role = Some(r),
                None => {
                    return Err(malformed(format!(
                        "{first} is not a piece letter in {} ({}; {} for a pawn)",
                        lang.name(),
                        letters_of(lang),
                        lang.letter(Role::Pawn)
                    )));
                }
            }
            i = 1;
        }
    }
    let mut from_file = None;
    let mut from_rank = None;
    if let Some(f) = c[i..end].first().and_then(|&x| file_of(x)) {
        from_file = Some(f);
        i += 1;
    }
    if let Some(r) = c[i..end].first().and_then(|&x| rank_of(x)) {
        from_rank = Some(r);
        i += 1;
    }
    if i < end && (matches!(c[i], 'x' | '×' | ':') || is_dash(c[i])) {
        i += 1;
    }
    if i < end {
        let odd = c[i];
        let upper = odd.to_uppercase().next().unwrap_or(odd);
        let reason = if i == 0 && odd.is_lowercase() && lang.role_for_letter(upper).is_some() {
            format!("piece letters are uppercase: {upper}, not {odd}")
        } else {
            format!("unexpected {odd:?}")
        };
        return Err(malformed(reason));
    }

    if role.is_none() && !(from_file.is_some() && from_rank.is_some()) {
        // SAN without a piece letter is a pawn move; with a full from-square the square says.
        role = Some(Role::Pawn);
    }
    Ok(MoveSpec {
        role,
        from_file,
        from_rank,
        target: Target::Square(to),
        promotion,
        castling_by_rook_square: false,
    })
}

/// `O-O`, `0-0`, `o-o`, `O-O-O` with any dash or none; `None` when the text is not castling.
fn castling(
    c: &[char],
    malformed: &dyn Fn(String) -> MoveErrorKind,
) -> Result<Option<CastlingSide>, MoveErrorKind> {
    if !c
        .iter()
        .all(|&x| matches!(x, 'O' | 'o' | '0') || is_dash(x))
    {
        return Ok(None);
    }
    let mut letters = 0;
    let mut last_was_dash = true;
    for &x in c {
        if is_dash(x) {
            if last_was_dash {
                return Err(malformed("castling is O-O or O-O-O".to_owned()));
            }
            last_was_dash = true;
        } else {
            letters += 1;
            last_was_dash = false;
        }
    }
    match (letters, last_was_dash) {
        (2, false) => Ok(Some(CastlingSide::KingSide)),
        (3, false) => Ok(Some(CastlingSide::QueenSide)),
        _ => Err(malformed("castling is O-O or O-O-O".to_owned())),
    }
}

fn promotion_letters(lang: &Language) -> String {
    [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
        .iter()
        .map(|&r| lang.letter(r).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn promotion_piece(
    c: char,
    lang: &Language,
    malformed: &dyn Fn(String) -> MoveErrorKind,
) -> Result<Role, MoveErrorKind> {
    let role = figurine_role(c).or_else(|| {
        // After the destination square a lowercase letter can only be the new piece.
        let upper = c.to_uppercase().next().unwrap_or(c);
        lang.role_for_letter(c)
            .or_else(|| lang.role_for_letter(upper))
    });
    match role {
        Some(Role::King | Role::Pawn) => Err(malformed(format!(
            "a pawn cannot become a {}; promote to {}",
            if role == Some(Role::King) {
                "king"
            } else {
                "pawn"
            },
            promotion_letters(lang)
        ))),
        Some(r) => Ok(r),
        None => Err(malformed(format!(
            "{c} is not a promotion piece in {}; promote to {}",
            lang.name(),
            promotion_letters(lang)
        ))),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn lang(code: &str) -> &'static Language {
        Language::builtin(code).unwrap()
    }

    /// Renders a spec compactly: role letter (English, `?` for any), from-file/rank (`.` when
    /// absent), target, `=` promotion; `O-O`/`O-O-O` for castling.
    pub(crate) fn show(spec: &MoveSpec) -> String {
        let mut s = String::new();
        match spec.target {
            Target::Castle(side) => return castling_text(side).to_owned(),
            Target::Square(to) => {
                s.push(spec.role.map_or('?', |r| r.upper_char()));
                s.push(spec.from_file.map_or('.', |f| f.char()));
                s.push(spec.from_rank.map_or('.', |r| r.char()));
                push_square(&mut s, to);
            }
        }
        if let Some(p) = spec.promotion {
            s.push('=');
            s.push(p.upper_char());
        }
        s
    }

    fn check_in(code: &str, input: &str, expected: &str) {
        let got = match parse(input, lang(code)) {
            Ok(spec) => show(&spec),
            Err(e) => e.to_string(),
        };
        assert_eq!(got, expected, "{code} {input:?}");
    }

    fn check(input: &str, expected: &str) {
        check_in("en", input, expected);
    }

    #[test]
    fn plain_and_lenient_forms() {
        check("Nf3", "N..f3");
        check("e4", "P..e4");
        check("Pe4", "P..e4");
        check("exd5", "Pe.d5");
        check("ed5", "Pe.d5");
        check("e4d5", "?e4d5");
        check("e4xd5", "?e4d5");
        check("e4:d5", "?e4d5");
        check("xd5", "P..d5");
        check("Nge2", "Ng.e2");
        check("N1f3", "N.1f3");
        check("Ng1f3", "Ng1f3");
        check("Ng1-f3", "Ng1f3");
        check("Ng1–f3", "Ng1f3");
        check("Nxf3", "N..f3");
        check("N×f3", "N..f3");
        check("bxc6", "Pb.c6");
        check("Bb5", "B..b5");
    }

    #[test]
    fn suffixes_are_ignored() {
        for s in [
            "Nf3+", "Nf3++", "Nf3#", "Nf3‡", "Nf3!", "Nf3?", "Nf3!?", "Nf3?!", "Nf3!!", "Nf3??",
            "Nf3(=)", "Nf3 (=)", "Nf3+!", "Nf3 !?", "Nf3‼", "Nf3⁉", "Nf3+⁈", "Nf3 ⁇",
        ] {
            check(s, "N..f3");
        }
        for s in [
            "exd6 e.p.",
            "exd6e.p.",
            "exd6 ep",
            "exd6ep",
            "exd6 a.p.",
            "exd6 i.p.",
            "exd6 E.P.",
            "exd6 e.p.+",
            "exd6+ e.p.",
        ] {
            check(s, "Pe.d6");
        }
    }

    #[test]
    fn castling_forms() {
        for s in [
            "O-O", "0-0", "o-o", "OO", "O-O+", "0-0#", "O‑O", "O–O", "O—O", "O−O",
        ] {
            check(s, "O-O");
        }
        for s in ["O-O-O", "0-0-0", "o-o-o", "O-O-O+", "0–0–0"] {
            check(s, "O-O-O");
        }
        check(
            "O-O-O-O",
            "not a move in SAN notation: castling is O-O or O-O-O",
        );
        check(
            "O--O",
            "not a move in SAN notation: castling is O-O or O-O-O",
        );
        check("O-", "not a move in SAN notation: castling is O-O or O-O-O");
    }

    #[test]
    fn promotions() {
        for s in [
            "e8=Q", "e8Q", "e8(Q)", "e8/Q", "e8=q", "e8q", "e8=♕", "e8♛", "e8=Q+",
        ] {
            check(s, "P..e8=Q");
        }
        check("exd8b", "Pe.d8=B");
        check("exd8=N#", "Pe.d8=N");
        check("e7e8q", "?e7e8=Q");
        check("e7-e8=R", "?e7e8=R");
        check_in("de", "e8D", "P..e8=Q");
        check_in("de", "e8=S", "P..e8=N");
        check_in("de", "e8l", "P..e8=B");
        check_in("es", "e8=D", "P..e8=Q");
        check_in("es", "e8=A", "P..e8=B");
        check_in("fr", "e8=F", "P..e8=B");
        check(
            "e8=K",
            "not a move in SAN notation: a pawn cannot become a king; promote to Q, R, B, N",
        );
        check(
            "e8=X",
            "not a move in SAN notation: X is not a promotion piece in English; \
             promote to Q, R, B, N",
        );
        check(
            "e8=",
            "not a move in SAN notation: = must be followed by the new piece (Q, R, B, N)",
        );
        check_in(
            "de",
            "e8=Q",
            "not a move in SAN notation: Q is not a promotion piece in Deutsch; \
             promote to D, T, L, S",
        );
    }

    #[test]
    fn languages_and_figurines() {
        check_in("de", "Sf3", "N..f3");
        check_in("de", "Lb5", "B..b5");
        check_in("de", "Be4", "P..e4");
        check_in("es", "Cf3", "N..f3");
        check_in("es", "Rg1", "K..g1");
        check_in("fr", "Fb5", "B..b5");
        check_in("nl", "Pf3", "N..f3");
        check_in("nl", "Oe4", "P..e4");
        check_in("nl", "O-O", "O-O");
        check_in("it", "Ac4", "B..c4");
        check_in("pt", "Bc4", "B..c4");
        for s in ["♘f3", "♞f3", "♘g1f3", "♞xf3"] {
            check_in("de", s, if s.contains('g') { "Ng1f3" } else { "N..f3" });
        }
        check("♙e4", "P..e4");
        check("♔e2", "K..e2");
    }

    #[test]
    fn errors_say_why() {
        let not = |s: &str| format!("not a move in SAN notation: {s}");
        check_in(
            "de",
            "Nf3",
            &not("N is not a piece letter in Deutsch (K D T L S; B for a pawn)"),
        );
        check("nf3", &not("piece letters are uppercase: N, not n"));
        check("E4", &not("files are lowercase: e4, not E4"));
        check("NE4", &not("files are lowercase: e4, not E4"));
        check(
            "Xe4",
            &not("X is not a piece letter in English (K Q R B N; P for a pawn)"),
        );
        check("e9", "no such square \"e9\"");
        check("Ni3", "no such square \"i3\"");
        check("e0", "no such square \"e0\"");
        check(
            "ed",
            &not("no destination square (like e4) at the end, found \"ed\""),
        );
        check("4", &not("no destination square (like e4)"));
        check("+", &not("only annotation marks, no move"));
        check("Nf3 Nc6", &not("unexpected ' '"));
        check("--", &not("castling is O-O or O-O-O"));
        check(
            "Nf3)",
            &not("a closing bracket only follows a promotion piece, as in e8(Q)"),
        );
        check(
            "Nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbf3",
            &not("too long for a move (more than 16 characters)"),
        );
        check("NN f3", &not("unexpected 'N'"));
    }

    #[test]
    fn strip_suffixes_cases() {
        for (input, out) in [
            ("exd6 e.p.", "exd6"),
            ("exd6e.p.", "exd6"),
            ("exd6ep", "exd6"),
            ("Nf3+!?", "Nf3"),
            ("Nf3 (=)", "Nf3"),
            ("Nf3  ", "Nf3"),
            ("e.p.", "e.p."),
            ("step", "step"),
            (
                "Bauer e fünf schlägt d sechs",
                "Bauer e fünf schlägt d sechs",
            ),
            ("+++", ""),
            ("", ""),
        ] {
            assert_eq!(strip_suffixes(input), out, "{input:?}");
        }
    }

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn formats_in_the_styles_letters() {
        let p = pos("r3k2r/1P6/8/8/8/8/8/R3K1NR w KQkq - 0 1");
        let find = |uci: &str| {
            let u: shakmaty::uci::UciMove = uci.parse().unwrap();
            u.to_move(&p).unwrap()
        };
        let fmt = |code: &str, figurines: bool, uci: &str| {
            let mut style = Style::new(lang(code));
            style.figurines = figurines;
            format(&p, find(uci), &style)
        };
        assert_eq!(fmt("en", false, "g1f3"), "Nf3");
        assert_eq!(fmt("de", false, "g1f3"), "Sf3");
        assert_eq!(fmt("es", false, "g1f3"), "Cf3");
        assert_eq!(fmt("en", true, "g1f3"), "♘f3");
        assert_eq!(fmt("en", false, "e1c1"), "O-O-O");
        assert_eq!(fmt("en", false, "b7a8q"), "bxa8=Q+");
        assert_eq!(fmt("de", false, "b7a8q"), "bxa8=D+");
        assert_eq!(fmt("fr", false, "b7b8n"), "b8=C");
        assert_eq!(fmt("en", true, "b7a8r"), "bxa8=♖+");
        assert_eq!(fmt("en", false, "a1a8"), "Rxa8+");
    }
}
