//! PGN import, and the scoresheet exports (PGN, ICCF numeric, Braille) read back or checked.

pub mod common;
use annabella::chess::braille::{CELLS_PER_LINE, LINES_PER_PAGE};
use annabella::chess::game::{EndReason, Game, GameResult};
use annabella::chess::pgn::{
    ImportError, ImportErrorKind, ImportedGame, MAX_GAME_BYTES, MAX_INPUT_BYTES, MAX_TAGS,
    read_games,
};
use annabella::chess::scoresheet::{self, Headers, Recorder, Scoresheet};
use proptest::prelude::*;
use shakmaty::{CastlingMode, Chess, File, Move, Position, Role, Square};

const THREE_GAMES: &str = include_str!("data/pgn/three_games.pgn");
const SETUP: &str = include_str!("data/pgn/setup.pgn");
const CHESS960: &str = include_str!("data/pgn/chess960.pgn");

fn ok(result: &Result<ImportedGame, ImportError>) -> &ImportedGame {
    result.as_ref().unwrap_or_else(|e| panic!("{e}"))
}

fn only(text: &str) -> ImportedGame {
    let mut games = read_games(text);
    assert_eq!(games.len(), 1, "{text}");
    games.remove(0).unwrap_or_else(|e| panic!("{e}"))
}

fn only_error(text: &str) -> ImportError {
    let mut games = read_games(text);
    assert_eq!(games.len(), 1, "{text}");
    games.remove(0).expect_err(text)
}

/// ICCF numeric written by the test itself, so that the layout can be checked before the
/// notation module exists.
fn iccf(_pos: &Chess, m: Move) -> String {
    let sq = |s: Square| format!("{}{}", s.file().to_u32() + 1, s.rank().to_u32() + 1);
    match m {
        Move::Castle { king, rook } => {
            let file = if rook > king { File::G } else { File::C };
            format!("{}{}", sq(king), sq(Square::from_coords(file, king.rank())))
        }
        _ => {
            let digit = match m.promotion() {
                Some(Role::Queen) => "1",
                Some(Role::Rook) => "2",
                Some(Role::Bishop) => "3",
                Some(Role::Knight) => "4",
                _ => "",
            };
            let from = m.from().map(sq).unwrap_or_default();
            format!("{from}{}{digit}", sq(m.to()))
        }
    }
}

/// Exports, imports again and checks that nothing was lost; returns the export.
fn round_trip(sheet: &Scoresheet, headers: &Headers) -> String {
    let pgn = sheet.to_pgn(headers);
    for line in pgn.lines() {
        assert!(line.chars().count() < 80, "{line}");
    }
    let back = only(&pgn);
    assert_eq!(back.game.moves(), sheet.game().moves(), "{pgn}");
    assert_eq!(back.game.start_position(), sheet.game().start_position());
    assert_eq!(back.game.castling_mode(), sheet.game().castling_mode());
    let clocks: Vec<Option<u64>> = sheet.entries().iter().map(|e| e.clock_ms).collect();
    assert_eq!(back.clocks, clocks, "{pgn}");
    assert_eq!(
        back.scoresheet().to_pgn(&back.headers()),
        pgn,
        "export is stable"
    );
    pgn
}

#[test]
fn one_bad_game_does_not_stop_the_others() {
    let games = read_games(THREE_GAMES);
    assert_eq!(games.len(), 3);
    let opera = ok(&games[0]);
    assert_eq!(opera.game.ply_count(), 33);
    assert_eq!(opera.result, Some(GameResult::WhiteWins));
    assert_eq!(opera.tag("White"), Some("Paul Morphy"));
    let end = opera.game.outcome().unwrap();
    assert_eq!(end.reason, EndReason::Checkmate);

    let e = games[1].as_ref().unwrap_err();
    assert_eq!(
        (e.game, e.ply, e.token.as_deref()),
        (2, Some(3), Some("Ke3"))
    );
    assert!(matches!(e.kind, ImportErrorKind::Illegal { .. }));
    assert!(
        e.to_string()
            .starts_with("game 2, ply 3, \"Ke3\": illegal move in position rnbqkbnr/"),
        "{e}"
    );

    let immortal = ok(&games[2]);
    assert_eq!(immortal.game.ply_count(), 45);
    assert_eq!(immortal.tag("Date"), Some("1851.06.21"));
    assert_eq!(
        immortal.game.outcome().unwrap().reason,
        EndReason::Checkmate
    );
}

#[test]
fn fen_and_setup_tags() {
    let games = read_games(SETUP);
    let pawn = ok(&games[0]);
    assert_eq!(pawn.game.start_fen(), "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40");
    assert_eq!(pawn.game.ply_count(), 10);
    let pgn = round_trip(&pawn.scoresheet(), &pawn.headers());
    assert!(pgn.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 40\"]\n"));
    assert!(
        pgn.contains("\n\n40... Kd7 41. Kd2 Ke6 42. Kd3 Kd5 43. e4+ Ke5"),
        "{pgn}"
    );
    assert!(!pgn.contains("Variant"));

    // FEN without SetUp and with Shredder letters, on a standard-looking position.
    let rooks = ok(&games[1]);
    assert_eq!(rooks.game.castling_mode(), CastlingMode::Standard);
    assert!(rooks.game.moves()[0].is_castle());
    assert!(rooks.game.moves()[1].is_castle());
    round_trip(&rooks.scoresheet(), &rooks.headers());
}

#[test]
fn chess960_variant_with_castling() {
    let g = only(CHESS960);
    assert_eq!(g.game.castling_mode(), CastlingMode::Chess960);
    let castles: Vec<Move> = g
        .game
        .moves()
        .iter()
        .copied()
        .filter(|m| m.is_castle())
        .collect();
    assert_eq!(
        castles,
        [
            Move::Castle {
                king: Square::D1,
                rook: Square::H1
            },
            Move::Castle {
                king: Square::D8,
                rook: Square::A8
            }
        ]
    );
    assert!(g.game.fen().starts_with("2kr3r/"));
    let pgn = round_trip(&g.scoresheet(), &g.headers());
    assert!(pgn.contains("[Variant \"Chess960\"]"));
    assert!(
        pgn.contains("5. O-O d6") && pgn.contains("8. Be3\nO-O-O"),
        "{pgn}"
    );

    // A Chess960 game without a FEN starts from 518 with Chess960 castling.
    let g = only("[Variant \"chess 960\"]\n\n1. e4 e5 *");
    assert_eq!(g.game.castling_mode(), CastlingMode::Chess960);
}

#[test]
fn clock_comments_round_trip() {
    let text = "[Event \"Clocks\"]\n[TimeControl \"40/5400+30:1800+30\"]\n\n\
                1. e4 {[%clk 1:29:58]} 1... e5 { thinking [%clk 1:29:50.5] hard } 2. Nf3 \
                2... Nc6 {[%clk 1:28:00]} *";
    let g = only(text);
    assert_eq!(
        g.clocks,
        [Some(5_398_000), Some(5_390_500), None, Some(5_280_000)]
    );
    let headers = g.headers();
    assert_eq!(headers.time_control.as_deref(), Some("40/5400+30:1800+30"));
    let pgn = round_trip(&g.scoresheet(), &headers);
    assert!(pgn.contains(
        "1. e4 {[%clk 1:29:58]} 1... e5 {[%clk 1:29:50.5]} 2. Nf3 Nc6 {[%clk 1:28:00]} *"
    ));
    assert!(pgn.contains("[TimeControl \"40/5400+30:1800+30\"]"));
}

#[test]
fn export_then_import_is_the_identity() {
    for text in [THREE_GAMES, SETUP, CHESS960] {
        for g in read_games(text).iter().filter_map(|r| r.as_ref().ok()) {
            let mut sheet = g.scoresheet();
            for ply in (0..sheet.entries().len()).step_by(3) {
                sheet.set_clock(ply, Some(60_000 * ply as u64 + 7));
            }
            let mut headers = g.headers();
            headers
                .extra
                .push(("Annotator".into(), "a \"quoted\" \\ name".into()));
            headers
                .extra
                .push(("FEN".into(), "ignored: the start decides".into()));
            let pgn = round_trip(&sheet, &headers);
            assert_eq!(
                pgn.matches("[FEN ").count(),
                usize::from(!sheet.game().is_standard_start())
            );
        }
    }
    // A sheet being written at the board.
    let mut sheet = Scoresheet::default();
    let mut game = Game::new();
    for (i, t) in ["d4", "d5", "c4", "e6", "Nc3", "Nf6"].iter().enumerate() {
        let m: Move = t
            .parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(game.position())
            .unwrap();
        game.play(m).unwrap();
        sheet
            .record(m, Recorder::Board, Some(5_400_000 - 1000 * i as u64))
            .unwrap();
    }
    let headers = Headers {
        event: "Club championship".into(),
        white: "Blind, B.".into(),
        black: "Sighted, S.".into(),
        result: Some(GameResult::Draw),
        ..Headers::default()
    };
    let pgn = round_trip(&sheet, &headers);
    assert!(
        pgn.starts_with("[Event \"Club championship\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n")
    );
    assert!(pgn.ends_with(" 1/2-1/2\n"), "{pgn}");
}

type KindCheck = fn(&ImportErrorKind) -> bool;

#[test]
fn other_errors_name_the_game() {
    let cases: &[(&str, KindCheck)] = &[
        ("[FEN \"8/8/8 w - - 0 1\"]\n\n1. e4 *", |k| {
            matches!(k, ImportErrorKind::BadFen { .. })
        }),
        (
            "[Variant \"Crazyhouse\"]\n\n1. e4 *",
            |k| matches!(k, ImportErrorKind::UnsupportedVariant(v) if v == "Crazyhouse"),
        ),
        ("1. e4 -- 2. d4 *", |k| {
            matches!(k, ImportErrorKind::NullMove)
        }),
        ("1. f3 e5 2. g4 Qh4# 3. a3 *", |k| {
            matches!(k, ImportErrorKind::AfterEnd(_))
        }),
    ];
    for (text, is_expected) in cases {
        let e = only_error(text);
        assert_eq!(e.game, 1);
        assert!(is_expected(&e.kind), "{text}: {e}");
    }
    let e = only_error("1. f3 e5 2. g4 Qh4# 3. a3 *");
    assert_eq!((e.ply, e.token.as_deref()), (Some(5), Some("a3")));

    let many_tags: String = (0..=MAX_TAGS).map(|i| format!("[T{i} \"v\"]\n")).collect();
    let e = only_error(&format!("{many_tags}\n1. e4 *"));
    assert_eq!(e.kind, ImportErrorKind::TooManyTags);

    let huge_comment = format!("1. e4 {{{}}} e5 *", "x".repeat(MAX_GAME_BYTES));
    let games = read_games(&format!("{huge_comment}\n\n1. d4 *"));
    assert_eq!(games.len(), 2);
    assert!(matches!(
        games[0],
        Err(ImportError {
            kind: ImportErrorKind::GameTooLarge(_),
            ..
        })
    ));
    assert_eq!(ok(&games[1]).game.ply_count(), 1);

    let e = only_error(&" ".repeat(MAX_INPUT_BYTES + 1));
    assert!(matches!(e.kind, ImportErrorKind::InputTooLarge(_)));
}

#[test]
fn tokens_the_reader_would_skip_are_errors_with_their_place() {
    // (text, ply, token, what the message says)
    let cases: &[(&str, usize, &str, &str)] = &[
        // Garbage that leaves the side to move right would otherwise vanish without a trace.
        ("1. e4 e5 2. Nf3 Nc6 3. Bb5 zz9 *", 6, "zz9", "SAN"),
        ("1. e4 e5 2. Xy9 3. Nf3 *", 3, "Xy9", "SAN"),
        // A move glued to garbage was dropped whole, and the next move blamed.
        ("1. e4 e5abc 2. Nf3 *", 2, "e5abc", "SAN"),
        ("1. e4 d5 2. e5 f5 3. exf6e.p. Nxf6 *", 5, "exf6e.p.", "SAN"),
        ("1. e4 e5 2. Nf3+- Nc6 *", 3, "Nf3+-", "SAN"),
        ("1. e4 1…e5 *", 2, "1…e5", "SAN"),
        ("1. e4 e5 2. O–O *", 3, "O–O", "SAN"),
        // ICCF numeric moves look like move numbers to pgn-reader.
        ("1. 5254 5755 *", 1, "5254", "no move number"),
        // An unclosed variation swallowed the rest of the game.
        ("1. e4 (1. d4 d5 2. c4 e5 *", 2, "(", "never closed"),
        ("1. e4 e5 (1... c5\n\n", 3, "(", "never closed"),
    ];
    for &(text, ply, token, says) in cases {
        let e = only_error(text);
        assert_eq!(
            (e.game, e.ply, e.token.as_deref()),
            (1, Some(ply), Some(token)),
            "{text}: {e}"
        );
        assert!(
            matches!(
                e.kind,
                ImportErrorKind::NotAMove(_) | ImportErrorKind::UnclosedVariation
            ),
            "{text}: {e}"
        );
        assert!(e.to_string().contains(says), "{text}: {e}");
    }
    // Stray text between games is reported as a game of its own; the others still count.
    let games = read_games("[Event \"a\"]\n\n1. e4 *\n\nzzz\n\n[Event \"b\"]\n\n1. d4 *\n");
    assert_eq!(games.len(), 3);
    assert_eq!(ok(&games[0]).game.ply_count(), 1);
    let e = games[1].as_ref().unwrap_err();
    assert_eq!(
        (e.game, e.ply, e.token.as_deref()),
        (2, Some(1), Some("zzz"))
    );
    assert_eq!(ok(&games[2]).game.ply_count(), 1);
}

#[test]
fn what_is_not_a_move_and_loses_nothing_is_still_accepted() {
    for text in [
        "1. e4 e5 2. Nf3 Nc6 *",
        "1.e4 e5 2.Nf3 1-0",
        "1. e4 1... e5 2. Nf3 $1 Nc6 $14 *",
        "1. e4! e5?! 2. Nf3!! Nc6?? 3. Bb5!? a6?! *",
        "1. e4 e5 2. Nf3 +/= Nc6 = 3. Bb5 ± a6 ∞ 4. Ba4 += *",
        "1. e4 ‼ e5 ⁉ 2. Nf3 ⟳ Nc6 ⁇ 3. Bb5 → *",
        "1. e4 d5 2. e5 f5 3. exf6 e.p. Nxf6 4. d4 ep Nc6 1/2-1/2",
        "1. e4 … e5 *",
        "1. e4 {a comment (with a paren} e5 ; to the end of the line\n2. Nf3 *",
        "1. e4 (1. d4 d5 (1... Nf6 2. c4)) (1. c4\n{multi-line} e5) e5 2. Nf3 *",
        "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 Nf6 5. d3 0-0+ *",
        "[Event \"x\"]\n[Annotator \"a \\\"quoted\\\" name\"]\n\n1. e4 e5 1/2\n",
        "% escape line\n[Event \"x\"]\n\n1. e4\n% another escape line\ne5 *\n",
        "[Event \"x\"]\r\n\r\n1. e4 e5\r\n2. Nf3 *\r\n",
    ] {
        let g = only(text);
        assert!(g.game.ply_count() >= 2, "{text}");
    }
}

#[test]
fn iccf_score_layout() {
    // The cheesse test game (notations.md §1.2).
    let g =
        only("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O *");
    let score = g.scoresheet().to_iccf(None, iccf);
    assert_eq!(
        score,
        "1. 5254 5755\n2. 7163 2836\n3. 6125 1716\n4. 2514 7866\n5. 5171 6857\n\
         6. 6151 2725\n7. 1423 4746\n8. 3233 5878\n*\n"
    );
    // Headers, a start with Black, a lone White move at the end.
    let g = ok(&read_games(SETUP)[0]).clone();
    let headers = Headers {
        white: "A".into(),
        black: "B".into(),
        result: Some(GameResult::Draw),
        ..Headers::default()
    };
    let score = g.scoresheet().to_iccf(Some(&headers), iccf);
    assert_eq!(
        score,
        "White: A\nBlack: B\nFEN: 4k3/8/8/8/8/8/4P3/4K3 b - - 0 40\n\n\
         40... 5847\n41. 5142 4756\n42. 4243 5645\n43. 5254 4555\n44. 4353 5556\n45. 5364\n1/2-1/2\n"
    );
}

#[test]
fn braille_layout() {
    let games = read_games(THREE_GAMES);
    let opera = ok(&games[0]);
    let doc = opera
        .scoresheet()
        .to_braille(&opera.headers(), scoresheet::san);
    let lines: Vec<&str> = doc.lines().collect();
    assert!(lines.iter().all(|l| l.chars().count() <= CELLS_PER_LINE));
    assert_eq!(
        lines[..4],
        [
            "PAUL MORPHY - DUKE KARL OF BRUNSWICK AND",
            "  COUNT ISOUARD",
            "PARIS, PARIS FRA, #AHEH.??.??",
            ""
        ]
    );
    assert_eq!(lines[4], "#A E4 E5");
    assert!(lines.contains(&"#AF QB8+ NXB8"));
    assert!(
        lines.contains(&"#AG RD8++"),
        "mate is ++, not the number sign"
    );
    assert_eq!(lines.last(), Some(&"#A-#J"));

    let brf = doc.to_brf();
    assert!(brf.starts_with("PAUL MORPHY - DUKE KARL OF BRUNSWICK AND\r\n  COUNT ISOUARD\r\n"));
    assert!(
        brf.chars().all(|c| matches!(c, ' '..='_' | '\r' | '\n')),
        "{brf}"
    );
    assert!(brf.contains("\r\n#A E4 E5\r\n"));
    let unicode = doc.to_unicode();
    // Spaces are the blank cell U+2800, so the whole line is braille.
    assert!(unicode.contains("\n⠼⠁⠀⠑⠲⠀⠑⠢\n"), "{unicode}");

    // 23 move lines plus heading and result do not fit on one page.
    let immortal = ok(&games[2]);
    let doc = immortal
        .scoresheet()
        .to_braille(&immortal.headers(), scoresheet::san);
    assert_eq!(doc.pages().len(), 2);
    assert!(doc.pages().iter().all(|p| p.len() <= LINES_PER_PAGE));
    let brf = doc.to_brf();
    assert_eq!(brf.matches('\u{c}').count(), 1);
    assert!(brf.contains("\r\n\u{c}"));

    // A player's own notation: German letters, and a long spoken form wraps.
    let style =
        annabella::chess::notation::Style::new(annabella::chess::language::Language::german());
    let german = |pos: &Chess, m: Move| annabella::chess::notation::san::format(pos, m, &style);
    let doc = opera.scoresheet().to_braille(&Headers::default(), german);
    let lines: Vec<&str> = doc.lines().collect();
    assert_eq!(lines[0], "#A E4 E5");
    assert_eq!(lines[1], "#B SF3 D6");
    let spoken = |_: &Chess, m: Move| {
        format!(
            "Springer von {} nach {} schlägt nichts",
            m.from().unwrap(),
            m.to()
        )
    };
    let doc = opera.scoresheet().to_braille(&Headers::default(), spoken);
    let lines: Vec<&str> = doc.lines().collect();
    assert_eq!(lines[0], "#A SPRINGER VON E2 NACH E4 SCHLAEGT");
    assert!(
        lines[1].starts_with("  NICHTS SPRINGER VON E7"),
        "{}",
        lines[1]
    );
    assert!(lines.iter().all(|l| l.chars().count() <= CELLS_PER_LINE));
}

fn pgn_fragment() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "[Event \"x\"]\n",
        "[FEN \"",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "8/8/8/4k3/8/8/8/4K3 w",
        "\"]\n",
        "[Variant \"Chess960\"]\n",
        "[Result \"1-0\"]\n",
        "1.",
        "2...",
        "e4",
        "e5",
        "Nf3",
        "Nc6",
        "O-O",
        "0-0-0",
        "Qxf7#",
        "exd6",
        "a8=Q",
        "Ke2",
        "{",
        "}",
        "(",
        ")",
        "*",
        "1-0",
        "½-½",
        "\n\n",
        "\n",
        " ",
        "Z0",
        "--",
        "$1",
        "!?",
        ";",
        "%",
        "[%clk 1:00:00]",
        "[%clk 99999999999:00:00]",
        "\"",
        "[",
        "]",
        "\u{feff}",
        "é",
    ]);
    prop::collection::vec(pieces, 0..80).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = read_games(&text);
    }

    #[test]
    fn pgn_like_soup_never_panics(text in pgn_fragment()) {
        for g in read_games(&text) {
            match g {
                Ok(g) => prop_assert_eq!(g.clocks.len(), g.game.ply_count()),
                Err(e) => prop_assert!(e.game >= 1),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games_survive_export_and_import(
        choices in prop::collection::vec((any::<u16>(), any::<Option<u32>>()), 0..160),
        start in prop::option::of(0u32..960),
    ) {
        let game = match start {
            Some(n) => Game::chess960(n).unwrap(),
            None => Game::new(),
        };
        let mut sheet = Scoresheet::for_game(&game);
        for (choice, clock) in choices {
            if sheet.game().is_over() {
                break;
            }
            let legal = sheet.game().position().legal_moves();
            let m = legal[usize::from(choice) % legal.len()];
            sheet.record(m, Recorder::Board, clock.map(u64::from)).unwrap();
        }
        let pgn = sheet.to_pgn(&Headers::default());
        let back = only(&pgn);
        prop_assert_eq!(back.game.moves(), sheet.game().moves());
        let clocks: Vec<Option<u64>> = sheet.entries().iter().map(|e| e.clock_ms).collect();
        prop_assert_eq!(back.clocks, clocks);
        prop_assert_eq!(back.game.outcome(), sheet.game().outcome());
    }
}

/// A legal game longer than the import limit: random piece moves, a pawn move whenever the
/// 75-move limit comes near, and never a move that ends the game.
fn long_game(plies: usize) -> Game {
    let mut game = Game::new();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    while game.ply_count() < plies {
        let legal = game.position().legal_moves();
        let pawn_time = game.halfmove_clock() >= 140;
        let mut candidates: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| !m.is_capture() && (m.role() == Role::Pawn) == pawn_time)
            .collect();
        if candidates.is_empty() {
            candidates = legal.to_vec();
        }
        let start = next();
        let played = (0..candidates.len()).any(|i| {
            let m = candidates[(start + i) % candidates.len()];
            game.play(m).unwrap();
            if game.is_over() {
                game.undo();
                false
            } else {
                true
            }
        });
        assert!(
            played,
            "stuck after {} plies: {}",
            game.ply_count(),
            game.fen()
        );
    }
    game
}

#[test]
fn too_many_plies_are_refused() {
    use annabella::chess::pgn::MAX_PLIES;
    let game = long_game(MAX_PLIES + 1);
    let pgn = Scoresheet::from_game(&game, Recorder::Board).to_pgn(&Headers::default());
    let e = only_error(&pgn);
    assert_eq!(e.kind, ImportErrorKind::TooManyPlies);
    assert_eq!(e.ply, Some(MAX_PLIES + 1));
    // One half-move less is read.
    let mut shorter = game.clone();
    shorter.undo();
    let pgn = Scoresheet::from_game(&shorter, Recorder::Board).to_pgn(&Headers::default());
    assert_eq!(only(&pgn).game.ply_count(), MAX_PLIES);
}

#[test]
fn a_score_played_past_a_dead_position_is_read_whole_and_the_end_noted() {
    // White's knight takes the last pawn: K+N v K, a dead position (FIDE 5.2.2). The players
    // go on (Black takes the knight, the kings shuffle) before agreeing the draw, as four games
    // of the TWIC sample that pgn-reader ships do.
    let text = "[FEN \"8/8/4k3/8/3p4/4N3/8/4K3 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n\
                1. Nc2 Kd5 2. Nxd4 Kxd4 3. Ke2 Ke4 4. Kd2 Kd4 1/2-1/2";
    let g = only(text);
    assert_eq!(g.game.ply_count(), 8, "every move played is kept");
    let (plies, end) = g.played_past.expect("the end played past is noted");
    assert_eq!(plies, 3, "the position was dead after half-move 3, 2. Nxd4");
    assert_eq!(end.reason, EndReason::InsufficientMaterial);
    // Mate still ends a score: nothing is played past it.
    assert!(matches!(
        only_error("1. f3 e5 2. g4 Qh4# 3. a3 *").kind,
        ImportErrorKind::AfterEnd(_)
    ));
    // `convert` writes it and says so on standard error; a live game still ends there.
    let o = common::process::annabella(&["convert", "--to", "iccf", "-"], &[], text);
    assert!(o.status.success(), "{}", common::process::stderr(&o));
    assert!(
        common::process::stderr(&o)
            .contains("game 1: played on after half-move 3, where the game ended by the Laws"),
        "{}",
        common::process::stderr(&o)
    );
    let mut live = Game::from_fen("8/8/4k3/8/3p4/4N3/8/4K3 w - - 0 1", false).unwrap();
    for m in g.game.moves().iter().take(3) {
        live.play(*m).unwrap();
    }
    assert!(live.is_over() && live.play(g.game.moves()[3]).is_err());
}

/// Four games of TWIC issue 1599 (from the sample pgn-reader 0.29.0 ships,
/// `benches/twic1599_1000k.pgn`, games 2, 67, 828 and 871) in which the players went on after a
/// dead position before they agreed the draw.
const TWIC_PLAYED_PAST: &str = include_str!("data/pgn/twic1599_played_past.pgn");
/// Their scores in SAN as python-chess reads them (how the file was made is at its top).
const TWIC_PLAYED_PAST_SAN: &str = include_str!("data/pgn/twic1599_played_past.san");
/// Every game of that sample as python-chess reads it: number, half-moves, the last in SAN.
const TWIC_1000K_PYTHON_CHESS: &str = include_str!("data/pgn/twic1599_1000k.python-chess");

fn data_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.starts_with('#'))
}

#[test]
fn convert_writes_every_move_of_a_score_played_past_a_dead_position() {
    // Before the fix the scoresheet behind every export replayed the moves with `Game::play`,
    // which refuses a move after a dead position, so `convert` said "converted as played" and
    // dropped the moves after it: game 1 (TWIC game 2) ended 57... Kxb3, not 58. Ke4.
    let expected: Vec<&str> = data_lines(TWIC_PLAYED_PAST_SAN).collect();
    assert_eq!(expected.len(), 4);
    let o = common::process::annabella(&["convert", "--to", "san", "-"], &[], TWIC_PLAYED_PAST);
    let err = common::process::stderr(&o);
    assert!(o.status.success(), "{err}");
    let out = common::process::stdout(&o);
    let got: Vec<&str> = out.lines().collect();
    assert_eq!(got, expected, "the scores as python-chess reads them");
    assert!(got[0].ends_with("Bxb3 Kxb3 Ke4"), "{}", got[0]);
    for (n, plies) in [(1, 114), (2, 147), (3, 133), (4, 154)] {
        assert!(
            err.contains(&format!(
                "game {n}: played on after half-move {plies}, where the game"
            )),
            "{err}"
        );
    }
    // Every export replays the same scoresheet: PGN and ICCF keep the last move too.
    let o = common::process::annabella(&["convert", "--to", "pgn", "-"], &[], TWIC_PLAYED_PAST);
    assert!(o.status.success(), "{}", common::process::stderr(&o));
    let pgn = common::process::stdout(&o);
    let words = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("57. Bxb3 Kxb3 58. Ke4 1/2-1/2"), "{pgn}");
    let again: Vec<ImportedGame> = read_games(&pgn).iter().map(|r| ok(r).clone()).collect();
    let plies: Vec<usize> = again.iter().map(|g| g.game.ply_count()).collect();
    assert_eq!(plies, [115, 148, 134, 155]);
    // A bare move list (what `--to san` wrote) converts back whole, the end noted likewise.
    let o = common::process::annabella(&["convert", "--to", "uci", "-"], &[], &out);
    let err = common::process::stderr(&o);
    assert!(o.status.success(), "{err}");
    let uci = common::process::stdout(&o);
    let counts: Vec<usize> = uci.lines().map(|l| l.split_whitespace().count()).collect();
    assert_eq!(counts, [115, 148, 134, 155]);
    assert!(
        err.contains("game 1: played on after half-move 114"),
        "{err}"
    );
}

/// pgn-reader's own copy of the whole sample, where cargo unpacked the crate.
fn twic_sample() -> Option<String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))?;
    std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .flatten()
        .map(|d| {
            d.path()
                .join("pgn-reader-0.29.0/benches/twic1599_1000k.pgn")
        })
        .find_map(|p| std::fs::read_to_string(p).ok())
}

#[test]
fn every_game_of_the_twic_sample_converts_whole_as_python_chess_reads_it() {
    // The whole sample is pgn-reader's (a dependency, so cargo has it unpacked); without it the
    // four games above still run.
    let Some(text) = twic_sample() else {
        eprintln!("pgn-reader-0.29.0/benches/twic1599_1000k.pgn not found; skipped");
        return;
    };
    let expected: Vec<(usize, String)> = data_lines(TWIC_1000K_PYTHON_CHESS)
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[1].parse().expect("a count"), w[2].to_owned())
        })
        .collect();
    let games = read_games(&text);
    assert_eq!(games.len(), expected.len());
    let mut played_past = Vec::new();
    for (i, (r, (plies, last))) in games.iter().zip(&expected).enumerate() {
        let g = ok(r);
        // What `convert` writes: the imported game's scoresheet, replayed.
        let sheet = g.scoresheet();
        let game = sheet.game();
        assert_eq!(game.ply_count(), *plies, "game {}", i + 1);
        if *plies == 0 {
            continue;
        }
        let before = game
            .position_before(plies - 1)
            .expect("the last move's position");
        let m = *game.moves().last().expect("a move");
        let san = shakmaty::san::SanPlus::from_move(before, m).to_string();
        assert_eq!(&san, last, "game {}", i + 1);
        if g.played_past.is_some() {
            played_past.push(i + 1);
        }
    }
    assert_eq!(played_past, [2, 67, 828, 871]);
}
