//! Unit tests of `check`: claims interpreted in the game.

use super::*;
use crate::message::fixtures::{RUY, game_of, moves};
use crate::message::read::parse;

fn verdict(subject: &str, body: &str, plies: usize) -> Verdict {
    let game = game_of(&moves(RUY)[..plies]);
    check_against(&parse(subject, body).unwrap(), &game, Language::english())
}

/// The quoted message Anna sent after her 8. 3233 (15 half-moves), as a reply quotes it.
fn quoted() -> String {
    use crate::message::compose::compose;
    use crate::message::fixtures::message;
    let mut m = message();
    m.record.truncate(15);
    m.text = None;
    let (_, body) = compose(&m);
    body.lines().map(|l| format!("> {l}\n")).collect()
}

const SUBJECT: &str = "Re: BCA-7: 8. 3233 (Anna Schmidt - Bob Jones)";

fn new_move(v: Verdict) -> String {
    match v {
        Verdict::NewMove { ply, mv } => {
            let game = game_of(&moves(RUY)[..ply]);
            let style = Style::new(Language::english());
            format_move(
                game.position(),
                game.castling_mode(),
                mv,
                Notation::Iccf,
                &style,
            )
        }
        v => panic!("{v:?}"),
    }
}

#[test]
fn the_new_move_however_it_is_written() {
    let q = quoted();
    for own in [
        "8... 5878",
        "5878",
        "8. 3233 5878",
        "8...5878",
        "8 ... 5878",
        "8...O-O",
        "8... 0-0",
        "O-O",
        "My move: 8... O-O",
        "Mein Zug ist 5878",
        "Mein Zug: 0-0, viele Grüße",
        "Zug 8: 5878",
        "8... O-O (5878)",
        "Mi jugada: 8... O-O",
        "8... e8g8",
        "8... Ke8-g8",
    ] {
        let body =
            format!("{own}\n\nOn Mon, 23 Nov 2026 at 10:15, Anna <anna@example.org> wrote:\n{q}");
        assert_eq!(new_move(verdict(SUBJECT, &body, 15)), "5878", "{own}");
    }
}

#[test]
fn without_a_quoted_record_the_game_gives_the_plies_before() {
    // Black's 2nd move, written bare or with its number, in the table's language too.
    for (body, lang) in [
        ("2... Nc6", Language::english()),
        ("2... Sc6", Language::english()),
        ("Nc6", Language::english()),
        ("2...2836", Language::german()),
        ("Mi jugada: Cc6", Language::builtin("es").unwrap()),
        ("2... ♞c6", Language::english()),
    ] {
        let game = game_of(&moves(RUY)[..3]);
        let v = check_against(&parse("BCA-7", body).unwrap(), &game, lang);
        assert!(
            matches!(v, Verdict::NewMove { ply: 3, .. }),
            "{body}: {v:?}"
        );
    }
    // `5. 5171` alone, White's 5th.
    assert_eq!(new_move(verdict("BCA-7", "5. 5171", 8)), "5171");
    // In the subject only.
    assert_eq!(
        new_move(verdict("Re: BCA-7: 8... 5878", &quoted(), 15)),
        "5878"
    );
    assert_eq!(new_move(verdict("BCA-7 8...O-O", "", 15)), "5878");
}

#[test]
fn a_record_repeated_without_numbers_is_the_record() {
    let whole = RUY;
    assert_eq!(
        new_move(verdict(SUBJECT, &format!("{whole}\n{}", quoted()), 15)),
        "5878"
    );
    let earlier: Vec<&str> = RUY.split(' ').collect();
    let body = format!(
        "Thanks!\n{}\n{}\n\n5878\n",
        earlier[..8].join(" "),
        earlier[8..15].join(" ")
    );
    assert_eq!(new_move(verdict("BCA-7", &body, 15)), "5878");
}

#[test]
fn our_own_subject_and_a_repeat_are_nothing_new() {
    assert_eq!(
        verdict(SUBJECT, &quoted(), 15),
        Verdict::NothingNew { behind: 0 }
    );
    assert_eq!(
        verdict(SUBJECT, &quoted(), 16),
        Verdict::NothingNew { behind: 1 }
    );
    // Only words, and our subject: no move at all.
    assert_eq!(verdict(SUBJECT, "I offer a draw.", 15), Verdict::NoMove);
    assert_eq!(
        verdict("BCA-7", "Hello Anna, how are you?", 15),
        Verdict::NoMove
    );
}

#[test]
fn a_weak_claim_that_conflicts_is_ignored() {
    // An unnumbered line that is neither the record nor the next move, beside a numbered move.
    let body = format!("8... 5878\n\n1234 4567\n\n{}", quoted());
    assert_eq!(new_move(verdict(SUBJECT, &body, 15)), "5878");
    // A subject that names another move than the body's.
    let body = format!("8... 5878\n{}", quoted());
    assert_eq!(new_move(verdict("Re: BCA-7: 8... 6878", &body, 15)), "5878");
    // A bare move in the body outweighs a subject naming another (or an illegal one).
    let body = format!("O-O\n{}", quoted());
    assert_eq!(new_move(verdict("Re: BCA-7: 8... 6878", &body, 15)), "5878");
    assert_eq!(new_move(verdict("Re: BCA-7: 8... 1111", &body, 15)), "5878");
}

#[test]
fn disagreements_are_named_and_told_apart() {
    let q = quoted();
    // A differing earlier move in the own text.
    let Verdict::Disagrees(d) = verdict("BCA-7", "6... 7776 7. 1423", 15) else {
        panic!()
    };
    assert_eq!(d.first, "6...");
    assert!(!d.new_move_only);
    assert!(d.game_record.contains("6. 6151 2725"), "{d}");
    assert!(d.message_record.contains("7776"), "{d}");
    // An illegal new move, the record agreeing: told apart.
    let Verdict::Disagrees(d) = verdict(SUBJECT, &format!("8... 1114\n{q}"), 15) else {
        panic!()
    };
    assert_eq!(d.first, "8...");
    assert!(d.new_move_only, "{d}");
    let Verdict::Disagrees(d) = verdict(SUBJECT, &format!("Nf7\n{q}"), 15) else {
        panic!()
    };
    assert!(d.new_move_only, "{d}");
    // An ambiguous one.
    let game = game_of(&moves("4244 4745 7163 7866"));
    let v = check_against(
        &parse("BCA-7", "3. Nd2").unwrap(),
        &game,
        Language::english(),
    );
    let Verdict::Disagrees(d) = v else { panic!() };
    assert!(d.new_move_only && d.reason.contains("ambiguous"), "{d}");
    // Why a move is illegal is said in the letters it is written in.
    let game = game_of(&moves(RUY)[..4]);
    let v = check_against(
        &parse("BCA-7", "3. Ne2").unwrap(),
        &game,
        Language::german(),
    );
    let Verdict::Disagrees(d) = v else { panic!() };
    assert!(d.new_move_only && d.reason.contains("illegal"), "{d}");
    // Two moves ahead: a message may be missing.
    let Verdict::Disagrees(d) = verdict("BCA-7", "7... 4746 8. 3233 5878", 13) else {
        panic!()
    };
    assert!(d.reason.contains("missing") && !d.new_move_only, "{d}");
    // Two ways of writing that name different moves.
    let Verdict::Disagrees(d) = verdict("BCA-7", "8... O-O (5868)", 15) else {
        panic!()
    };
    assert!(d.reason.contains("two moves"), "{d}");
}

#[test]
fn the_game_record_is_iccf() {
    let game = game_of(&moves(RUY));
    assert_eq!(game_record(&game), moves(RUY));
}

#[test]
fn a_capital_letter_names_a_piece_before_a_pawn() {
    // "Ba4" at a German table: the English bishop, not the German Bauer to a4.
    let game = game_of(&moves(RUY)[..6]);
    let v = check_against(
        &parse("BCA-7", "4. Ba4").unwrap(),
        &game,
        Language::german(),
    );
    assert_eq!(new_move(v), "2514");
    // The table's own letters first: "Te1" is the Spanish rook.
    let game = game_of(&moves(RUY)[..10]);
    let es = Language::builtin("es").unwrap();
    let v = check_against(&parse("BCA-7", "6. Te1").unwrap(), &game, es);
    assert_eq!(new_move(v), "6151");
    // Letters no preferred language knows: another project language's ("Cf3" at a German
    // table); an illegal English rook move (Rh1) is not taken as a Spanish
    // king's.
    let game = game_of(&moves(RUY)[..2]);
    let v = check_against(
        &parse("BCA-7", "2. Cf3").unwrap(),
        &game,
        Language::german(),
    );
    assert_eq!(new_move(v), "7163");
    let game = game_of(&moves(RUY)[..10]);
    let v = check_against(
        &parse("BCA-7", "6. Rh1").unwrap(),
        &game,
        Language::german(),
    );
    assert!(
        matches!(&v, Verdict::Disagrees(d) if d.new_move_only),
        "{v:?}"
    );
}
