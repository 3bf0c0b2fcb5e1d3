//! Spoken phrases: exact words per language, and every phrase read back to the move it names.

use annabella::chess::language::Language;
use annabella::chess::notation::{
    MoveErrorKind, Notation, Style, Verbosity, format_move, parse_move, resolve, spoken,
};
use annabella::chess::phrases::{
    Event, clock_phrase, correction_move, correction_place, correction_remove, duration_phrase,
    event_phrase, move_phrase, number_phrase, promotion_choices,
};
use proptest::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, Move, Piece, Position, Role, Square};

fn position(fen: &str, mode: CastlingMode) -> Chess {
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(mode)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// A move by shakmaty's own English SAN reader (independent of the notations under test).
fn san(pos: &Chess, text: &str) -> Move {
    text.parse::<San>()
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .to_move(pos)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play(moves: &[&str]) -> Chess {
    let mut pos = Chess::default();
    for text in moves {
        let m = san(&pos, text);
        pos.play_unchecked(m);
    }
    pos
}

struct Case {
    fen: &'static str,
    san: &'static str,
    lang: &'static str,
    verbosity: Verbosity,
    name_captured: bool,
    expected: &'static str,
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const AFTER_E4_D5: &str = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
const RUY_LOPEZ: &str = "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4";
const CASTLING: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
const EN_PASSANT: &str = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";
const PROMOTION: &str = "3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1";
const CHECK: &str = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
const FOOLS_MATE: &str = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2";
const TWO_KNIGHTS: &str = "4k3/8/8/8/8/8/3N4/4K1N1 w - - 0 1";
const TWO_ROOKS: &str = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1";
const THREE_QUEENS: &str = "8/8/1k6/8/4Q2Q/8/8/K6Q w - - 0 1";

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    use Verbosity::{Long, Short};
    let case = |fen, san, lang, verbosity, name_captured, expected| Case {
        fen,
        san,
        lang,
        verbosity,
        name_captured,
        expected,
    };
    vec![
        // German, the FIDE default.
        case(START, "Nf3", "de", Short, false, "Springer Felix drei"),
        case(START, "Nf3", "de", Long, false, "Springer Gustav eins Felix drei"),
        case(START, "e4", "de", Short, false, "Eva vier"),
        case(START, "e4", "de", Long, false, "Eva zwei Eva vier"),
        case(AFTER_E4_D5, "exd5", "de", Short, false, "Eva schlägt David fünf"),
        case(AFTER_E4_D5, "exd5", "de", Short, true, "Eva schlägt Bauer David fünf"),
        case(AFTER_E4_D5, "exd5", "de", Long, false, "Eva vier schlägt David fünf"),
        case(AFTER_E4_D5, "exd5", "de", Long, true, "Eva vier schlägt Bauer David fünf"),
        case(RUY_LOPEZ, "Bxc6", "de", Short, false, "Läufer schlägt Cesar sechs"),
        case(RUY_LOPEZ, "Bxc6", "de", Short, true, "Läufer schlägt Springer Cesar sechs"),
        case(RUY_LOPEZ, "Bxc6", "de", Long, false, "Läufer Bella fünf schlägt Cesar sechs"),
        case(RUY_LOPEZ, "Bxc6", "de", Long, true, "Läufer Bella fünf schlägt Springer Cesar sechs"),
        case(RUY_LOPEZ, "O-O", "de", Short, false, "Kurze Rochade"),
        case(CASTLING, "O-O", "de", Long, false, "Kurze Rochade"),
        case(CASTLING, "O-O-O", "de", Short, false, "Lange Rochade"),
        case(EN_PASSANT, "exd6", "de", Short, false, "Eva schlägt David sechs en passant"),
        case(EN_PASSANT, "exd6", "de", Short, true, "Eva schlägt Bauer David sechs en passant"),
        case(EN_PASSANT, "exd6", "de", Long, false, "Eva fünf schlägt David sechs en passant"),
        case(PROMOTION, "e8=Q", "de", Short, false, "Eva acht wird Dame"),
        case(PROMOTION, "e8=R", "de", Short, false, "Eva acht wird Turm"),
        case(PROMOTION, "e8=B", "de", Short, false, "Eva acht wird Läufer"),
        case(PROMOTION, "e8=N", "de", Short, false, "Eva acht wird Springer"),
        case(PROMOTION, "e8=Q", "de", Long, false, "Eva sieben Eva acht wird Dame"),
        case(PROMOTION, "exd8=N", "de", Short, false, "Eva schlägt David acht wird Springer"),
        case(PROMOTION, "exd8=N", "de", Long, true, "Eva sieben schlägt Turm David acht wird Springer"),
        case(CHECK, "Ra8+", "de", Short, false, "Turm Anna acht Schach"),
        case(CHECK, "Ra8+", "de", Long, false, "Turm Anna eins Anna acht Schach"),
        case(FOOLS_MATE, "Qh4#", "de", Short, false, "Dame Hector vier Matt"),
        case(FOOLS_MATE, "Qh4#", "de", Long, false, "Dame David acht Hector vier Matt"),
        case(TWO_KNIGHTS, "Ngf3", "de", Short, false, "Springer Gustav Felix drei"),
        case(TWO_KNIGHTS, "Ndf3", "de", Short, false, "Springer David Felix drei"),
        case(TWO_KNIGHTS, "Nb3", "de", Short, false, "Springer Bella drei"),
        case(TWO_ROOKS, "R1a3", "de", Short, false, "Turm eins Anna drei"),
        case(TWO_ROOKS, "R5a3", "de", Short, false, "Turm fünf Anna drei"),
        case(TWO_ROOKS, "R5a3", "de", Long, false, "Turm Anna fünf Anna drei"),
        case(THREE_QUEENS, "Qh4e1", "de", Short, false, "Dame Hector vier Eva eins"),
        case(THREE_QUEENS, "Q4h2", "de", Short, false, "Dame vier Hector zwei"),
        // Spanish, the older FIDE text.
        case(START, "Nf3", "es", Short, false, "Caballo Felix tres"),
        case(START, "Nf3", "es", Long, false, "Caballo Gustav uno Felix tres"),
        case(START, "e4", "es", Short, false, "Eva cuatro"),
        case(AFTER_E4_D5, "exd5", "es", Short, true, "Eva toma peón David cinco"),
        case(RUY_LOPEZ, "Bxc6", "es", Long, true, "Alfil Bella cinco toma Caballo Cesar seis"),
        case(CASTLING, "O-O", "es", Short, false, "enroque corto"),
        case(CASTLING, "O-O-O", "es", Short, false, "enroque largo"),
        case(EN_PASSANT, "exd6", "es", Short, false, "Eva toma David seis al paso"),
        case(PROMOTION, "e8=Q", "es", Short, false, "Eva ocho corona Dama"),
        case(CHECK, "Ra8+", "es", Short, false, "Torre Anna ocho jaque"),
        case(FOOLS_MATE, "Qh4#", "es", Short, false, "Dama Hector cuatro jaque mate"),
        case(TWO_KNIGHTS, "Ngf3", "es", Short, false, "Caballo Gustav Felix tres"),
        // English.
        case(START, "Nf3", "en", Short, false, "knight Felix three"),
        case(START, "Nf3", "en", Long, false, "knight Gustav one Felix three"),
        case(AFTER_E4_D5, "exd5", "en", Short, false, "Eva takes David five"),
        case(RUY_LOPEZ, "Bxc6", "en", Short, true, "bishop takes knight Cesar six"),
        case(CASTLING, "O-O-O", "en", Short, false, "long castling"),
        case(EN_PASSANT, "exd6", "en", Short, false, "Eva takes David six en passant"),
        case(PROMOTION, "e8=N", "en", Short, false, "Eva eight promotes to knight"),
        case(FOOLS_MATE, "Qh4#", "en", Short, false, "queen Hector four checkmate"),
        case(TWO_ROOKS, "R1a3", "en", Short, false, "rook one Anna three"),
        // The other built-in languages, one line each.
        case(START, "Nf3", "fr", Long, false, "cavalier Gustave un Félix trois"),
        case(CASTLING, "O-O", "fr", Short, false, "petit roque"),
        case(FOOLS_MATE, "Qh4#", "fr", Short, false, "dame Hector quatre échec et mat"),
        case(START, "Nf3", "it", Short, false, "cavallo Felice tre"),
        case(CASTLING, "O-O-O", "it", Short, false, "arrocco lungo"),
        case(START, "Nf3", "nl", Short, false, "paard Felix drie"),
        case(PROMOTION, "e8=Q", "nl", Short, false, "Eva acht promoveert tot dame"),
        case(START, "Nf3", "pt", Short, false, "cavalo Félix três"),
        case(FOOLS_MATE, "Qh4#", "pt", Short, false, "dama Heitor quatro xeque-mate"),
    ]
}

#[test]
fn exact_move_phrases() {
    let mut failures = Vec::new();
    for c in cases() {
        let pos = position(c.fen, CastlingMode::Standard);
        let m = san(&pos, c.san);
        let lang = Language::builtin(c.lang).unwrap();
        let style = Style {
            lang,
            verbosity: c.verbosity,
            name_captured: c.name_captured,
            figurines: false,
        };
        let got = move_phrase(&pos, m, &style);
        if got != c.expected {
            failures.push(format!(
                "{} {} {:?} named={}: got {got:?}, want {:?}",
                c.lang, c.san, c.verbosity, c.name_captured, c.expected
            ));
        }
        // The expected words read back to the move.
        let back = parse_move(
            &pos,
            CastlingMode::Standard,
            c.expected,
            Some(Notation::Spoken),
            lang,
        );
        if back != Ok(m) {
            failures.push(format!("{} {:?} read back as {back:?}", c.lang, c.expected));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn readback_of_what_an_assistant_types() {
    let de = Language::german();
    let pos = Chess::default();
    for text in [
        "Springer f 3",
        "Springer Felix 3",
        "springer f3",
        "Springer Gustav eins Felix drei",
        "Springer von Gustav eins nach Felix drei",
        "g 1 f 3",
    ] {
        let got = parse_move(
            &pos,
            CastlingMode::Standard,
            text,
            Some(Notation::Spoken),
            de,
        );
        if text.contains("von") {
            // "von" and "nach" are correction words, not move words.
            assert!(got.is_err(), "{text}");
        } else {
            assert_eq!(got, Ok(san(&pos, "Nf3")), "{text}");
        }
    }
    let es = Language::builtin("es").unwrap();
    let pos = position(CASTLING, CastlingMode::Standard);
    for text in ["Enroque Corto", "ENROQUE CORTO", "0-0", "O-O"] {
        let got = parse_move(
            &pos,
            CastlingMode::Standard,
            text,
            Some(Notation::Spoken),
            es,
        );
        assert_eq!(got, Ok(san(&pos, "O-O")), "{text}");
    }
    let pos = position(RUY_LOPEZ, CastlingMode::Standard);
    for text in [
        "alfil toma caballo cesar seis",
        "Alfil x César 6",
        "alfil b5 c6",
    ] {
        let got = parse_move(
            &pos,
            CastlingMode::Standard,
            text,
            Some(Notation::Spoken),
            es,
        );
        assert_eq!(got, Ok(san(&pos, "Bxc6")), "{text}");
    }
    let pos = position(PROMOTION, CastlingMode::Standard);
    let got = parse_move(
        &pos,
        CastlingMode::Standard,
        "Eva acht Dame",
        Some(Notation::Spoken),
        de,
    );
    assert_eq!(got, Ok(san(&pos, "e8=Q")));
}

#[test]
fn readback_errors_say_what_is_wrong() {
    let de = Language::german();
    let pos = position(PROMOTION, CastlingMode::Standard);
    let err = parse_move(
        &pos,
        CastlingMode::Standard,
        "Eva acht",
        Some(Notation::Spoken),
        de,
    )
    .unwrap_err();
    assert_eq!(
        err.kind,
        MoveErrorKind::PromotionMissing("say the new piece: Dame, Turm, Läufer, Springer".into())
    );
    let err = parse_move(
        &Chess::default(),
        CastlingMode::Standard,
        "Springer Eva vier",
        Some(Notation::Spoken),
        de,
    )
    .unwrap_err();
    assert!(matches!(err.kind, MoveErrorKind::Illegal(_)), "{err}");
    let err = parse_move(
        &Chess::default(),
        CastlingMode::Standard,
        "Pferd Felix drei",
        Some(Notation::Spoken),
        de,
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("\"Pferd\""), "{text}");
    assert!(text.contains("Springer"), "{text}");
    // Ambiguity is decided by the resolver, without a formatter: two knights reach f3.
    let pos = position(TWO_KNIGHTS, CastlingMode::Standard);
    let spec = spoken::parse("Springer Felix drei", de).unwrap();
    assert!(matches!(
        resolve::resolve(&pos, CastlingMode::Standard, &spec),
        Err(resolve::ResolveError::Ambiguous(c)) if c.len() == 2
    ));
}

#[test]
fn promotion_choices_name_the_four_pieces() {
    assert_eq!(
        promotion_choices(Language::german().vocabulary()),
        ["Dame", "Turm", "Läufer", "Springer"]
    );
    assert_eq!(
        promotion_choices(Language::builtin("es").unwrap().vocabulary()),
        ["Dama", "Torre", "Alfil", "Caballo"]
    );
}

#[test]
fn durations() {
    const MIN: u64 = 60_000;
    let table: &[(&str, u64, &str)] = &[
        ("de", 72 * MIN, "eine Stunde zwölf Minuten"),
        ("es", 72 * MIN, "una hora y doce minutos"),
        ("en", 72 * MIN, "one hour twelve minutes"),
        ("de", 150_000, "zwei Minuten dreißig Sekunden"),
        ("es", 150_000, "dos minutos y treinta segundos"),
        ("en", 150_000, "two minutes thirty seconds"),
        ("de", MIN, "eine Minute"),
        ("es", MIN, "un minuto"),
        ("en", MIN, "one minute"),
        ("de", 0, "null Sekunden"),
        ("es", 0, "cero segundos"),
        ("en", 0, "zero seconds"),
        ("de", 1_500, "eine Sekunde"),
        ("en", 45_999, "forty-five seconds"),
        ("de", 90 * MIN, "eine Stunde dreißig Minuten"),
        ("de", 120 * MIN, "zwei Stunden"),
        ("es", 120 * MIN, "dos horas"),
        ("pt", 120 * MIN, "duas horas"),
        ("fr", 61 * MIN, "une heure une minute"),
        ("it", 61 * MIN, "un'ora e un minuto"),
        ("nl", 61 * MIN, "één uur en één minuut"),
        ("es", 21 * MIN, "veintiún minutos"),
        ("de", 15 * MIN + 59_000, "fünfzehn Minuten"),
    ];
    for &(code, ms, want) in table {
        let v = Language::builtin(code).unwrap().vocabulary();
        assert_eq!(duration_phrase(ms, v), want, "{code} {ms} ms");
    }
}

#[test]
fn numbers_up_to_move_counts() {
    let de = Language::german().vocabulary();
    let en = Language::english().vocabulary();
    assert_eq!(number_phrase(7, de), "sieben");
    assert_eq!(number_phrase(40, de), "vierzig");
    assert_eq!(number_phrase(345, de), "dreihundertfünfundvierzig");
    assert_eq!(number_phrase(345, en), "three hundred and forty-five");
    assert_eq!(
        number_phrase(1_999, en),
        "one thousand nine hundred and ninety-nine"
    );
    for code in Language::builtin_codes() {
        let v = Language::builtin(code).unwrap().vocabulary();
        for n in (0..=1000).chain([12_345, 1_000_000, 7_654_321, u32::MAX]) {
            let words = number_phrase(n, v);
            assert!(
                !words.is_empty() && !words.chars().any(|c| c.is_ascii_digit()),
                "{code} {n}: {words:?}"
            );
        }
    }
}

#[test]
fn clock_reports() {
    let v = |code| Language::builtin(code).unwrap().vocabulary();
    assert_eq!(
        clock_phrase(72 * 60_000, 150_000, 20, v("de")),
        "Weiß eine Stunde zwölf Minuten, Schwarz zwei Minuten dreißig Sekunden, zwanzig Züge gespielt"
    );
    assert_eq!(
        clock_phrase(72 * 60_000, 150_000, 1, v("en")),
        "White one hour twelve minutes, Black two minutes thirty seconds, one move played"
    );
    assert_eq!(
        clock_phrase(5_000, 600_000, 41, v("es")),
        "blancas cinco segundos, negras diez minutos, cuarenta y una jugadas"
    );
}

#[test]
fn events() {
    let de = Language::german().vocabulary();
    let table = [
        (Event::Stalemate, "Patt, Remis"),
        (Event::DeadPosition, "Tote Stellung, Remis"),
        (
            Event::FivefoldRepetition,
            "Remis durch fünfmalige Stellungswiederholung",
        ),
        (Event::DrawAgreed, "Remis vereinbart"),
        (Event::Resigns(Color::White), "Weiß gibt auf"),
        (Event::Resigns(Color::Black), "Schwarz gibt auf"),
        (
            Event::FlagOpponentCannotMate(Color::White),
            "Weiß hat die Zeit überschritten, aber Schwarz kann nicht mehr mattsetzen: Remis",
        ),
        (Event::Wins(Color::White), "Weiß gewinnt"),
        (Event::Wins(Color::Black), "Schwarz gewinnt"),
        (Event::Draw, "Remis"),
        (Event::IllegalMove, "Unzulässiger Zug"),
        (
            Event::PromotionRequest,
            "Umwandlung: welche Figur? Dame, Turm, Läufer oder Springer",
        ),
        (Event::DrawOffer(Color::Black), "Schwarz bietet Remis an"),
        (Event::MoveConfirmed, "in Ordnung"),
        (Event::BoardDisconnected, "Brett getrennt"),
    ];
    for (event, want) in table {
        assert_eq!(event_phrase(event, de), want, "{event:?}");
    }
    let es = Language::builtin("es").unwrap().vocabulary();
    assert_eq!(
        event_phrase(Event::Wins(Color::Black), es),
        "ganan las negras"
    );
    assert_eq!(
        event_phrase(Event::PromotionRequest, es),
        "coronación: ¿qué pieza? Dama, Torre, Alfil o Caballo"
    );
    let en = Language::english().vocabulary();
    assert_eq!(
        event_phrase(Event::LostOnTime(Color::Black), en),
        "Black has run out of time"
    );
    // Every event in every language is pronounceable: words, no digits, no placeholders.
    for code in Language::builtin_codes() {
        let v = Language::builtin(code).unwrap().vocabulary();
        for event in Event::all() {
            let text = event_phrase(event, v);
            assert!(
                !text.is_empty()
                    && !text.contains(['{', '}'])
                    && !text.chars().any(|c| c.is_ascii_digit()),
                "{code} {event:?}: {text:?}"
            );
        }
    }
}

#[test]
fn corrections() {
    let white_knight = Piece {
        color: Color::White,
        role: Role::Knight,
    };
    let white_pawn = Piece {
        color: Color::White,
        role: Role::Pawn,
    };
    let black_queen = Piece {
        color: Color::Black,
        role: Role::Queen,
    };
    let table: &[(&str, [&str; 4])] = &[
        (
            "de",
            [
                "Springer von Felix vier nach Felix drei",
                "Bauer Eva vier entfernen",
                "weißen Springer auf Felix drei stellen",
                "schwarze Dame auf David acht stellen",
            ],
        ),
        (
            "en",
            [
                "knight from Felix four to Felix three",
                "remove the pawn from Eva four",
                "put the white knight on Felix three",
                "put the black queen on David eight",
            ],
        ),
        (
            "es",
            [
                "Caballo de Felix cuatro a Felix tres",
                "retirar peón blanco de Eva cuatro",
                "poner caballo blanco en Felix tres",
                "poner dama negra en David ocho",
            ],
        ),
    ];
    for (code, [moved, removed, placed, placed_black]) in table {
        let v = Language::builtin(code).unwrap().vocabulary();
        assert_eq!(
            correction_move(Role::Knight, Color::White, Square::F4, Square::F3, v),
            *moved
        );
        assert_eq!(correction_remove(white_pawn, Square::E4, v), *removed);
        assert_eq!(correction_place(white_knight, Square::F3, v), *placed);
        assert_eq!(correction_place(black_queen, Square::D8, v), *placed_black);
    }
}

/// Positions whose every legal move is read back in every style: disambiguation, promotion
/// with and without capture, en passant, castling, and a Chess960 king step that ends where
/// castling would put the king.
const FIXED: &[(&str, CastlingMode)] = &[
    (START, CastlingMode::Standard),
    (RUY_LOPEZ, CastlingMode::Standard),
    (CASTLING, CastlingMode::Standard),
    (EN_PASSANT, CastlingMode::Standard),
    (PROMOTION, CastlingMode::Standard),
    (TWO_KNIGHTS, CastlingMode::Standard),
    (TWO_ROOKS, CastlingMode::Standard),
    (THREE_QUEENS, CastlingMode::Standard),
    ("1r2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1", CastlingMode::Standard),
    ("4k3/8/8/8/8/8/8/5K1R w H - 0 1", CastlingMode::Chess960),
    ("4k3/8/8/8/8/8/8/1R3K1R w HB - 0 1", CastlingMode::Chess960),
    (
        "rk4r1/8/8/8/8/8/8/RK4R1 w GAga - 0 1",
        CastlingMode::Chess960,
    ),
];

/// Chess960 starting positions for the random games.
const CHESS960: &[&str] = &[
    "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1",
    "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1",
    "qnrbkrbn/pppppppp/8/8/8/8/PPPPPPPP/QNRBKRBN w FCfc - 0 1",
    "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1",
];

/// Every legal move of `pos`, in every built-in language, verbosity and capture naming, is
/// spoken in pronounceable words and read back to itself.
fn assert_round_trip(pos: &Chess, mode: CastlingMode) -> Result<(), TestCaseError> {
    for lang in Language::all_builtin() {
        for verbosity in [Verbosity::Short, Verbosity::Long] {
            for name_captured in [false, true] {
                let style = Style {
                    lang,
                    verbosity,
                    name_captured,
                    figurines: false,
                };
                for &m in &pos.legal_moves() {
                    let phrase = format_move(pos, mode, m, Notation::Spoken, &style);
                    // First without parse_move, whose ambiguity message needs the SAN writer.
                    let spec = spoken::parse(&phrase, lang);
                    let resolved = spec.map(|s| resolve::resolve(pos, mode, &s));
                    prop_assert!(
                        matches!(resolved, Ok(Ok(r)) if r == m),
                        "{} {:?} named={} {:?}: {:?} resolves to {:?} in {}",
                        lang.code(),
                        verbosity,
                        name_captured,
                        m,
                        phrase,
                        resolved,
                        Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
                    );
                    let back = parse_move(pos, mode, &phrase, Some(Notation::Spoken), lang);
                    prop_assert_eq!(
                        back.clone(),
                        Ok(m),
                        "{} {:?} named={} {:?}: {:?} in {}",
                        lang.code(),
                        verbosity,
                        name_captured,
                        m,
                        phrase,
                        Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
                    );
                    prop_assert!(
                        !phrase.chars().any(|c| c.is_ascii_digit()),
                        "digit in {:?}",
                        phrase
                    );
                    prop_assert!(
                        !phrase
                            .split(|c: char| !c.is_alphanumeric())
                            .any(|w| w.chars().count() == 1),
                        "single letter in {:?}",
                        phrase
                    );
                }
            }
        }
    }
    Ok(())
}

#[test]
fn fixed_positions_round_trip() {
    for &(fen, mode) in FIXED {
        let pos = position(fen, mode);
        assert_round_trip(&pos, mode).unwrap_or_else(|e| panic!("{fen}: {e}"));
    }
    // A game's worth of moves from the start, too.
    let pos = play(&["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6"]);
    assert_round_trip(&pos, CastlingMode::Standard).unwrap();
}

/// A deterministic random walk: `seed` picks the moves, preferring captures when `greedy`,
/// so that long games reach endgames with promotions.
fn random_game(start: &Chess, seed: u64, plies: usize, greedy: bool) -> Chess {
    let mut pos = start.clone();
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let captures: Vec<Move> = legal.iter().copied().filter(|m| m.is_capture()).collect();
        let pool: Vec<Move> = if greedy && !captures.is_empty() && next() % 4 != 0 {
            captures
        } else {
            legal.to_vec()
        };
        let m = pool[(next() % pool.len() as u64) as usize];
        pos.play_unchecked(m);
    }
    pos
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn random_games_round_trip(
        start in 0..=CHESS960.len(),
        seed in any::<u64>(),
        plies in 0usize..160,
        greedy in any::<bool>(),
    ) {
        let (start_pos, mode) = match CHESS960.get(start) {
            Some(fen) => (position(fen, CastlingMode::Chess960), CastlingMode::Chess960),
            None => (Chess::default(), CastlingMode::Standard),
        };
        let pos = random_game(&start_pos, seed, plies, greedy);
        assert_round_trip(&pos, mode)?;
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        for lang in Language::all_builtin() {
            let _ = spoken::parse(&text, lang);
        }
    }

    #[test]
    fn word_salad_never_panics(picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..8)) {
        let de = Language::german();
        let v = de.vocabulary();
        let mut pool: Vec<String> = shakmaty::File::ALL.iter().map(|&f| v.file(f).to_owned()).collect();
        pool.extend(shakmaty::Rank::ALL.iter().map(|&r| v.rank(r).to_owned()));
        pool.extend(Role::ALL.iter().map(|&r| v.piece(r).to_owned()));
        pool.extend(["schlägt", "en passant", "wird", "Schach", "Matt", "Kurze Rochade", "e", "3",
                     "f3", "x", "0-0", "Ünsinn", "ß", "", "-"].map(String::from));
        let text: Vec<&str> = picks.iter().map(|i| i.get(&pool).as_str()).collect();
        let text = text.join(" ");
        if let Ok(spec) = spoken::parse(&text, de) {
            let pos = Chess::default();
            let _ = resolve::resolve(&pos, CastlingMode::Standard, &spec);
        }
    }
}

#[test]
fn a_correction_of_an_unknown_peg_says_the_table_cannot_know_which_piece() {
    use annabella::chess::language::Language;
    use annabella::chess::phrases::correction_move_unknown;
    use shakmaty::Square;
    let de = Language::german().vocabulary();
    assert_eq!(
        correction_move_unknown(Square::E4, Square::E2, de),
        "die Figur auf Eva vier, ich weiß nicht welche, nach Eva zwei"
    );
    assert_eq!(
        annabella::chess::phrases::correction_remove_unknown(Square::F3, de),
        "die Figur auf Felix drei, ich weiß nicht welche, entfernen"
    );
    for lang in Language::all_builtin() {
        let text = correction_move_unknown(Square::A1, Square::H8, lang.vocabulary());
        assert!(!text.contains("  ") && !text.starts_with(' '), "{text:?}");
    }
}
