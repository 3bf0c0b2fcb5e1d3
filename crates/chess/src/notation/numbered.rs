//! A move written with its number, as correspondence players and scoresheets write it: `16. 4244` (White's 16th), `16... 4842` or `16...4842` (Black's 16th), `16. 4244 4842` (both).

use shakmaty::Color;

/// A move text's number, if it has one, and what follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbered<'a> {
    /// The move number and whose move it names first (`16.` White, `16...` Black); `None` for
    /// a move written without a number.
    pub number: Option<(u32, Color)>,
    /// The text after the number (the whole text without one), trimmed.
    pub rest: &'a str,
}

/// The largest move number read: a game of [`crate::game::MAX_PLIES`] half-moves.
const MAX_NUMBER: u32 = crate::game::MAX_PLIES as u32 / 2 + 1;

/// Splits a leading move number off `text`: digits, then `.` for White or `...` (or `…`) for
/// Black, with or without a space before the move. A text that does not start with digits and
/// dots is returned whole; digits without a dot are a move (ICCF `5254`), not a number.
pub fn split_number(text: &str) -> Result<Numbered<'_>, String> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let after = &t[digits..];
    let (color, rest) = if let Some(r) = after
        .strip_prefix("...")
        .or_else(|| after.strip_prefix('…'))
    {
        (Color::Black, r)
    } else if let Some(r) = after.strip_prefix('.') {
        // `16..` is a typing slip for either; read as Black's, as it is written after White's.
        match r.strip_prefix('.') {
            Some(r2) => (Color::Black, r2),
            None => (Color::White, r),
        }
    } else {
        return Ok(Numbered {
            number: None,
            rest: t,
        });
    };
    if digits == 0 {
        return Ok(Numbered {
            number: None,
            rest: t,
        });
    }
    let number: u32 = t[..digits]
        .parse()
        .ok()
        .filter(|n| (1..=MAX_NUMBER).contains(n))
        .ok_or_else(|| {
            format!(
                "move number {} is out of range: 1 to {MAX_NUMBER}",
                &t[..digits.min(12)]
            )
        })?;
    let rest = rest.trim();
    if rest.is_empty() {
        return Err(format!("{t:?}: a move number without a move after it"));
    }
    Ok(Numbered {
        number: Some((number, color)),
        rest,
    })
}

/// "move 16 is black's; the game is at move 17 for white": why a numbered move does not fit
/// the game.
pub fn wrong_number(written: (u32, Color), game: (u32, Color)) -> String {
    let name = |c: Color| match c {
        Color::White => "white",
        Color::Black => "black",
    };
    format!(
        "move {} is {}'s; the game is at move {} for {}",
        written.0,
        name(written.1),
        game.0,
        name(game.1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> (Option<(u32, Color)>, String) {
        let s = split_number(text).unwrap();
        (s.number, s.rest.to_owned())
    }

    #[test]
    fn every_way_of_writing_the_number() {
        assert_eq!(n("16. 4244"), (Some((16, Color::White)), "4244".into()));
        assert_eq!(n("16.4244"), (Some((16, Color::White)), "4244".into()));
        assert_eq!(n("16... 4842"), (Some((16, Color::Black)), "4842".into()));
        assert_eq!(n("16...4842"), (Some((16, Color::Black)), "4842".into()));
        assert_eq!(n("16… Sf3"), (Some((16, Color::Black)), "Sf3".into()));
        assert_eq!(
            n("16. 4244 4842"),
            (Some((16, Color::White)), "4244 4842".into())
        );
        assert_eq!(
            n(" 3. Springer Felix drei "),
            (Some((3, Color::White)), "Springer Felix drei".into())
        );
        // No number: the text is the move.
        assert_eq!(n("5254"), (None, "5254".into()));
        assert_eq!(n("e4"), (None, "e4".into()));
        assert_eq!(n("O-O"), (None, "O-O".into()));
    }

    #[test]
    fn a_bad_number_says_what_is_wrong() {
        assert!(split_number("16.").unwrap_err().contains("without a move"));
        assert!(split_number("0. e4").unwrap_err().contains("out of range"));
        assert!(
            split_number("99999999999999999999. e4")
                .unwrap_err()
                .contains("out of range")
        );
        assert_eq!(
            wrong_number((16, Color::Black), (17, Color::White)),
            "move 16 is black's; the game is at move 17 for white"
        );
    }
}
