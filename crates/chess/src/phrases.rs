//! Game events, times, numbers and board corrections turned into pronounceable words.
//!
//! Everything here returns text for a speech synthesizer, so nothing a voice could misread gets
//! through: squares are file and rank names ("Felix drei"), never "f3"; numbers are words
//! ("zwölf Minuten"), never "12:00", which voices read as a time of day. The words come from the
//! language file ([`Vocabulary`]). A move's own words are the spoken notation's
//! ([`crate::notation::spoken`], which also reads them back); they are re-exported here as
//! [`move_phrase`] and [`promotion_choices`], beside the rest of what a table says.

use shakmaty::{Color, Piece, Role, Square};

use crate::vocabulary::{Vocabulary, fill};

/// A move's words are those of the spoken notation, which reads them back too.
pub use crate::notation::spoken::{format as move_phrase, promotion_choices};

/// A square as spoken: "Felix drei".
pub fn square_phrase(square: Square, v: &Vocabulary) -> String {
    format!("{} {}", v.file(square.file()), v.rank(square.rank()))
}

/// Which form of a number a noun wants (Spanish "veintiún minutos", Portuguese "duas horas").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Plain,
    Masculine,
    Feminine,
}

/// A number in words, as counted ("einundzwanzig", "hundertzwölf").
pub fn number_phrase(n: u32, v: &Vocabulary) -> String {
    number(u64::from(n), Form::Plain, v)
}

fn number(n: u64, form: Form, v: &Vocabulary) -> String {
    let words = v.numbers();
    if n < 100 {
        let overrides = match form {
            Form::Plain => None,
            Form::Masculine => Some(&words.masculine),
            Form::Feminine => Some(&words.feminine),
        };
        let key = n.to_string();
        return overrides
            .and_then(|o| o.get(&key))
            .or_else(|| words.units.get(n as usize))
            .cloned()
            .unwrap_or(key);
    }
    if n < 1000 {
        let (h, rest) = ((n / 100) as usize - 1, n % 100);
        let list = match (&words.hundreds_exact, rest) {
            (Some(exact), 0) => exact,
            _ => &words.hundreds,
        };
        let head = list.get(h).cloned().unwrap_or_default();
        return if rest == 0 {
            head
        } else {
            format!("{head}{}{}", words.hundreds_join, number(rest, form, v))
        };
    }
    let (unit, one, many) = if n < 1_000_000 {
        (1000, &words.thousand_one, &words.thousands)
    } else {
        (1_000_000, &words.million_one, &words.millions)
    };
    let (count, rest) = (n / unit, n % unit);
    let head = if count == 1 {
        one.clone()
    } else {
        fill_count(many, count, v)
    };
    if rest == 0 {
        head
    } else {
        format!("{head}{}{}", words.thousands_join, number(rest, form, v))
    }
}

/// Fills `{n}`, `{n_m}` and `{n_f}` of a count template.
pub fn fill_count(template: &str, n: u64, v: &Vocabulary) -> String {
    let plain = number(n, Form::Plain, v);
    let masculine = number(n, Form::Masculine, v);
    let feminine = number(n, Form::Feminine, v);
    fill(
        template,
        &[("n", &plain), ("n_m", &masculine), ("n_f", &feminine)],
    )
}

fn count(n: u64, one: &str, many: &str, v: &Vocabulary) -> String {
    fill_count(if n == 1 { one } else { many }, n, v)
}

/// A remaining time as a talking clock says it: seconds under a minute ("zweiundvierzig
/// Sekunden"), minutes and seconds under ten minutes ("zwei Minuten dreißig Sekunden"),
/// hours and minutes above ("eine Stunde zwölf Minuten"). Parts that are zero are left out.
///
/// Times are rounded down, so the player never hears more time than he has.
pub fn duration_phrase(ms: u64, v: &Vocabulary) -> String {
    let t = v.time();
    let seconds = ms / 1000;
    let pair =
        |first: String, second: String| fill(&t.pair, &[("first", &first), ("second", &second)]);
    if seconds < 60 {
        return count(seconds, &t.second_one, &t.seconds, v);
    }
    if seconds < 600 {
        let (m, s) = (seconds / 60, seconds % 60);
        let minutes = count(m, &t.minute_one, &t.minutes, v);
        return if s == 0 {
            minutes
        } else {
            pair(minutes, count(s, &t.second_one, &t.seconds, v))
        };
    }
    // A day or more (correspondence chess): days and hours.
    if let (Some(day_one), Some(days)) = (&t.day_one, &t.days)
        && seconds >= 86_400
    {
        let (d, h) = (seconds / 86_400, seconds / 3600 % 24);
        let days = count(d, day_one, days, v);
        return if h == 0 {
            days
        } else {
            pair(days, count(h, &t.hour_one, &t.hours, v))
        };
    }
    let (h, m) = (seconds / 3600, seconds / 60 % 60);
    let minutes = || count(m, &t.minute_one, &t.minutes, v);
    if h == 0 {
        return minutes();
    }
    let hours = count(h, &t.hour_one, &t.hours, v);
    if m == 0 {
        hours
    } else {
        pair(hours, minutes())
    }
}

/// A number of moves: "ein Zug", "zwanzig Züge".
pub fn move_count_phrase(moves: u32, v: &Vocabulary) -> String {
    let t = v.time();
    count(u64::from(moves), &t.move_one, &t.moves, v)
}

/// The clock report a blind player asks for (FIDE D.2.6): both remaining times and the
/// number of moves played.
pub fn clock_phrase(white_ms: u64, black_ms: u64, moves_played: u32, v: &Vocabulary) -> String {
    let white = duration_phrase(white_ms, v);
    let black = duration_phrase(black_ms, v);
    let moves = move_count_phrase(moves_played, v);
    fill(
        v.event("clock").unwrap_or("{white}, {black}, {moves}"),
        &[("white", &white), ("black", &black), ("moves", &moves)],
    )
}

/// Something that happens in a game, announced in words. Check and mate are not events:
/// they are spoken with the move ([`move_phrase`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    Stalemate,
    /// No sequence of legal moves can lead to mate (FIDE 5.2.2).
    DeadPosition,
    /// The dead position everybody knows: too little material to mate.
    InsufficientMaterial,
    FivefoldRepetition,
    SeventyFiveMoveRule,
    DrawAgreed,
    ThreefoldRepetitionClaim,
    FiftyMoveClaim,
    /// This colour resigns.
    Resigns(Color),
    /// This colour resigns, but the opponent could not mate by any legal sequence: a draw.
    ResignsOpponentCannotMate(Color),
    /// This colour's flag fell.
    LostOnTime(Color),
    /// This colour's flag fell, but the opponent could not mate by any legal sequence (6.9).
    FlagOpponentCannotMate(Color),
    Wins(Color),
    Draw,
    IllegalMove,
    /// A pawn stands on the last rank: which piece? (names the four choices)
    PromotionRequest,
    DrawOffer(Color),
    /// The opponent replicated the move correctly.
    MoveConfirmed,
    BoardDisconnected,
    BoardReconnected,
}

impl Event {
    /// Every event, both colours where it has one.
    pub fn all() -> Vec<Event> {
        use Event::*;
        let mut all = vec![
            Stalemate,
            DeadPosition,
            InsufficientMaterial,
            FivefoldRepetition,
            SeventyFiveMoveRule,
            DrawAgreed,
            ThreefoldRepetitionClaim,
            FiftyMoveClaim,
            Draw,
            IllegalMove,
            PromotionRequest,
            MoveConfirmed,
            BoardDisconnected,
            BoardReconnected,
        ];
        for color in Color::ALL {
            all.extend([
                Resigns(color),
                ResignsOpponentCannotMate(color),
                LostOnTime(color),
                FlagOpponentCannotMate(color),
                Wins(color),
                DrawOffer(color),
            ]);
        }
        all
    }

    /// The key of the event's template in `[words.events]`.
    pub fn key(self) -> &'static str {
        use Color::{Black, White};
        use Event::*;
        match self {
            Stalemate => "stalemate",
            DeadPosition => "dead_position",
            InsufficientMaterial => "insufficient_material",
            FivefoldRepetition => "fivefold_repetition",
            SeventyFiveMoveRule => "seventy_five_moves",
            DrawAgreed => "draw_agreed",
            ThreefoldRepetitionClaim => "threefold_repetition",
            FiftyMoveClaim => "fifty_moves",
            Resigns(White) => "white_resigns",
            Resigns(Black) => "black_resigns",
            ResignsOpponentCannotMate(White) => "white_resigns_draw",
            ResignsOpponentCannotMate(Black) => "black_resigns_draw",
            LostOnTime(White) => "white_lost_on_time",
            LostOnTime(Black) => "black_lost_on_time",
            FlagOpponentCannotMate(White) => "white_flag_draw",
            FlagOpponentCannotMate(Black) => "black_flag_draw",
            Wins(White) => "white_wins",
            Wins(Black) => "black_wins",
            Draw => "draw",
            IllegalMove => "illegal_move",
            PromotionRequest => "promotion_request",
            DrawOffer(White) => "white_offers_draw",
            DrawOffer(Black) => "black_offers_draw",
            MoveConfirmed => "move_confirmed",
            BoardDisconnected => "board_disconnected",
            BoardReconnected => "board_reconnected",
        }
    }
}

/// An event in words.
pub fn event_phrase(event: Event, v: &Vocabulary) -> String {
    let template = v.event(event.key()).unwrap_or(event.key());
    let [queen, rook, bishop, knight] =
        [Role::Queen, Role::Rook, Role::Bishop, Role::Knight].map(|r| v.piece(r));
    fill(
        template,
        &[
            ("queen", queen),
            ("rook", rook),
            ("bishop", bishop),
            ("knight", knight),
        ],
    )
}

/// A correction of the board: move a piece ("Springer von Felix vier nach Felix drei").
pub fn correction_move(
    role: Role,
    color: Color,
    from: Square,
    to: Square,
    v: &Vocabulary,
) -> String {
    let (from, to) = (square_phrase(from, v), square_phrase(to, v));
    fill(
        v.event("correction_move").unwrap_or("{piece} {from} {to}"),
        &[
            ("piece", v.piece(role)),
            ("colored_piece", v.colored_piece(Piece { color, role })),
            ("from", &from),
            ("to", &to),
        ],
    )
}

/// A correction of a peg whose piece the holes cannot name (an occupancy board after
/// power-up, a peg put into the hole of a piece in his hand): the table says that it cannot
/// know which piece it is ("die Figur auf Eva vier, ich weiß nicht welche, nach Eva zwei"),
/// never a piece it only guesses.
pub fn correction_move_unknown(from: Square, to: Square, v: &Vocabulary) -> String {
    let (from, to) = (square_phrase(from, v), square_phrase(to, v));
    fill(
        v.event("correction_move_unknown").unwrap_or("{from} {to}"),
        &[("from", &from), ("to", &to)],
    )
}

/// A correction of the board: take a piece off ("Bauer Eva vier entfernen").
pub fn correction_remove(piece: Piece, square: Square, v: &Vocabulary) -> String {
    correction("correction_remove", piece, square, v)
}

/// A correction of the board: put the piece in the player's hand back where it came from
/// ("weißen Springer zurück auf Felix drei stellen").
pub fn correction_return(piece: Piece, square: Square, v: &Vocabulary) -> String {
    correction("correction_return", piece, square, v)
}

/// A correction of the board: take off a peg whose piece nobody knows ("die Figur auf Felix
/// drei, ich weiß nicht welche, entfernen"), never the square alone.
pub fn correction_remove_unknown(square: Square, v: &Vocabulary) -> String {
    let square = square_phrase(square, v);
    fill(
        v.event("correction_remove_unknown").unwrap_or("{square}"),
        &[("square", &square)],
    )
}

/// A correction of the board: put a piece on ("weißen Springer auf Felix drei stellen").
pub fn correction_place(piece: Piece, square: Square, v: &Vocabulary) -> String {
    correction("correction_place", piece, square, v)
}

fn correction(key: &str, piece: Piece, square: Square, v: &Vocabulary) -> String {
    let square = square_phrase(square, v);
    fill(
        v.event(key).unwrap_or("{colored_piece} {square}"),
        &[
            ("piece", v.piece(piece.role)),
            ("colored_piece", v.colored_piece(piece)),
            ("square", &square),
        ],
    )
}

/// Why a move made on a board is not accepted, as the player hears it (the detector's and the
/// table's reasons, named here so that the words stay in the language files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalReason {
    /// It is not this colour's move.
    WrongSide(Color),
    /// The move would leave (or put) the mover's king in check.
    KingInCheck {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// The piece does not move like that.
    CannotMove {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// Castling is not legal now.
    Castling,
    /// Pieces stand where no single legal move puts them.
    Displaced,
    /// The game is over.
    GameOver,
    /// Touch-move (FIDE 4.3): this piece was touched first and had to be moved.
    TouchedFirst { piece: Piece, square: Square },
    /// Touch-move (4.3): this opponent piece was touched and had to be captured.
    TouchedNotCaptured { piece: Piece, square: Square },
    /// Touch-move (4.4.1): king, then rook touched: castling had to be made.
    CastlingRequired,
    /// Touch-move (4.4.2): rook before king: no castling on that side.
    CastledAfterRook,
    /// The arbiter stopped the clocks.
    ClocksStopped,
}

/// Why a move is not accepted, in words: "der König stünde im Schach".
pub fn refusal_phrase(reason: RefusalReason, v: &Vocabulary) -> String {
    use RefusalReason::*;
    let template = |key: &str| v.event(key).unwrap_or(key).to_owned();
    let piece_move = |key: &str, piece: Piece, from: Square, to: Square| {
        let (from, to) = (square_phrase(from, v), square_phrase(to, v));
        fill(
            &template(key),
            &[
                ("piece", v.piece(piece.role)),
                ("colored_piece", v.colored_piece(piece)),
                ("from", &from),
                ("to", &to),
            ],
        )
    };
    let piece_on = |key: &str, piece: Piece, square: Square| {
        let square = square_phrase(square, v);
        fill(
            &template(key),
            &[
                ("piece", v.piece(piece.role)),
                ("colored_piece", v.colored_piece(piece)),
                ("the_piece", v.definite_piece(piece.role)),
                ("square", &square),
            ],
        )
    };
    match reason {
        WrongSide(color) => fill(&template("reason_wrong_side"), &[("color", v.color(color))]),
        KingInCheck { piece, from, to } => piece_move("reason_king_in_check", piece, from, to),
        CannotMove { piece, from, to } => piece_move("reason_cannot_move", piece, from, to),
        Castling => template("reason_castling"),
        Displaced => template("reason_displaced"),
        GameOver => template("reason_game_over"),
        TouchedFirst { piece, square } => piece_on("touch_move_first", piece, square),
        TouchedNotCaptured { piece, square } => piece_on("touch_move_capture", piece, square),
        CastlingRequired => template("touch_move_castle"),
        CastledAfterRook => template("touch_move_rook_first"),
        ClocksStopped => template("move_refused_paused"),
    }
}

/// A scoresheet to correct (the game is right, the sheet is not): "Zug zwei von Schwarz ist
/// David sechs, nicht Eva sechs".
pub fn sheet_correction_phrase(
    color: Color,
    number: u32,
    played: &str,
    written: &str,
    v: &Vocabulary,
) -> String {
    let number = number_phrase(number, v);
    fill(
        v.event("sheet_correct_move")
            .unwrap_or("{color} {number}: {played}, {written}"),
        &[
            ("color", v.color(color)),
            ("number", &number),
            ("played", played),
            ("written", written),
        ],
    )
}

/// A colour standing alone: "Weiß".
pub fn color_phrase(color: Color, v: &Vocabulary) -> String {
    v.color(color).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Language;
    use crate::vocabulary::EVENT_KEYS;

    fn de() -> &'static Vocabulary {
        Language::german().vocabulary()
    }

    fn lang(code: &str) -> &'static Vocabulary {
        Language::builtin(code).unwrap().vocabulary()
    }

    #[test]
    fn every_event_has_a_template_key() {
        for event in Event::all() {
            assert!(
                EVENT_KEYS.iter().any(|(k, _)| *k == event.key()),
                "{event:?}"
            );
        }
        let keys: std::collections::HashSet<_> = Event::all().iter().map(|e| e.key()).collect();
        assert_eq!(keys.len(), Event::all().len(), "two events share a key");
    }

    #[test]
    fn refusals_say_why_in_every_language() {
        use RefusalReason::*;
        let knight = Piece {
            color: Color::White,
            role: Role::Knight,
        };
        let king = Piece {
            color: Color::White,
            role: Role::King,
        };
        assert_eq!(
            refusal_phrase(
                KingInCheck {
                    piece: king,
                    from: Square::E1,
                    to: Square::E2
                },
                de()
            ),
            "der König stünde im Schach"
        );
        assert_eq!(
            refusal_phrase(
                TouchedFirst {
                    piece: knight,
                    square: Square::G1
                },
                de()
            ),
            "berührt, geführt: der Springer auf Gustav eins wurde zuerst berührt"
        );
        assert_eq!(
            refusal_phrase(WrongSide(Color::Black), de()),
            "Schwarz ist nicht am Zug"
        );
        let all = [
            WrongSide(Color::White),
            KingInCheck {
                piece: king,
                from: Square::E1,
                to: Square::E2,
            },
            CannotMove {
                piece: knight,
                from: Square::G1,
                to: Square::G3,
            },
            Castling,
            Displaced,
            GameOver,
            TouchedFirst {
                piece: knight,
                square: Square::G1,
            },
            TouchedNotCaptured {
                piece: knight,
                square: Square::G1,
            },
            CastlingRequired,
            CastledAfterRook,
            ClocksStopped,
        ];
        for code in ["de", "en", "es", "fr", "it", "nl", "pt"] {
            for r in all {
                let text = refusal_phrase(r, lang(code));
                assert!(
                    !text.contains('{') && !text.contains('_') && !text.is_empty(),
                    "{code} {r:?}: {text}"
                );
                assert!(!text.chars().any(|c| c.is_ascii_digit()), "{code}: {text}");
            }
            let sheet = sheet_correction_phrase(Color::Black, 2, "d6", "e6", lang(code));
            assert!(
                !sheet.contains('{') && !sheet.contains('2'),
                "{code}: {sheet}"
            );
        }
    }

    #[test]
    fn numbers_in_german() {
        let n = |x| number_phrase(x, de());
        assert_eq!(n(0), "null");
        assert_eq!(n(1), "eins");
        assert_eq!(n(21), "einundzwanzig");
        assert_eq!(n(100), "hundert");
        assert_eq!(n(112), "hundertzwölf");
        assert_eq!(n(999), "neunhundertneunundneunzig");
        assert_eq!(n(1000), "tausend");
        assert_eq!(n(2024), "zweitausendvierundzwanzig");
        assert_eq!(n(1_000_000), "eine Million");
        assert!(!n(u32::MAX).chars().any(|c| c.is_ascii_digit()));
    }

    #[test]
    fn numbers_in_other_languages() {
        assert_eq!(number_phrase(100, lang("es")), "cien");
        assert_eq!(number_phrase(101, lang("es")), "ciento uno");
        assert_eq!(number_phrase(31, lang("es")), "treinta y uno");
        assert_eq!(number_phrase(200, lang("fr")), "deux cents");
        assert_eq!(number_phrase(201, lang("fr")), "deux cent un");
        assert_eq!(number_phrase(71, lang("fr")), "soixante et onze");
        assert_eq!(number_phrase(105, lang("en")), "one hundred and five");
        assert_eq!(number_phrase(42, lang("en")), "forty-two");
        assert_eq!(number_phrase(123, lang("pt")), "cento e vinte e três");
        assert_eq!(number_phrase(22, lang("nl")), "tweeëntwintig");
        assert_eq!(number_phrase(23, lang("it")), "ventitré");
    }

    #[test]
    fn durations_pick_their_units() {
        let d = |ms| duration_phrase(ms, de());
        assert_eq!(d(0), "null Sekunden");
        assert_eq!(d(999), "null Sekunden");
        assert_eq!(d(1_000), "eine Sekunde");
        assert_eq!(d(59_999), "neunundfünfzig Sekunden");
        assert_eq!(d(60_000), "eine Minute");
        assert_eq!(d(150_000), "zwei Minuten dreißig Sekunden");
        assert_eq!(d(599_000), "neun Minuten neunundfünfzig Sekunden");
        assert_eq!(d(600_000), "zehn Minuten");
        assert_eq!(d(659_000), "zehn Minuten");
        assert_eq!(d(3_600_000), "eine Stunde");
        assert_eq!(d(72 * 60_000), "eine Stunde zwölf Minuten");
        assert_eq!(d(2 * 3_600_000 + 60_000), "zwei Stunden eine Minute");
        assert!(!d(u64::MAX).chars().any(|c| c.is_ascii_digit()));
    }

    #[test]
    fn gendered_counts() {
        assert_eq!(duration_phrase(2 * 3_600_000, lang("pt")), "duas horas");
        assert_eq!(duration_phrase(21 * 60_000, lang("es")), "veintiún minutos");
        assert_eq!(duration_phrase(21_000, lang("fr")), "vingt et une secondes");
    }

    #[test]
    fn events_fill_their_placeholders() {
        assert_eq!(
            event_phrase(Event::PromotionRequest, de()),
            "Umwandlung: welche Figur? Dame, Turm, Läufer oder Springer"
        );
        assert_eq!(
            event_phrase(Event::Wins(Color::Black), de()),
            "Schwarz gewinnt"
        );
        for code in Language::builtin_codes() {
            for event in Event::all() {
                let text = event_phrase(event, lang(code));
                assert!(!text.contains('{'), "{code} {event:?}: {text}");
            }
        }
    }
}
