//! Notation vectors from independent sources (ICCF, cheesse, python-chess) and round-trip properties.
//!
//! Spoken notation belongs to another module and is left out here.

use annabella::chess::language::Language;
use annabella::chess::notation::movelist::split_games;
use annabella::chess::notation::{Notation, Style, detect, format_move, parse_move};
use proptest::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

const STD: CastlingMode = CastlingMode::Standard;
const C960: CastlingMode = CastlingMode::Chess960;

/// Notations checked here: all but spoken.
const WRITTEN: [Notation; 5] = [
    Notation::San,
    Notation::Lan,
    Notation::Uci,
    Notation::Iccf,
    Notation::Telegraph,
];

fn pos(fen: &str, mode: CastlingMode) -> Chess {
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(mode)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn en() -> &'static Language {
    Language::english()
}

fn lang(code: &str) -> &'static Language {
    Language::builtin(code).unwrap()
}

fn uci(p: &Chess, mode: CastlingMode, text: &str) -> Move {
    text.parse::<UciMove>()
        .unwrap()
        .to_move(p)
        .unwrap_or_else(|e| panic!("{text} in {mode:?}: {e}"))
}

fn fmt(p: &Chess, mode: CastlingMode, m: Move, notation: Notation) -> String {
    format_move(p, mode, m, notation, &Style::new(en()))
}

/// The move's UCI (standard castling as e1g1) or the full error text.
fn parse_to_uci(
    p: &Chess,
    mode: CastlingMode,
    text: &str,
    notation: Option<Notation>,
    l: &Language,
) -> String {
    match parse_move(p, mode, text, notation, l) {
        Ok(m) => UciMove::from_move(m, mode).to_string(),
        Err(e) => e.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// ICCF numeric

const CHEESSE_ICCF: &str = "1. 5254 5755\n2. 7163 2836\n3. 6125 1716\n4. 2514 7866\n\
                            5. 5171 6857\n6. 6151 2725\n7. 1423 4746\n8. 3233 5878\n";
const CHEESSE_SAN: &str = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O";

#[test]
fn cheesse_iccf_game() {
    let games = split_games(CHEESSE_ICCF, false);
    assert_eq!(games.len(), 1);
    let mut p = Chess::default();
    let mut san = Vec::new();
    for token in &games[0].moves {
        assert_eq!(detect(&token.text), Notation::Iccf, "{}", token.text);
        let m = parse_move(&p, STD, &token.text, None, en()).unwrap();
        assert_eq!(fmt(&p, STD, m, Notation::Iccf), token.text);
        san.push(fmt(&p, STD, m, Notation::San));
        p.play_unchecked(m);
    }
    assert_eq!(san.join(" "), CHEESSE_SAN);
    // And back: the SAN score read in SAN and written in ICCF numeric.
    let mut p = Chess::default();
    let mut iccf = Vec::new();
    for token in &split_games(CHEESSE_SAN, false)[0].moves {
        let m = parse_move(&p, STD, &token.text, None, en()).unwrap();
        iccf.push(fmt(&p, STD, m, Notation::Iccf));
        p.play_unchecked(m);
    }
    assert_eq!(
        iccf.join(" "),
        "5254 5755 7163 2836 6125 1716 2514 7866 5171 6857 6151 2725 1423 4746 3233 5878"
    );
}

#[test]
fn iccf_castling_is_the_kings_move() {
    for (fen, text, san) in [
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "5131", "O-O-O"),
        ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "5838", "O-O-O"),
        ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "5878", "O-O"),
    ] {
        let p = pos(fen, STD);
        let m = parse_move(&p, STD, text, Some(Notation::Iccf), en()).unwrap();
        assert_eq!(fmt(&p, STD, m, Notation::San), san);
        assert_eq!(fmt(&p, STD, m, Notation::Iccf), text);
    }
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", STD);
    let oo = parse_move(&p, STD, "O-O", None, en()).unwrap();
    assert_eq!(fmt(&p, STD, oo, Notation::Iccf), "5171");
    assert_eq!(fmt(&p, STD, oo, Notation::Telegraph), "GAKA");
    assert_eq!(
        parse_to_uci(&p, STD, "5181", None, en()),
        "\"5181\": illegal here: castling is written as the king's move, e1 to g1"
    );
}

#[test]
fn iccf_promotions() {
    let p = pos("7k/2P2P2/8/8/8/8/8/K7 w - - 0 1", STD);
    for (text, expected) in [
        ("37381", "c7c8q"),
        ("37382", "c7c8r"),
        ("37383", "c7c8b"),
        ("37384", "c7c8n"),
        ("67682", "f7f8r"),
        ("67681", "f7f8q"),
    ] {
        assert_eq!(parse_to_uci(&p, STD, text, None, en()), expected, "{text}");
        let m = parse_move(&p, STD, text, None, en()).unwrap();
        assert_eq!(fmt(&p, STD, m, Notation::Iccf), text);
    }
    assert_eq!(
        parse_to_uci(&p, STD, "3738", None, en()),
        "\"3738\": promotion piece missing: add a fifth digit: 1 queen, 2 rook, 3 bishop, 4 knight"
    );
    for bad in ["37385", "37380", "37389"] {
        let err = parse_to_uci(&p, STD, bad, None, en());
        assert!(
            err.contains("1 queen, 2 rook, 3 bishop, 4 knight"),
            "{bad}: {err}"
        );
    }
    // A fifth digit on a move that is no promotion.
    let err = parse_to_uci(&p, STD, "11121", None, en());
    assert!(err.starts_with("\"11121\": illegal here"), "{err}");
}

#[test]
fn iccf_en_passant_is_a_plain_diagonal_move() {
    // The ICCF article's example: black pawn on e4, White plays 6264, Black takes with 5463.
    let mut p = pos("4k3/8/8/8/4p3/8/5P2/4K3 w - - 0 1", STD);
    let m = parse_move(&p, STD, "6264", None, en()).unwrap();
    p.play_unchecked(m);
    let ep = parse_move(&p, STD, "5463", None, en()).unwrap();
    assert!(ep.is_en_passant());
    assert_eq!(fmt(&p, STD, ep, Notation::San), "exf3");
    assert_eq!(fmt(&p, STD, ep, Notation::Iccf), "5463");
    assert_eq!(fmt(&p, STD, ep, Notation::Telegraph), "GOHI");
}

#[test]
fn iccf_squares_with_0_or_9_do_not_exist() {
    let p = Chess::default();
    assert_eq!(
        parse_to_uci(&p, STD, "5259", None, en()),
        "\"5259\": no such square \"59\""
    );
    assert_eq!(
        parse_to_uci(&p, STD, "0254", None, en()),
        "\"0254\": no such square \"02\""
    );
}

// ---------------------------------------------------------------------------------------------
// Telegraph

#[test]
fn telegraph_vectors() {
    let mut p = Chess::default();
    for text in ["GEGO", "SESO"] {
        assert_eq!(detect(text), Notation::Telegraph);
        let m = parse_move(&p, STD, text, None, en()).unwrap();
        assert_eq!(fmt(&p, STD, m, Notation::Telegraph), text);
        p.play_unchecked(m);
    }
    assert_eq!(
        parse_to_uci(
            &Chess::default(),
            STD,
            "gego",
            Some(Notation::Telegraph),
            en()
        ),
        "e2e4"
    );
    let promo = pos("7k/P7/8/8/8/8/8/K7 w - - 0 1", STD);
    assert_eq!(parse_to_uci(&promo, STD, "MEMA1", None, en()), "a7a8q");
    assert_eq!(
        parse_to_uci(&promo, STD, "MEMA", None, en()),
        "\"MEMA\": promotion piece missing: add a fifth digit: 1 queen, 2 rook, 3 bishop, 4 knight"
    );
    assert_eq!(
        parse_to_uci(&promo, STD, "MUMA", Some(Notation::Telegraph), en()),
        "\"MUMA\": no such square \"MU\""
    );
}

// ---------------------------------------------------------------------------------------------
// SAN and LAN: python-chess and shakmaty vectors

#[test]
fn python_chess_disambiguation() {
    let cases: [(&str, &[(&str, &str)]); 4] = [
        (
            "N3k2N/8/8/3N4/N4N1N/2R5/1R6/4K3 w - - 0 1",
            &[
                ("e1f1", "Kf1"),
                ("c3c2", "Rcc2"),
                ("b2c2", "Rbc2"),
                ("a4b6", "N4b6"),
                ("h8g6", "N8g6"),
                ("h4g6", "Nh4g6"),
            ],
        ),
        ("8/8/8/R2nkn2/8/8/2K5/8 b - - 0 1", &[("f5e3", "Ne3+")]),
        ("6bk/7b/8/3pP3/8/8/8/Q3K3 w - d6 0 2", &[("e5d6", "exd6#")]),
        (
            "8/2KN1p2/5p2/3N1B1k/5PNp/7P/7P/8 w - - 0 1",
            &[("d5f6", "N5xf6#")],
        ),
    ];
    for (fen, moves) in cases {
        let p = pos(fen, STD);
        for &(u, san) in moves {
            let m = uci(&p, STD, u);
            assert_eq!(fmt(&p, STD, m, Notation::San), san, "{fen} {u}");
            assert_eq!(parse_to_uci(&p, STD, san, None, en()), u, "{fen} {san}");
        }
    }
}

#[test]
fn python_chess_lan_and_promotions() {
    let p = pos("6bk/7b/8/3pP3/8/8/8/Q3K3 w - d6 0 2", STD);
    assert_eq!(fmt(&p, STD, uci(&p, STD, "e5d6"), Notation::Lan), "e5xd6#");
    assert_eq!(fmt(&p, STD, uci(&p, STD, "e1f1"), Notation::Lan), "Ke1-f1");
    assert_eq!(fmt(&p, STD, uci(&p, STD, "e5e6"), Notation::Lan), "e5-e6+");
    let p = pos("8/8/8/8/8/8/5p2/3K2k1 b - - 0 1", STD);
    assert_eq!(fmt(&p, STD, uci(&p, STD, "f2f1q"), Notation::San), "f1=Q+");
    let p = pos("8/8/8/8/8/8/5p1K/k7 b - - 0 1", STD);
    assert_eq!(fmt(&p, STD, uci(&p, STD, "f2f1n"), Notation::San), "f1=N+");
    // Castling with check from UCI e1a1 (king-takes-rook) is O-O-O+.
    let p = pos("r3k3/8/8/8/8/8/8/R3K3 w Q - 0 1", STD);
    let _ = p;
    let p = pos("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", STD);
    let m = parse_move(&p, STD, "e1a1", Some(Notation::Uci), en()).unwrap();
    assert_eq!(fmt(&p, STD, m, Notation::San), "O-O-O+");
    assert_eq!(fmt(&p, STD, m, Notation::Uci), "e1c1");
    assert_eq!(fmt(&p, STD, m, Notation::Iccf), "5131");
}

#[test]
fn castling_san_is_not_a_king_move() {
    // python-chess test_castling_san: O-O is e1g1, Kg1 and Kh1 are illegal.
    let p = pos("4k3/8/8/8/8/8/8/4K2R w K - 0 1", STD);
    assert_eq!(parse_to_uci(&p, STD, "O-O", None, en()), "e1g1");
    for t in ["Kg1", "Kh1"] {
        let err = parse_to_uci(&p, STD, t, None, en());
        assert!(err.contains("illegal here"), "{t}: {err}");
    }
    // Long algebraic may write castling as the king's two-square move.
    assert_eq!(parse_to_uci(&p, STD, "Ke1-g1", None, en()), "e1g1");
}

/// The rows of the leniency table (notations.md §3.5), each with a position where it is legal.
#[test]
fn san_leniency_table() {
    let start = Chess::default();
    let exd5 = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
    let exf6 = "rnbqkbnr/ppppp1pp/8/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    let promo = "7k/4P3/8/8/8/8/8/4K3 w - - 0 1";
    let castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    // Nge2 with the c1 knight pinned: ChessBase writes Nge2, Lichess Ne2.
    let pinned = "4k3/8/8/8/8/8/8/r1N1K1N1 w - - 0 1";
    let rows: &[(&str, &str, &str)] = &[
        (pinned, "Nge2", "g1e2"),
        (pinned, "Ne2", "g1e2"),
        ("", "e2e4", "e2e4"),
        ("", "Ng1f3", "g1f3"),
        (exd5, "e4xd5", "e4d5"),
        (promo, "e7e8=Q", "e7e8q"),
        ("", "Pe4", "e2e4"),
        (exd5, "xd5", "e4d5"),
        ("", "Nf3+", "g1f3"),
        ("", "e2-e4", "e2e4"),
        ("", "e2–e4", "e2e4"),
        ("", "Ng1-f3", "g1f3"),
        (exd5, "e4d5", "e4d5"),
        (exd5, "ed5", "e4d5"),
        (exf6, "exf6e.p.", "e5f6"),
        (exf6, "exf6 e.p.", "e5f6"),
        (exf6, "exf6 ep", "e5f6"),
        (exf6, "exf6 a.p.", "e5f6"),
        (exf6, "e5xf6 e.p.", "e5f6"),
        (exf6, "5566", "e5f6"),
        (promo, "e8Q", "e7e8q"),
        (promo, "e8=q", "e7e8q"),
        (promo, "e8(Q)", "e7e8q"),
        (promo, "e8/Q", "e7e8q"),
        (promo, "e8q", "e7e8q"),
        (promo, "e7e8q", "e7e8q"),
        (promo, "e8=N+", "e7e8n"),
        (castle, "0-0", "e1g1"),
        (castle, "o-o", "e1g1"),
        (castle, "O‑O", "e1g1"),
        (castle, "0-0-0", "e1c1"),
        (castle, "O-O+", "e1g1"),
        ("", "Nf3!?", "g1f3"),
        ("", "Nf3 !?", "g1f3"),
        ("", "Nf3(=)", "g1f3"),
        ("", "♘f3", "g1f3"),
        ("", "♞f3", "g1f3"),
    ];
    for &(fen, text, expected) in rows {
        let p = if fen.is_empty() {
            start.clone()
        } else {
            pos(fen, STD)
        };
        assert_ne!(detect(text), Notation::Spoken, "{text}");
        assert_eq!(parse_to_uci(&p, STD, text, None, en()), expected, "{text}");
    }
    // Rows that stay errors, with the reason.
    let p = pos(exd5, STD);
    assert_eq!(
        parse_to_uci(&p, STD, "ed", None, en()),
        "\"ed\": not a move in SAN notation: no destination square (like e4) at the end, \
         found \"ed\""
    );
    let p = pos(promo, STD);
    assert_eq!(
        parse_to_uci(&p, STD, "e8", None, en()),
        "\"e8\": promotion piece missing: add =Q, =R, =B or =N"
    );
    assert_eq!(
        parse_to_uci(&p, STD, "e8", None, lang("de")),
        "\"e8\": promotion piece missing: add =D, =T, =L or =S"
    );
}

#[test]
fn national_letters() {
    let p = Chess::default();
    for (code, text) in [
        ("en", "Nf3"),
        ("de", "Sf3"),
        ("es", "Cf3"),
        ("fr", "Cf3"),
        ("it", "Cf3"),
        ("pt", "Cf3"),
        ("nl", "Pf3"),
    ] {
        assert_eq!(
            parse_to_uci(&p, STD, text, None, lang(code)),
            "g1f3",
            "{code}"
        );
        let m = uci(&p, STD, "g1f3");
        let style = Style::new(lang(code));
        assert_eq!(format_move(&p, STD, m, Notation::San, &style), text);
        assert_eq!(
            format_move(&p, STD, m, Notation::Lan, &style),
            format!("{}g1-f3", &text[..1])
        );
    }
    // The language is never guessed: Sf3 is no English move.
    assert_eq!(
        parse_to_uci(&p, STD, "Sf3", None, en()),
        "\"Sf3\": not a move in SAN notation: S is not a piece letter in English \
         (K Q R B N; P for a pawn)"
    );
    // Lowercase letters are files, not pieces.
    assert_eq!(
        parse_to_uci(&p, STD, "nf3", None, en()),
        "\"nf3\": not a move in SAN notation: piece letters are uppercase: N, not n"
    );
    let mut style = Style::new(lang("de"));
    style.figurines = true;
    assert_eq!(
        format_move(&p, STD, uci(&p, STD, "g1f3"), Notation::San, &style),
        "♘f3"
    );
}

#[test]
fn ambiguous_moves_list_the_candidates() {
    let p = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", STD);
    assert_eq!(
        parse_to_uci(&p, STD, "Rf1", None, en()),
        "\"Rf1\": ambiguous: could be Raf1 or Rhf1"
    );
    assert_eq!(
        parse_to_uci(&p, STD, "Tf1", None, lang("de")),
        "\"Tf1\": ambiguous: could be Taf1 or Thf1"
    );
    let p = pos("4k3/8/8/8/8/1N3N2/8/4K3 w - - 0 1", STD);
    assert_eq!(
        parse_to_uci(&p, STD, "Nd4", None, en()),
        "\"Nd4\": ambiguous: could be Nbd4 or Nfd4"
    );
}

#[test]
fn errors_name_token_and_reason() {
    let p = Chess::default();
    for (text, notation, expected) in [
        (
            "e5",
            None,
            "\"e5\": illegal here: no pawn of white can go to e5",
        ),
        (
            "Ke2",
            None,
            "\"Ke2\": illegal here: no king of white can go to e2",
        ),
        (
            "e2e5",
            None,
            "\"e2e5\": illegal here: the pawn on e2 cannot go to e5 here",
        ),
        (
            "Zf3",
            Some(Notation::San),
            "\"Zf3\": not a move in SAN notation: Z is not a piece letter in English (K Q R B N; P for a pawn)",
        ),
        (
            "e2e9",
            Some(Notation::Uci),
            "\"e2e9\": no such square \"e9\"",
        ),
        (
            "52",
            Some(Notation::Iccf),
            "\"52\": not a move in ICCF numeric notation: 2 digits; a move is four digits, from-square then to-square (e2-e4 = 5254), and a fifth for a promotion (1 queen, 2 rook, 3 bishop, 4 knight)",
        ),
        ("   ", None, "\"   \": empty move"),
    ] {
        assert_eq!(
            parse_to_uci(&p, STD, text, notation, en()),
            expected,
            "{text}"
        );
    }
    let long = "e".repeat(300);
    assert!(parse_to_uci(&p, STD, &long, None, en()).contains("too long (300 bytes"));
}

#[test]
fn detection() {
    for (text, n) in [
        ("5254", Notation::Iccf),
        ("37381", Notation::Iccf),
        ("GEGO", Notation::Telegraph),
        ("MEMA1", Notation::Telegraph),
        ("e2e4", Notation::Uci),
        ("e7e8q", Notation::Uci),
        ("e2-e4", Notation::Lan),
        ("Ng1-f3", Notation::Lan),
        ("Cg1f3", Notation::Lan),
        ("e5xd6", Notation::Lan),
        ("e5xd6 e.p.", Notation::Lan),
        ("Nf3", Notation::San),
        ("exd6 e.p.", Notation::San),
        ("O-O", Notation::San),
        ("Springer f drei", Notation::Spoken),
    ] {
        assert_eq!(detect(text), n, "{text}");
    }
}

// ---------------------------------------------------------------------------------------------
// Pasted scores

/// Plays every game of `text`; returns each game's moves in English SAN.
fn play_games(text: &str, notation: Option<Notation>, l: &Language) -> Vec<String> {
    split_games(text, false)
        .iter()
        .map(|g| {
            let mut p = Chess::default();
            let mut out = Vec::new();
            for t in &g.moves {
                let m = parse_move(&p, STD, &t.text, notation, l)
                    .unwrap_or_else(|e| panic!("line {}: {e}", t.line));
                out.push(fmt(&p, STD, m, Notation::San));
                p.play_unchecked(m);
            }
            out.join(" ")
        })
        .collect()
}

#[test]
fn pasted_scores_read_back() {
    // python-chess data/pgn/molinari-bordais-1979.pgn, a correspondence game.
    assert_eq!(
        play_games(
            "1.e4 c5 2.c4 Nc6 3.Ne2 Nf6 4.Nbc3 Nb4 5.g3 Nd3# 0-1",
            None,
            en()
        ),
        ["e4 c5 c4 Nc6 Ne2 Nf6 Nbc3 Nb4 g3 Nd3#"]
    );
    // Wrapped movetext with comments, a variation, NAGs and lenient forms.
    let pgn = "1. e4 {King's pawn} e5 2. Nf3 $1 (2. f4 exf4 3. Nf3) 2... Nc6\n\
               3. Bb5 a6 4. Ba4 Nf6 5. 0-0 Be7!? 6. Re1 b5 7. Bb3 d6\n\
               8. c3 O‑O ; Unicode hyphen\n9. h3 1/2-1/2\n\n1. d4 d5 *";
    assert_eq!(
        play_games(pgn, None, en()),
        [
            "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3",
            "d4 d5"
        ]
    );
    // German letters, glued numbers, e.p. written apart.
    assert_eq!(
        play_games("1.e4 Sf6 2.e5 d5 3.exd6 e.p. Dxd6", None, lang("de")),
        ["e4 Nf6 e5 d5 exd6 Qxd6"]
    );
    // One game per line, as `annabella convert` writes them, in every written notation.
    let games = [
        "e4 e5 Nf3 Nc6 Bb5",
        "d4 d5 c4 dxc4 e4 b5 a4 c6 axb5 cxb5 Qf3",
    ];
    for notation in WRITTEN {
        let text: Vec<String> = games
            .iter()
            .map(|g| {
                let mut p = Chess::default();
                g.split(' ')
                    .map(|san| {
                        let m = parse_move(&p, STD, san, Some(Notation::San), en()).unwrap();
                        let t = fmt(&p, STD, m, notation);
                        p.play_unchecked(m);
                        t
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            play_games(&text.join("\n"), Some(notation), en()),
            games,
            "{notation}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Chess960

#[test]
fn chess960_castling() {
    // King f1, rook h1: O-O is f1-g1 for the king, so the king's destination is ambiguous.
    let p = pos("4k3/8/8/8/8/8/8/5K1R w H - 0 1", C960);
    let oo = parse_move(&p, C960, "O-O", None, en()).unwrap();
    assert!(oo.is_castle());
    assert_eq!(fmt(&p, C960, oo, Notation::Iccf), "6181");
    assert_eq!(fmt(&p, C960, oo, Notation::Telegraph), "HALA");
    assert_eq!(fmt(&p, C960, oo, Notation::Uci), "f1h1");
    assert_eq!(fmt(&p, C960, oo, Notation::San), "O-O");
    assert_eq!(fmt(&p, C960, oo, Notation::Lan), "O-O");
    for text in ["6181", "HALA", "f1h1", "O-O", "0-0"] {
        assert_eq!(parse_move(&p, C960, text, None, en()), Ok(oo), "{text}");
    }
    // 6171 literally names the king's step; castling keeps its king-takes-rook form.
    assert_eq!(parse_to_uci(&p, C960, "6171", None, en()), "f1g1");
    // UCI_Chess960 writes castling only as king-takes-rook, so f1g1 is the king's step.
    assert_eq!(parse_to_uci(&p, C960, "f1g1", None, en()), "f1g1");
    assert!(
        !parse_move(&p, C960, "f1g1", None, en())
            .unwrap()
            .is_castle()
    );
    // So is Kf1-g1 (and Kg1): castling has its own notation in SAN and LAN.
    for text in ["Kf1-g1", "Kg1"] {
        let m = parse_move(&p, C960, text, None, en()).unwrap();
        assert!(!m.is_castle(), "{text}");
    }

    // King b1, rooks a1 and h1: the queenside castle is king-takes-rook b1a1.
    let p = pos("1k5r/8/8/8/8/8/8/RK5R w HAh - 0 1", C960);
    let ooo = parse_move(&p, C960, "O-O-O", None, en()).unwrap();
    assert_eq!(fmt(&p, C960, ooo, Notation::Iccf), "2111");
    assert_eq!(parse_move(&p, C960, "2111", None, en()), Ok(ooo));
    // b1-c1 is both the king's destination and a one-step king move: the step is meant.
    assert_eq!(parse_to_uci(&p, C960, "2131", None, en()), "b1c1");
}

// ---------------------------------------------------------------------------------------------
// Round trips over every legal move of special positions

/// Format in every written notation and language (and figurines), parse back, same move; and
/// detection must find the notation it was written in.
fn round_trip(p: &Chess, mode: CastlingMode, m: Move) -> Result<(), String> {
    let one = |notation: Notation, style: &Style| -> Result<(), String> {
        let text = format_move(p, mode, m, notation, style);
        let back = parse_move(p, mode, &text, Some(notation), style.lang);
        if back != Ok(m) {
            return Err(format!(
                "{notation} {} {text:?} in {}: {back:?}, want {m:?}",
                style.lang.code(),
                Fen::from_position(p, shakmaty::EnPassantMode::Legal)
            ));
        }
        let detected = detect(&text);
        // SAN and long algebraic share one reader, and `Nh4g6` or `O-O` is both.
        let algebraic = |n| matches!(n, Notation::San | Notation::Lan);
        if detected != notation && !(algebraic(notation) && algebraic(detected)) {
            return Err(format!(
                "{text:?} detected as {detected}, written in {notation}"
            ));
        }
        // Spoken detection would reach another module; the others must read back too.
        let back = parse_move(p, mode, &text, None, style.lang);
        if back != Ok(m) {
            return Err(format!("{text:?} with detection: {back:?}"));
        }
        Ok(())
    };
    for l in Language::all_builtin() {
        let style = Style::new(l);
        one(Notation::San, &style)?;
        one(Notation::Lan, &style)?;
    }
    let mut fig = Style::new(lang("de"));
    fig.figurines = true;
    one(Notation::San, &fig)?;
    one(Notation::Lan, &fig)?;
    let style = Style::new(en());
    one(Notation::Uci, &style)?;
    one(Notation::Iccf, &style)?;
    one(Notation::Telegraph, &style)?;
    Ok(())
}

#[test]
fn every_legal_move_of_special_positions_round_trips() {
    let positions = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            STD,
        ),
        // Kiwipete: castling both ways, pins, en passant after a double step.
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            STD,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/Pp2P3/2N2Q1p/1PPBBPPP/R3K2R b KQkq a3 0 1",
            STD,
        ),
        // Promotions with captures and checks, both sides.
        ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1", STD),
        ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", STD),
        ("N3k2N/8/8/3N4/N4N1N/2R5/1R6/4K3 w - - 0 1", STD),
        ("8/2KN1p2/5p2/3N1B1k/5PNp/7P/7P/8 w - - 0 1", STD),
        ("6bk/7b/8/3pP3/8/8/8/Q3K3 w - d6 0 2", STD),
        // Chess960: king next to its rooks, rook on the king's destination.
        ("4k3/8/8/8/8/8/8/5K1R w H - 0 1", C960),
        ("1k5r/8/8/8/8/8/8/RK5R w HAh - 0 1", C960),
        ("rk4r1/8/8/8/8/8/8/RK4R1 w GAga - 0 1", C960),
        ("1r3kr1/8/8/8/8/8/8/1R3KR1 b GBgb - 0 1", C960),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            C960,
        ),
    ];
    for (fen, mode) in positions {
        let p = pos(fen, mode);
        for &m in &p.legal_moves() {
            if let Err(e) = round_trip(&p, mode, m) {
                panic!("{fen}: {e}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Properties

/// The back rank of Chess960 start position `n` (Scharnagl numbering, 518 = standard).
fn chess960_back_rank(mut n: usize) -> [char; 8] {
    let mut rank = [' '; 8];
    rank[2 * (n % 4) + 1] = 'B';
    n /= 4;
    rank[2 * (n % 4)] = 'B';
    n /= 4;
    let place = |rank: &mut [char; 8], mut k: usize, piece: char| {
        for c in rank.iter_mut() {
            if *c == ' ' {
                if k == 0 {
                    *c = piece;
                    return;
                }
                k -= 1;
            }
        }
    };
    place(&mut rank, n % 6, 'Q');
    n /= 6;
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n % 10];
    // The second knight's index counts the empties left after the first.
    place(&mut rank, a, 'N');
    place(&mut rank, b - 1, 'N');
    for piece in ['R', 'K', 'R'] {
        place(&mut rank, 0, piece);
    }
    rank
}

fn chess960_start(n: usize) -> Chess {
    let rank = chess960_back_rank(n);
    let white: String = rank.iter().collect();
    let black = white.to_lowercase();
    let rights: String = rank
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c == 'R')
        .map(|(i, _)| (b'A' + i as u8) as char)
        .collect::<String>();
    let fen = format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {rights}{} - 0 1",
        rights.to_lowercase()
    );
    pos(&fen, C960)
}

#[test]
fn chess960_numbering() {
    assert_eq!(
        chess960_back_rank(518).iter().collect::<String>(),
        "RNBQKBNR"
    );
    assert_eq!(chess960_back_rank(0).iter().collect::<String>(), "BBQNNRKR");
    assert_eq!(
        chess960_back_rank(959).iter().collect::<String>(),
        "RKRNNQBB"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random games from the standard start or a Chess960 start: every move played round-trips
    /// in every notation and language, and so does every legal move where the game stops.
    #[test]
    fn random_games_round_trip(
        chess960 in any::<bool>(),
        start in 0usize..960,
        choices in proptest::collection::vec(any::<u16>(), 0..160),
    ) {
        let (mut p, mode) = if chess960 {
            (chess960_start(start), C960)
        } else {
            (Chess::default(), STD)
        };
        for c in choices {
            let legal = p.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[usize::from(c) % legal.len()];
            round_trip(&p, mode, m).map_err(TestCaseError::fail)?;
            p.play_unchecked(m);
        }
        for &m in &p.legal_moves() {
            round_trip(&p, mode, m).map_err(TestCaseError::fail)?;
        }
    }
}

/// Text that is near a move more often than random characters are.
fn movelike() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "e", "x", "d", "6", "8", "e.p.", " ", "O", "o", "0", "-", "–", "=", "Q", "q", "(", ")",
        "{", "}", "1.", "1...", "…", "♘", "♟", "5", "9", "+", "#", "!", "?", "$", "\n", ";", "½",
        "/", "G", "A", "M", "N", "S", "é", "\u{301}", "1-0", "*", "ep", "\t", "\r\n", "\u{0}",
    ]);
    proptest::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

fn anything() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(any::<char>(), 0..300).prop_map(|v| v.into_iter().collect()),
        movelike(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in anything()) {
        let positions = [
            (Chess::default(), STD),
            (pos("r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1", STD), STD),
            (pos("4k3/8/8/8/8/8/8/5K1R w H - 0 1", C960), C960),
        ];
        for (p, mode) in &positions {
            for l in [en(), lang("de"), lang("nl")] {
                for notation in WRITTEN {
                    let _ = parse_move(p, *mode, &text, Some(notation), l);
                }
                if detect(text.trim()) != Notation::Spoken {
                    let _ = parse_move(p, *mode, &text, None, l);
                }
            }
        }
        for one_per_line in [false, true] {
            for game in split_games(&text, one_per_line) {
                for token in game.moves {
                    prop_assert!(!token.text.trim().is_empty());
                    if detect(token.text.trim()) != Notation::Spoken {
                        let _ = parse_move(&positions[0].0, STD, &token.text, None, en());
                    }
                }
            }
        }
    }
}
