//! The command-line contract, tested on the built binary: `annabella convert` and `announce`.

pub mod common;

use common::fs::scratch_dir;
use common::process::{annabella, stderr, stdout};

/// Runs a conversion that must succeed and returns its standard output.
fn convert(args: &[&str], input: &str) -> String {
    let mut all = vec!["convert"];
    all.extend_from_slice(args);
    let o = annabella(&all, &[], input);
    assert!(
        o.status.success(),
        "convert {args:?} failed: {}",
        stderr(&o)
    );
    stdout(&o)
}

const MOLINARI_BORDAIS: &str =
    "1. 5254 3735\n2. 3234 2836\n3. 7152 7866\n4. 2133 3624\n5. 7273 2443\n";
const RUY_LOPEZ_ICCF: &str = "1. 5254 5755 2. 7163 2836 3. 6125 1716 4. 2514 7866 5. 5171 6857 6. 6151 2725 7. 1423 4746 8. 3233 5878";
const RUY_LOPEZ_SAN: &str = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O\n";

#[test]
fn correspondence_game_in_numeric_notation_reads_as_san() {
    assert_eq!(
        convert(&["--to", "san"], MOLINARI_BORDAIS),
        "e4 c5 c4 Nc6 Ne2 Nf6 Nbc3 Nb4 g3 Nd3#\n"
    );
    assert_eq!(convert(&["--to", "san"], RUY_LOPEZ_ICCF), RUY_LOPEZ_SAN);
}

#[test]
fn castling_comes_out_as_the_kings_move_in_numeric_notation() {
    assert_eq!(
        convert(&["--to", "iccf"], RUY_LOPEZ_SAN),
        RUY_LOPEZ_ICCF
            .split_whitespace()
            .filter(|t| !t.ends_with('.'))
            .collect::<Vec<_>>()
            .join(" ")
            + "\n"
    );
    let out = convert(&["--to", "iccf"], "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O Nf6 d3 O-O");
    assert!(
        out.contains(" 5171 ") && out.trim_end().ends_with("5878"),
        "{out}"
    );
    assert!(!out.contains("5181"), "{out}");
}

#[test]
fn every_output_notation_reads_back() {
    for to in ["san", "lan", "uci", "iccf", "telegraph"] {
        let there = convert(&["--to", to], RUY_LOPEZ_SAN);
        assert_eq!(
            convert(&["--from", to, "--to", "san"], &there),
            RUY_LOPEZ_SAN,
            "via {to}"
        );
    }
    for lang in ["de", "en", "es", "fr", "it", "nl", "pt"] {
        for verbosity in ["short", "long"] {
            let spoken = convert(
                &["--to", "spoken", "--lang", lang, "--verbosity", verbosity],
                RUY_LOPEZ_ICCF,
            );
            assert_eq!(spoken.lines().count(), 16, "{spoken}");
            let back = convert(
                &["--from", "spoken", "--lang", lang, "--to", "uci"],
                &spoken,
            );
            assert_eq!(
                back,
                convert(&["--to", "uci"], RUY_LOPEZ_SAN),
                "{lang} {verbosity}: {spoken}"
            );
        }
    }
}

#[test]
fn spoken_input_is_detected_without_from() {
    // What `--to spoken` writes (two games) reads back with the default `--from auto`.
    let two_games = convert(&["--to", "uci"], &format!("{RUY_LOPEZ_SAN}d4 d5 c4\n"));
    for lang in ["de", "en", "es", "fr", "it", "nl", "pt"] {
        let spoken = convert(&["--to", "spoken", "--lang", lang], &two_games);
        assert_eq!(
            convert(&["--lang", lang, "--to", "uci"], &spoken),
            two_games,
            "{lang}: {spoken}"
        );
    }
    // Numbered, typed by an assistant.
    assert_eq!(
        convert(
            &["--lang", "de", "--to", "uci"],
            "1. Eva vier\n1... Eva fünf\n2. Springer Felix drei\n"
        ),
        "e2e4 e7e5 g1f3\n"
    );
    // Written lists stay written, also with castling and pawn moves alone.
    assert_eq!(
        convert(&["--lang", "de", "--to", "uci"], "e4 e5\nd4 d5\n"),
        "e2e4 e7e5\nd2d4 d7d5\n"
    );
}

#[test]
fn telegraph_code_of_the_seed() {
    assert_eq!(convert(&["--to", "telegraph"], "e4 e5"), "GEGO SESO\n");
}

#[test]
fn spoken_output_is_one_line_per_move_and_games_are_separated_by_an_empty_line() {
    let out = convert(&["--to", "spoken", "--lang", "de"], "e4 e5\nd4 d5\n");
    let blocks: Vec<_> = out.split("\n\n").collect();
    assert_eq!(blocks.len(), 2, "{out:?}");
    assert_eq!(out.lines().filter(|l| l.is_empty()).count(), 1);
    assert!(out.starts_with("Eva vier\n"), "{out}");
}

#[test]
fn san_input_and_output_in_the_players_language() {
    assert_eq!(
        convert(&["--lang", "de", "--to", "san"], "e4 e5 Sf3 Sc6 Lb5"),
        "e4 e5 Sf3 Sc6 Lb5\n"
    );
    assert_eq!(
        convert(&["--lang", "es", "--to", "san"], "e4 e5 Cf3 Cc6 Ab5"),
        "e4 e5 Cf3 Cc6 Ab5\n"
    );
    assert_eq!(
        convert(&["--lang", "es", "--to", "uci"], "e4 e5 Cf3"),
        "e2e4 e7e5 g1f3\n"
    );
    // PGN is read with English letters whatever --lang says, as the PGN standard has it.
    let pgn = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 *\n";
    assert_eq!(
        convert(&["--lang", "de", "--to", "san"], pgn),
        "e4 e5 Sf3\n"
    );
}

#[test]
fn a_bad_game_is_reported_and_the_good_ones_are_still_converted() {
    let pgn = "[Event \"one\"]\n\n1. e4 e5 *\n\n[Event \"two\"]\n\n1. e4 e5 2. Ke3 *\n\n[Event \"three\"]\n\n1. d4 *\n";
    let o = annabella(&["convert", "--to", "uci"], &[], pgn);
    assert!(!o.status.success());
    assert_eq!(stdout(&o), "e2e4 e7e5\nd2d4\n");
    let err = stderr(&o);
    assert!(
        err.contains("game 2") && err.contains("ply 3") && err.contains("Ke3"),
        "{err}"
    );
}

#[test]
fn pgn_is_recognised_when_it_does_not_start_with_a_tag() {
    // A `;` comment or `%` escape line before the first tag, a comment, a first game without
    // tags: still PGN, not a bare move list whose "moves" would be `[Event`.
    for pgn in [
        "; exported by a tool\n[Event \"a\"]\n\n1. e4 e5 *\n",
        "% escape line\n[Event \"a\"]\n\n1. e4 e5 *\n",
        "{ a collection }\n[Event \"a\"]\n\n1. e4 e5 *\n",
        "\u{feff}\n[Event \"a\"]\n\n1. e4 e5 *\n",
    ] {
        assert_eq!(convert(&["--to", "uci"], pgn), "e2e4 e7e5\n", "{pgn:?}");
    }
    assert_eq!(
        convert(
            &["--to", "uci"],
            "1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 d5 *\n"
        ),
        "e2e4 e7e5\nd2d4 d7d5\n"
    );
}

#[test]
fn bare_list_errors_name_game_ply_and_token() {
    let o = annabella(
        &["convert", "--to", "san"],
        &[],
        "e4 e5\nd4 d5 c4\nd4 Nf6 Bg5 xx\n",
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("game 3") && err.contains("ply 4") && err.contains("\"xx\""),
        "{err}"
    );
    // The good games are all converted, and nothing of the bad one is written.
    assert_eq!(stdout(&o), "e4 e5\nd4 d5 c4\n");
}

#[test]
fn an_unclosed_comment_or_variation_is_reported_not_swallowed() {
    // The `(` swallows e5 and the rest of the line; the `{` of game 2 swallows d5.
    let o = annabella(
        &["convert", "--to", "san"],
        &[],
        "1. e4 (1. d4 e5\n\n1. d4 {oops d5\n\n1. c4 c5\n",
    );
    assert!(!o.status.success());
    assert_eq!(stdout(&o), "c4 c5\n");
    let err = stderr(&o);
    assert!(
        err.contains("game 1, ply 2") && err.contains("\"(\"") && err.contains("never closed"),
        "{err}"
    );
    assert!(
        err.contains("game 2, ply 2") && err.contains("line 3") && err.contains("\"{\""),
        "{err}"
    );
}

/// A legal game of `plies` half-moves in UCI (no capture, pawns moved only to stay clear of
/// the 75-move rule, never a game end).
fn long_uci_game(plies: usize) -> Vec<String> {
    use annabella::chess::game::Game;
    use shakmaty::{CastlingMode, Position, Role};
    let mut game = Game::new();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = Vec::new();
    while game.ply_count() < plies {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let pawn_time = game.halfmove_clock() >= 140;
        let legal = game.position().legal_moves();
        let mut candidates: Vec<_> = legal
            .iter()
            .copied()
            .filter(|m| !m.is_capture() && (m.role() == Role::Pawn) == pawn_time)
            .collect();
        if candidates.is_empty() {
            candidates = legal.to_vec();
        }
        let start = (seed >> 33) as usize;
        let m = (0..candidates.len())
            .map(|i| candidates[(start + i) % candidates.len()])
            .find(|&m| {
                let mut g = game.clone();
                g.play(m).unwrap();
                !g.is_over()
            })
            .expect("a move that does not end the game");
        out.push(m.to_uci(CastlingMode::Standard).to_string());
        game.play(m).unwrap();
    }
    out
}

#[test]
fn a_bare_game_longer_than_the_ply_limit_is_refused() {
    use annabella::chess::pgn::MAX_PLIES;
    let moves = long_uci_game(MAX_PLIES + 1);
    let o = annabella(&["convert", "--to", "iccf"], &[], moves.join(" "));
    assert!(!o.status.success());
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(
        err.contains(&format!("game 1, ply {}", MAX_PLIES + 1))
            && err.contains(&format!("more than {MAX_PLIES} half-moves")),
        "{err}"
    );
    // The limit itself is fine, and so is the next game.
    let text = format!("{}\ne4 e5\n", moves[..MAX_PLIES].join(" "));
    let out = convert(&["--to", "uci"], &text);
    assert_eq!(out.lines().count(), 2);
    assert_eq!(out.lines().next().unwrap().split(' ').count(), MAX_PLIES);
}

#[test]
fn missing_promotion_digit_says_which_digits_are_allowed() {
    let o = annabella(
        &[
            "convert",
            "--fen",
            "8/P6k/8/8/8/8/8/K7 w - - 0 1",
            "--to",
            "san",
        ],
        &[],
        "1718",
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("1718") && err.contains("1 queen") && err.contains("4 knight"),
        "{err}"
    );
    let ok = convert(
        &["--fen", "8/P6k/8/8/8/8/8/K7 w - - 0 1", "--to", "san"],
        "17184",
    );
    assert_eq!(ok, "a8=N\n");
}

#[test]
fn chess960_uci_writes_castling_king_takes_rook() {
    let fen = "4k3/8/8/8/8/8/8/5K1R w H - 0 1";
    assert_eq!(
        convert(&["--chess960", "--fen", fen, "--to", "uci"], "O-O"),
        "f1h1\n"
    );
    assert_eq!(
        convert(&["--chess960", "--fen", fen, "--to", "iccf"], "O-O"),
        "6181\n"
    );
    assert_eq!(
        convert(&["--chess960", "--fen", fen, "--to", "san"], "6181"),
        "O-O\n"
    );
}

#[test]
fn chess960_by_position_number() {
    // Position 0 is BBQNNRKR.
    assert_eq!(
        convert(
            &["--chess960", "--fen", "0", "--to", "san"],
            "g2g3 g7g6 Nd3"
        ),
        "g3 g6 Nd3\n"
    );
}

#[test]
fn chess960_numbers_out_of_range_are_named_as_such() {
    for n in ["960", "-1", "99999999999999999999"] {
        let o = annabella(&["convert", "--chess960", &format!("--fen={n}")], &[], "e4");
        assert!(!o.status.success());
        assert_eq!(stdout(&o), "");
        let err = stderr(&o);
        assert!(
            err.contains(&format!("no chess960 position number {n}")) && err.contains("0 to 959"),
            "{err}"
        );
    }
    let o = annabella(&["convert", "--fen", "518"], &[], "e4");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("needs --chess960"), "{}", stderr(&o));
    assert_eq!(
        convert(&["--chess960", "--fen", " +518 ", "--to", "uci"], "e4"),
        "e2e4\n"
    );
}

#[test]
fn pgn_round_trip_with_clock_comments() {
    let pgn = "[Event \"Club\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 { [%clk 1:29:58] } e5 { [%clk 1:29:50] } 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    let out = convert(&["--to", "pgn"], pgn);
    assert!(
        out.contains("[%clk 1:29:58]") && out.contains("Qxf7#") && out.contains("1-0"),
        "{out}"
    );
    assert_eq!(
        convert(&["--to", "san"], &out),
        "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#\n"
    );
}

#[test]
fn several_games_out_as_pgn_or_braille_are_kept_apart() {
    let two = "e4 e5\nd4 d5\n";
    let pgn = convert(&["--to", "pgn"], two);
    assert!(pgn.contains("1. e4 e5 *\n\n[Event"), "{pgn}");
    assert_eq!(convert(&["--to", "san"], &pgn), "e4 e5\nd4 d5\n");
    let brf = convert(&["--to", "brf"], two);
    assert_eq!(brf.matches('\u{c}').count(), 1, "{brf:?}");
    assert!(
        brf.split('\u{c}').all(|game| game.starts_with("#A ")),
        "{brf:?}"
    );
    let braille = convert(&["--to", "braille"], two);
    assert!(braille.contains("⠡\n\n⠼⠁"), "{braille}");
}

#[test]
fn braille_scoresheet() {
    let out = convert(&["--to", "braille"], "e4 e5");
    assert!(out.contains("⠑⠲"), "{out}");
    assert!(
        out.chars()
            .all(|c| c.is_whitespace() || ('\u{2800}'..='\u{28ff}').contains(&c)),
        "{out}"
    );
    let brf = convert(&["--to", "brf"], "e4 e5 Nf3 Nc6");
    assert!(brf.lines().all(|l| l.len() <= 40 && l.is_ascii()), "{brf}");
}

#[test]
fn announce_prints_one_phrase_per_move() {
    let o = annabella(&["announce", "--lang", "de", "e4", "e5", "Sf3"], &[], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Eva vier\nEva fünf\nSpringer Felix drei\n");
    let long = annabella(
        &[
            "announce",
            "--lang",
            "de",
            "--verbosity",
            "long",
            "5254",
            "5755",
            "7163",
        ],
        &[],
        "",
    );
    assert_eq!(
        stdout(&long),
        "Eva zwei Eva vier\nEva sieben Eva fünf\nSpringer Gustav eins Felix drei\n"
    );
    let mate = annabella(
        &["announce", "--lang", "de", "f3", "e5", "g4", "Dh4"],
        &[],
        "",
    );
    assert!(
        stdout(&mate).trim_end().ends_with("Matt"),
        "{}",
        stdout(&mate)
    );
}

#[test]
fn announce_reports_an_illegal_move_with_its_place() {
    let o = annabella(&["announce", "--lang", "de", "e4", "e4"], &[], "");
    assert!(!o.status.success());
    assert_eq!(stdout(&o), "Eva vier\n");
    let err = stderr(&o);
    assert!(err.contains("move 2") && err.contains("\"e4\""), "{err}");
}

#[test]
fn announce_does_not_speak_a_move_the_game_refuses() {
    // King and bishop against king: the game is over (dead position) before any move.
    let o = annabella(
        &[
            "announce",
            "--fen",
            "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1",
            "Kd2",
        ],
        &[],
        "",
    );
    assert!(!o.status.success());
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(
        err.contains("move 1") && err.contains("the game is over"),
        "{err}"
    );
    // After a move that ends the game, the next one is refused and not spoken either.
    let o = annabella(
        &[
            "announce",
            "--fen",
            "7k/8/6K1/8/8/8/8/R7 w - - 149 120",
            "Rb1",
            "Kh7",
        ],
        &[],
        "",
    );
    assert!(!o.status.success());
    assert_eq!(stdout(&o), "rook Bella one\n");
    assert!(stderr(&o).contains("move 2"), "{}", stderr(&o));
}

#[test]
fn ambiguous_moves_list_the_candidates() {
    let o = annabella(
        &[
            "convert",
            "--fen",
            "4k3/8/8/8/8/8/4K3/R6R w - - 0 1",
            "--to",
            "san",
        ],
        &[],
        "Rd1",
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("ambiguous") && err.contains("Rad1") && err.contains("Rhd1"),
        "{err}"
    );
}

#[test]
fn bad_input_of_every_kind_is_refused_clearly() {
    let bin_garbage = annabella(&["convert"], &[], "\u{0}\u{1}\u{2}e4");
    assert!(!bin_garbage.status.success());
    assert_eq!(stdout(&bin_garbage), "");
    let err = stderr(&bin_garbage);
    assert!(
        err.contains("game 1, ply 1") && err.contains("unexpected '\\0'"),
        "{err}"
    );

    let o = annabella(&["convert", "-"], &[], b"e4 \xff\xfe e5");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not UTF-8"), "{}", stderr(&o));

    let o = annabella(&["convert", "/nonexistent/game.pgn"], &[], "");
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("/nonexistent/game.pgn"),
        "{}",
        stderr(&o)
    );

    let o = annabella(&["convert", "--lang", "xx"], &[], "e4");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown language"), "{}", stderr(&o));
    // A directory or an endless device as the language file.
    for path in ["/", "/dev/zero"] {
        let o = annabella(&["convert", "--lang", path], &[], "e4");
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains(&format!("reading language file {path}")),
            "{}",
            stderr(&o)
        );
    }

    let o = annabella(&["convert", "--fen", "not a fen"], &[], "e4");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--fen"), "{}", stderr(&o));

    let o = annabella(&["convert"], &[], "");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no moves"), "{}", stderr(&o));
}

#[test]
fn a_language_file_can_be_added_without_code() {
    let dir = scratch_dir("lang");
    let de = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/config/voices/de.toml"
    ))
    .unwrap();
    let custom = de
        .replace("code = \"de\"", "code = \"de-x\"")
        .replace("\"Springer\"", "\"Pferd\"");
    let path = dir.join("de-x.toml");
    std::fs::write(&path, custom).unwrap();
    let o = annabella(
        &[
            "announce",
            "--lang",
            path.to_str().unwrap(),
            "e4",
            "e5",
            "Sf3",
        ],
        &[],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("Pferd Felix drei\n"), "{}", stdout(&o));

    let broken = dir.join("broken.toml");
    std::fs::write(&broken, "code = \"zz\"\nname = 3\n").unwrap();
    let o = annabella(
        &["announce", "--lang", broken.to_str().unwrap(), "e4"],
        &[],
        "",
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("broken.toml"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn move_numbers_in_a_list_are_read_in_every_form_and_checked() {
    assert_eq!(
        convert(
            &["--to", "san"],
            "1. 5254 5755 2. 7163 2...2836 3.6125 3… 7866\n"
        )
        .trim(),
        "e4 e5 Nf3 Nc6 Bb5 Nf6"
    );
    let o = annabella(
        &["convert", "--to", "san"],
        &[],
        "1. 5254 5755 3. 7163 2836\n",
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("line 1: \"7163\": move 3 is white's; the game is at move 2 for white"),
        "{}",
        stderr(&o)
    );
}

/// A path that is a FIFO (or a link to one) is refused at once, naming what it is: as the
/// configuration, as a language file, as `convert`'s input. Before, each waited for a writer
/// for ever with no word (issue 23).
#[cfg(unix)]
#[test]
fn a_fifo_given_as_a_path_is_refused_at_once() {
    let dir = scratch_dir("cli-fifo");
    let fifo = dir.join("annabella.toml");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let link = dir.join("link.toml");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let fifo_text = fifo.display().to_string();
    let link_text = link.display().to_string();
    let state = dir.join("state").display().to_string();
    for args in [
        vec![
            "serve",
            "--config",
            fifo_text.as_str(),
            "--state-dir",
            state.as_str(),
        ],
        vec![
            "serve",
            "--config",
            link_text.as_str(),
            "--state-dir",
            state.as_str(),
        ],
        vec!["convert", fifo_text.as_str()],
        vec!["announce", "--lang", link_text.as_str(), "e4"],
    ] {
        let started = std::time::Instant::now();
        let o = annabella(&args, &[], "");
        assert!(!o.status.success(), "{args:?}");
        assert!(
            stderr(&o).contains("a FIFO, not a regular file"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{args:?} waited"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A configuration that holds `[[token]]`s and that others may read is refused with the remedy
/// (issue 23: one at 0644 was accepted silently).
#[cfg(unix)]
#[test]
fn a_configuration_with_tokens_others_may_read_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch_dir("cli-config-tokens");
    let config = dir.join("annabella.toml");
    std::fs::write(
        &config,
        "[[token]]\ntoken = \"arbiter-0123456789abcdef\"\nrole = \"arbiter\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    let state = dir.join("state").display().to_string();
    let config_text = config.display().to_string();
    let o = annabella(
        &[
            "serve",
            "--config",
            config_text.as_str(),
            "--state-dir",
            state.as_str(),
        ],
        &[],
        "",
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("holds [[token]]s and mode 0644") && stderr(&o).contains("chmod 600"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}
