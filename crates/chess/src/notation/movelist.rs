//! Splits a typed or pasted move list into games and move tokens (move numbers, results, notes dropped).
//!
//! People paste scores in two shapes, and both must read back:
//! - numbered movetext, PGN-like or ICCF (`1. 5254 5755` / `2. 7163 2836`), where lines flow
//!   into one game until a blank line, a result, or a new game starting again at move 1;
//! - one game per line without move numbers, which is what `annabella convert` writes.
//!
//! So a line that holds a move number continues the game; a line without one is a game of its
//! own (unless it starts inside a comment or variation that a numbered line opened). Comments do
//! not span blank lines: a blank line always ends a game, so one unclosed `{` cannot swallow the
//! rest of a file, and the game it swallowed moves of is marked ([`GameText::unclosed`]). Everything here is one pass over the text (linear time, no recursion), and
//! over-long tokens are passed through for [`super::parse_move`] to refuse.

/// One move's text and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveToken {
    pub text: String,
    pub line: usize,
    /// The move number written just before this move, with a dot (`16.` White's, `16...`
    /// Black's), for the reader to check against the game; `None` for the moves after it and
    /// for ICCF's bare numbers, which say no colour.
    pub number: Option<(u32, shakmaty::Color)>,
}

/// One game's moves and the line of its first move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameText {
    pub moves: Vec<MoveToken>,
    pub line: usize,
    /// A comment or variation still open when the game ended: whatever followed its bracket
    /// was swallowed, so the game as written is incomplete.
    pub unclosed: Option<Unclosed>,
}

/// A `{` or `(` that a blank line or the end of the text reached before its closing bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unclosed {
    /// `{` for a comment, `(` for a variation.
    pub bracket: char,
    /// The 1-based line of the bracket.
    pub line: usize,
}

/// Most move tokens kept for one game. A longer game is refused anyway (the limit of
/// [`crate::game::MAX_PLIES`] half-moves), and keeping every token of one enormous
/// pasted line would let a few megabytes of text fill memory.
pub const MAX_TOKENS_PER_GAME: usize = crate::game::MAX_PLIES + 1;

/// Splits `text` into games. With `one_move_per_line` (spoken input, whose moves contain
/// spaces) every non-empty line is one move, a leading `12.` stripped; a blank line or a result
/// ends a game.
pub fn split_games(text: &str, one_move_per_line: bool) -> Vec<GameText> {
    let mut all = Vec::new();
    for_each_game(text, one_move_per_line, |g| all.push(g));
    all
}

/// Like [`split_games`], but hands each game to `each` as soon as it ends, so that a large
/// text is converted without holding every game in memory. A game keeps at most
/// [`MAX_TOKENS_PER_GAME`] tokens.
pub fn for_each_game(text: &str, one_move_per_line: bool, mut each: impl FnMut(GameText)) {
    // Editors on Windows start UTF-8 files with a byte-order mark; it is not part of the first
    // token (it would hide the first move number and split the game).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut games = Games {
        sink: &mut each,
        current: Vec::new(),
        max_number: 0,
        unclosed: None,
        number: None,
    };
    if one_move_per_line {
        for (index, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || is_result(t) {
                games.finish();
                continue;
            }
            let (number, rest) = strip_move_number(t);
            let rest = rest.trim_start();
            if !rest.is_empty() {
                games.number = match number {
                    Some(Event::Number {
                        n,
                        black,
                        bare: false,
                    }) => Some((
                        n,
                        if black {
                            shakmaty::Color::Black
                        } else {
                            shakmaty::Color::White
                        },
                    )),
                    _ => None,
                };
                games.push(rest, index + 1);
            }
        }
        games.finish();
        return;
    }

    let mut state = Scan::default();
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        if line.trim().is_empty() {
            games.unclosed = state.unclosed();
            games.finish();
            state = Scan::default();
            continue;
        }
        let started_inside = state.in_comment || state.depth > 0;
        // A first look decides whether the line is a game of its own; the events are not kept,
        // since one pasted line can hold millions of them.
        let (mut numbered, mut has_move) = (false, false);
        state
            .clone()
            .scan_line(line, line_no, &mut |event| match event {
                Event::Number { .. } => numbered = true,
                Event::Move(_) => has_move = true,
                _ => {}
            });
        let own_game = !numbered && !started_inside && has_move;
        if own_game {
            games.finish();
        }
        state.scan_line(line, line_no, &mut |event| match event {
            Event::Number { n, black, bare } => {
                let restart = n == 1
                    && !games.current.is_empty()
                    && ((!black && !bare) || (bare && games.max_number > 1));
                if restart {
                    games.finish();
                }
                games.max_number = games.max_number.max(n);
                games.number = (!bare).then_some((
                    n,
                    if black {
                        shakmaty::Color::Black
                    } else {
                        shakmaty::Color::White
                    },
                ));
            }
            Event::Move(t) => games.push(t, line_no),
            Event::EnPassant(t) => {
                if let Some(last) = games.current.last_mut() {
                    last.text.push(' ');
                    last.text.push_str(t);
                }
            }
            Event::Result => games.finish(),
        });
        if own_game {
            games.finish();
        }
    }
    games.unclosed = state.unclosed();
    games.finish();
}

/// Whether `text` has a move line and every move line (move numbers, results and blank lines
/// aside) satisfies `is_phrase`: how `convert --from auto` tells a list of spoken moves, one a
/// line, from a written move list. Stops at the first line that is not a phrase.
pub fn every_move_line(text: &str, is_phrase: impl Fn(&str) -> bool) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut any = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || is_result(line) {
            continue;
        }
        let rest = strip_move_number(line).1.trim_start();
        if rest.is_empty() {
            continue;
        }
        if !is_phrase(rest) {
            return false;
        }
        any = true;
    }
    any
}

struct Games<'a> {
    /// Where finished games go.
    sink: &'a mut dyn FnMut(GameText),
    current: Vec<MoveToken>,
    /// Highest move number seen in the current game (tells ICCF's black-only `1 5755` from a
    /// new game's `1 5254`).
    max_number: u32,
    /// Set just before a game ends inside a comment or variation.
    unclosed: Option<Unclosed>,
    /// The dotted number read last, for the move that follows it.
    number: Option<(u32, shakmaty::Color)>,
}

impl Games<'_> {
    fn push(&mut self, text: &str, line: usize) {
        if self.current.len() >= MAX_TOKENS_PER_GAME {
            return;
        }
        self.current.push(MoveToken {
            text: text.to_owned(),
            line,
            number: self.number.take(),
        });
    }

    /// Ends the current game. A game of no moves is no game, unless a bracket left open
    /// swallowed its moves: that is reported, not dropped in silence.
    fn finish(&mut self) {
        let unclosed = self.unclosed.take();
        let line = match (self.current.first(), unclosed) {
            (Some(first), _) => first.line,
            (None, Some(u)) => u.line,
            (None, None) => {
                self.max_number = 0;
                return;
            }
        };
        (self.sink)(GameText {
            moves: std::mem::take(&mut self.current),
            line,
            unclosed,
        });
        self.max_number = 0;
        self.number = None;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event<'a> {
    Move(&'a str),
    /// A move number: `black` for `1...`/`1…`, `bare` for a number without a dot (ICCF `1 5755`).
    Number {
        n: u32,
        black: bool,
        bare: bool,
    },
    EnPassant(&'a str),
    Result,
}

/// Comment and variation state carried from one line to the next.
#[derive(Default, Clone)]
struct Scan {
    in_comment: bool,
    depth: usize,
    /// Lines of the open comment's `{` and of the outermost open variation's `(`.
    comment_line: usize,
    variation_line: usize,
}

impl Scan {
    /// The bracket still open, if any (the comment first: it is the innermost).
    fn unclosed(&self) -> Option<Unclosed> {
        if self.in_comment {
            Some(Unclosed {
                bracket: '{',
                line: self.comment_line,
            })
        } else if self.depth > 0 {
            Some(Unclosed {
                bracket: '(',
                line: self.variation_line,
            })
        } else {
            None
        }
    }

    fn scan_line<'a>(&mut self, line: &'a str, line_no: usize, events: &mut dyn FnMut(Event<'a>)) {
        let mut i = 0;
        while let Some(c) = line[i..].chars().next() {
            let next = i + c.len_utf8();
            if self.in_comment {
                if c == '}' {
                    self.in_comment = false;
                }
                i = next;
                continue;
            }
            if self.depth > 0 {
                match c {
                    '(' => self.depth += 1,
                    ')' => self.depth -= 1,
                    '{' => {
                        self.in_comment = true;
                        self.comment_line = line_no;
                    }
                    ';' => return,
                    _ => {}
                }
                i = next;
                continue;
            }
            match c {
                _ if c.is_whitespace() => i = next,
                '{' => {
                    self.in_comment = true;
                    self.comment_line = line_no;
                    i = next;
                }
                ';' => return,
                '(' => {
                    if line[i..].starts_with("(=)") {
                        i += 3;
                    } else {
                        self.depth = 1;
                        self.variation_line = line_no;
                        i = next;
                    }
                }
                ')' | '}' => i = next,
                '$' => {
                    i = next;
                    i += line[i..].bytes().take_while(u8::is_ascii_digit).count();
                }
                _ => {
                    let end = token_end(line, i);
                    classify(&line[i..end], events);
                    i = end;
                }
            }
        }
    }
}

/// Where the token starting at `start` ends: at whitespace or a comment, variation or NAG
/// start, except that a glued `(Q)` after a rank is a promotion and stays in the token.
fn token_end(line: &str, start: usize) -> usize {
    let mut i = start;
    while let Some(c) = line[i..].chars().next() {
        match c {
            _ if c.is_whitespace() => return i,
            '{' | '}' | ';' | '$' | ')' => return i,
            '(' => {
                let after_rank = line[start..i].ends_with(|p: char| p.is_ascii_digit());
                let mut inner = line[i + 1..].chars();
                match (inner.next(), inner.next()) {
                    (Some(p), Some(')')) if after_rank && p != '=' && !p.is_whitespace() => {
                        i += 1 + p.len_utf8() + 1;
                    }
                    _ => return i,
                }
            }
            _ => i += c.len_utf8(),
        }
    }
    i
}

fn classify<'a>(token: &'a str, events: &mut dyn FnMut(Event<'a>)) {
    if is_result(token) {
        events(Event::Result);
        return;
    }
    let mut t = token;
    // Glued numbers (`1.e4`, `1...e5`, `12…Nf6`), however many.
    loop {
        let (number, rest) = strip_move_number(t);
        match number {
            Some(event) => {
                events(event);
                t = rest;
            }
            None => break,
        }
    }
    if t.is_empty() {
        return;
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == t.len() && digits <= 3 {
        // A bare move number, as ICCF writes a black move alone (`1 5755`).
        events(Event::Number {
            n: saturating_number(t),
            black: false,
            bare: true,
        });
    } else if is_en_passant(super::san::strip_suffixes(t)) {
        events(Event::EnPassant(t));
    } else if !is_annotation(t) && !t.chars().all(|c| matches!(c, '.' | '…')) {
        events(Event::Move(t));
    }
}

/// A leading `12.`, `12...` or `12…` and the text after it.
fn strip_move_number(t: &str) -> (Option<Event<'static>>, &str) {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return (None, t);
    }
    let rest = &t[digits..];
    let after = rest.trim_start_matches(['.', '…']);
    let dots = &rest[..rest.len() - after.len()];
    if dots.is_empty() {
        return (None, t);
    }
    let black = dots.contains('…') || dots.len() > 1;
    let event = Event::Number {
        n: saturating_number(&t[..digits]),
        black,
        bare: false,
    };
    (Some(event), after)
}

fn saturating_number(digits: &str) -> u32 {
    digits.bytes().fold(0u32, |n, d| {
        n.saturating_mul(10).saturating_add(u32::from(d - b'0'))
    })
}

/// `1-0`, `0-1`, `1/2-1/2`, `½-½` (any dash), `*`.
fn is_result(t: &str) -> bool {
    const RESULTS: [&str; 5] = ["1-0", "0-1", "1/2-1/2", "½-½", "*"];
    RESULTS.iter().any(|r| {
        let mut a = t.chars();
        let mut b = r.chars();
        loop {
            match (a.next(), b.next()) {
                (None, None) => return true,
                (Some(x), Some(y)) if x == y || (y == '-' && super::san::is_dash(x)) => {}
                _ => return false,
            }
        }
    })
}

fn is_en_passant(t: &str) -> bool {
    ["e.p.", "e.p", "ep", "a.p.", "a.p", "i.p.", "i.p"]
        .iter()
        .any(|m| t.eq_ignore_ascii_case(m))
}

/// Check, mate, move and position assessments written apart from the move (`!?`, `+`, `+-`).
fn is_annotation(t: &str) -> bool {
    let marks = |c: char| {
        matches!(
            c,
            '+' | '#'
                | '‡'
                | '†'
                | '!'
                | '?'
                | '‼'
                | '⁇'
                | '⁉'
                | '⁈'
                | '='
                | '±'
                | '∓'
                | '∞'
                | '□'
                | '⩲'
                | '⩱'
                | '⨀'
                | '⟳'
                | '↑'
                | '→'
                | '⇆'
                | '∆'
                | '⊥'
        )
    };
    // `-` and `/` only inside assessments like `+-` or `+/-`; `--` alone is a null move.
    t.chars().any(marks) && t.chars().all(|c| marks(c) || c == '-' || c == '/')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `expected`: games separated by " | ", moves by spaces, en passant glued with `_`.
    fn check_mode(input: &str, one_move_per_line: bool, expected: &str) {
        let got = split_games(input, one_move_per_line)
            .iter()
            .map(|g| {
                g.moves
                    .iter()
                    .map(|m| m.text.replace(' ', "_"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join(" | ");
        assert_eq!(got, expected, "{input:?}");
    }

    fn check(input: &str, expected: &str) {
        check_mode(input, false, expected);
    }

    #[test]
    fn move_numbers_are_dropped() {
        check("1. e4 e5 2. Nf3", "e4 e5 Nf3");
        check("1.e4 e5 2.Nf3 Nc6", "e4 e5 Nf3 Nc6");
        check("1.e4 1...e5", "e4 e5");
        check("1. e4 1... e5", "e4 e5");
        check("1…e5", "e5");
        check("12. Nf3 12… Nc6", "Nf3 Nc6");
        check("1. ... e5", "e5");
        check("1 5254 5755", "5254 5755");
        check("1.5254 5755", "5254 5755");
        check("e4 e5 Nf3", "e4 e5 Nf3");
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_token() {
        check("\u{feff}1. e4 e5\r\n2. Nf3", "e4 e5 Nf3");
        check("\u{feff}e4 e5", "e4 e5");
        check_mode("\u{feff}1. Eva vier\nEva fünf", true, "Eva_vier Eva_fünf");
    }

    #[test]
    fn results_comments_variations_and_nags_are_dropped() {
        check("1. e4 e5 1-0", "e4 e5");
        check("1. e4 e5 0-1 1. d4", "e4 e5 | d4");
        check("1. e4 1/2-1/2", "e4");
        check("1. e4 ½–½", "e4");
        check("1. e4 *", "e4");
        check("1. e4 {best by test} e5", "e4 e5");
        check("1. e4{glued}e5", "e4 e5");
        check("1. e4 ; a remark\n2. Nf3", "e4 Nf3");
        check("1. e4 (1. d4 d5 (1... Nf6)) e5", "e4 e5");
        check("1. e4 ({a (paren} 1. d4) e5", "e4 e5");
        check("1. e4 $1 e5 $2", "e4 e5");
        check("1. e4$1 e5", "e4 e5");
        check("1. e4 !? e5 ?! 2. Nf3 + (=)", "e4 e5 Nf3");
        check("1. e4 +- e5", "e4 e5");
        check("1. e4 ‼ e5 ⟳ 2. Nf3 ⁉", "e4 e5 Nf3");
        check("0-0 0-0-0 O-O", "0-0 0-0-0 O-O");
        check("--", "--");
    }

    #[test]
    fn en_passant_stays_with_its_move() {
        check("exd6 e.p.", "exd6_e.p.");
        check("1. e5 d5 2. exd6 e.p. Qxd6", "e5 d5 exd6_e.p. Qxd6");
        check("exd6 ep", "exd6_ep");
        check("exd6 a.p.+", "exd6_a.p.+");
        // A marker alone on the next line has no move to join in a line-per-game list.
        check("exd6\ne.p.", "exd6");
        check("e.p. e4", "e4");
    }

    #[test]
    fn promotions_in_brackets_stay_whole() {
        check("e8(Q) Kd7", "e8(Q) Kd7");
        check("exd8(N)+ Kd7", "exd8(N)+ Kd7");
        check("e8 (Q) Kd7", "e8 Kd7");
        check("e8(=) Kd7", "e8 Kd7");
        check("1. e4 e5(2. d4) 2. Nf3", "e4 e5 Nf3");
    }

    #[test]
    fn games_are_split() {
        // Numbered lines flow together (the cheesse ICCF score).
        check(
            "1. 5254 5755\n2. 7163 2836\n3. 6125 1716",
            "5254 5755 7163 2836 6125 1716",
        );
        // Lines without move numbers are one game each.
        check("e4 e5 Nf3\nd4 d5", "e4 e5 Nf3 | d4 d5");
        check("5254 5755\n5254 5756", "5254 5755 | 5254 5756");
        // A blank line separates.
        check("1. e4 e5\n\n1. d4 d5", "e4 e5 | d4 d5");
        check("1. e4\n  \n2. e5", "e4 | e5");
        // A new game starting at move 1.
        check("1. e4 e5 2. Nf3\n1. d4 d5", "e4 e5 Nf3 | d4 d5");
        check("1. e4\n1... e5\n2. Nf3", "e4 e5 Nf3");
        // ICCF's black move alone continues; a bare 1 after move 8 starts anew.
        check("1. 5254\n1 5755\n2. 7163", "5254 5755 7163");
        check(
            "7. 1423 4746\n8. 3233 5878\n1 5254 5755",
            "1423 4746 3233 5878 | 5254 5755",
        );
        // A result line ends, the next numbered line begins a new game.
        check("1. e4 e5 1-0\n1. d4 d5", "e4 e5 | d4 d5");
        // Comment-only lines and lines continuing a comment do not split.
        check("1. e4 e5\n{a comment}\n2. Nf3", "e4 e5 Nf3");
        check("1. e4 {a long\ncomment} e5\n2. Nf3", "e4 e5 Nf3");
        check("1. e4 (1. d4\nd5) e5\n2. Nf3", "e4 e5 Nf3");
        // A blank line closes an unterminated comment (and the game it swallowed is marked).
        check("1. e4 {oops\n\ne4 e5", "e4 | e4 e5");
        check("", "");
        check("\n\n", "");
        check("1-0\n*", "");
    }

    #[test]
    fn a_bracket_left_open_is_reported_with_its_line() {
        let open = |text: &str| -> Vec<Option<(char, usize)>> {
            split_games(text, false)
                .iter()
                .map(|g| g.unclosed.map(|u| (u.bracket, u.line)))
                .collect()
        };
        assert_eq!(open("1. e4 {oops\n\ne4 e5"), [Some(('{', 1)), None]);
        assert_eq!(open("1. e4 (1. d4\n2. Nf3 e5"), [Some(('(', 1))]);
        assert_eq!(open("1. e4 e5\n2. Nf3 ((1... d5) {x\n"), [Some(('{', 2))]);
        assert_eq!(open("1. e4 (1. d4 d5) e5 {fine}"), [None]);
        // A bracket that swallowed every move still makes a game, so that it is reported.
        let games = split_games("1. e4 e5\n\n{ 1. d4 d5\n", false);
        assert_eq!(games.len(), 2);
        assert!(games[1].moves.is_empty());
        assert_eq!(games[1].line, 3);
        assert_eq!(
            games[1].unclosed,
            Some(Unclosed {
                bracket: '{',
                line: 3
            })
        );
    }

    #[test]
    fn lines_and_game_lines_are_reported() {
        let games = split_games("\n1. e4 e5\n2. Nf3\n\nd4 d5", false);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].line, 2);
        assert_eq!(
            games[0].moves.iter().map(|m| m.line).collect::<Vec<_>>(),
            [2, 2, 3]
        );
        assert_eq!(games[1].line, 5);
    }

    #[test]
    fn one_move_per_line() {
        check_mode(
            "1. Springer g eins f drei\nSpringer b acht c sechs\n\nBauer e vier",
            true,
            "Springer_g_eins_f_drei Springer_b_acht_c_sechs | Bauer_e_vier",
        );
        check_mode("1.e4\n1... e5\n1-0\nd4", true, "e4 e5 | d4");
        check_mode("12.\n  \n", true, "");
    }

    #[test]
    fn every_move_line_skips_numbers_results_and_blank_lines() {
        let two_words = |l: &str| l.split_whitespace().count() == 2;
        assert!(every_move_line(
            "Eva vier\n1... Eva fünf\n\n1-0\n12.\n",
            two_words
        ));
        assert!(!every_move_line("Eva vier\ne4\n", two_words));
        assert!(!every_move_line("\n1-0\n*\n", two_words));
        assert!(!every_move_line("", two_words));
    }

    #[test]
    fn a_game_keeps_at_most_the_token_limit() {
        let text = "Nf3 ".repeat(MAX_TOKENS_PER_GAME + 500);
        let games = split_games(&text, false);
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves.len(), MAX_TOKENS_PER_GAME);
        let spoken = "Eva vier\n".repeat(MAX_TOKENS_PER_GAME + 1);
        assert_eq!(
            split_games(&spoken, true)[0].moves.len(),
            MAX_TOKENS_PER_GAME
        );
        // Streaming hands over the same games as splitting.
        let mut streamed = Vec::new();
        for_each_game("e4 e5\n\n1. d4 d5\n2. c4", false, |g| streamed.push(g));
        assert_eq!(streamed, split_games("e4 e5\n\n1. d4 d5\n2. c4", false));
    }

    #[test]
    fn long_tokens_pass_through() {
        let long = "x".repeat(10_000);
        let games = split_games(&long, false);
        assert_eq!(games[0].moves[0].text.len(), 10_000);
        // Deeply nested brackets and many glued numbers stay linear and recursion-free.
        let nested = "(".repeat(100_000);
        let games = split_games(&nested, false);
        assert_eq!(games.len(), 1);
        assert!(games[0].moves.is_empty());
        assert_eq!(games[0].unclosed.map(|u| u.bracket), Some('('));
        let numbers = "1.".repeat(100_000);
        assert!(split_games(&numbers, false).is_empty());
    }
}
