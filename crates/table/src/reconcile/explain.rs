//! The reconciliation in words: each decision of a [`Decision`] explained in sentences a player understands (English), the corrections spoken in each side's language, and the [`Resolution`] that carries both.

use std::fmt;

use shakmaty::CastlingMode;

use super::Side;
use super::decision::{
    BoardDecision, ClockDecision, Decision, IdentitySource, Lag, Next, Played, SheetDecision,
};
use super::resolution::{BoardResolution, ClockBasis, Resolution, Unverifiable, Verdict};
use super::sheet::{BadEntry, move_label};
use crate::corrections::{self, PieceName};
use annabella_chess::language::Language;
use annabella_chess::notation::{self, Notation, Style};
use annabella_chess::phrases::{self, duration_phrase};

/// The resolution of `decision`: its verdict, boards and clocks with the words for each side
/// (`languages`: side a's and side b's) and the explanation.
pub fn explain(decision: Decision, languages: [&Language; 2]) -> Resolution {
    let explanation = explanation(&decision);
    let verdict = match &decision.sheets {
        SheetDecision::Agree { .. } => Verdict::Agree,
        SheetDecision::Lagging(lag) => {
            let style = Style::new(languages[lag.side.index()]);
            Verdict::Lagging {
                side: lag.side,
                missing: lag.missing.iter().map(|p| p.mv).collect(),
                read_out: lag
                    .missing
                    .iter()
                    .map(|p| phrases::move_phrase(&p.before, p.mv, &style))
                    .collect(),
            }
        }
        SheetDecision::Differ { .. } => Verdict::Differ,
    };
    let [board_a, board_b] = decision.boards;
    let boards = [
        board_resolution(board_a, languages[0]),
        board_resolution(board_b, languages[1]),
    ];
    Resolution {
        verdict,
        agreed_plies: decision.agreed_plies,
        position: decision.position,
        mode: decision.mode,
        retracted: decision.retracted,
        bad_entries: decision.bad_entries,
        boards,
        clocks: decision.clocks.map(|c| c.adjustment),
        explanation,
    }
}

/// One board's corrections in words: spoken in its side's language, written in English.
fn board_resolution(board: BoardDecision, lang: &Language) -> BoardResolution {
    let v = lang.vocabulary();
    BoardResolution {
        correct: board.correct(),
        spoken: board
            .named
            .iter()
            .map(|c| corrections::spoken(c, v))
            .collect(),
        written: board.named.iter().map(ToString::to_string).collect(),
        corrections: board.corrections,
        unverifiable: board.unverifiable,
        identities_from: board.identities_from.map(|s| s.to_string()),
    }
}

/// Each decision in sentences a player understands (English), in the order they were taken:
/// unreadable entries, the sheets, board a, board b, the clocks.
pub fn explanation(decision: &Decision) -> Vec<String> {
    let mut out: Vec<String> = decision
        .bad_entries
        .iter()
        .flatten()
        .map(bad_entry)
        .collect();
    out.extend(sheets(&decision.sheets, decision.mode));
    for side in Side::BOTH {
        out.extend(board(side, &decision.boards[side.index()]));
    }
    if let Some(clocks) = &decision.clocks {
        out.push(clock_sentence(clocks, decision.agreed_plies));
    }
    out
}

/// `3.Nf3`: a move with its number, in English SAN.
fn san(played: &Played, mode: CastlingMode) -> String {
    let english = Style::new(Language::english());
    format!(
        "{}{}",
        move_label(&played.before),
        notation::format_move(&played.before, mode, played.mv, Notation::San, &english)
    )
}

/// The position after `last` (`None`: the start position).
fn after(last: Option<&Played>, mode: CastlingMode) -> String {
    match last {
        None => "the start position".to_owned(),
        Some(p) => format!("the position after {}", san(p, mode)),
    }
}

fn bad_entry(bad: &BadEntry) -> String {
    format!(
        "On sheet {}, half-move {} ({}) reads {:?}, which is no legal move there ({}). \
         A sheet agrees with nothing after an entry that is no move, so only its first {} \
         half-moves count.",
        bad.side,
        bad.ply,
        bad.label,
        bad.token,
        bad.reason,
        bad.ply - 1
    )
}

/// Why the boards must show what they must: the sheets agree, one lags, or they differ.
fn sheets(decision: &SheetDecision, mode: CastlingMode) -> Vec<String> {
    match decision {
        SheetDecision::Agree { plies: 0, .. } => {
            vec![
                "Both scoresheets are empty, so the boards must show the start position."
                    .to_owned(),
            ]
        }
        SheetDecision::Agree { plies, last } => vec![format!(
            "Both scoresheets hold the same {plies} half-moves, so the boards \
             must show {}. A player whose board shows something else wrote the right \
             move but made a wrong one, and puts his board right (FIDE D.2.9).",
            after(last.as_ref(), mode)
        )],
        SheetDecision::Lagging(lag) => vec![lagging(lag, mode)],
        SheetDecision::Differ {
            agreed,
            disputed,
            next,
            last,
        } => {
            let k = *agreed;
            let mut out = Vec::new();
            if let Some(side) = disputed {
                out.push(format!(
                    "Player {side} disputes the moves missing from his sheet, so the sheets \
                     differ after half-move {k}."
                ));
            }
            let what = |next: &Next| match next {
                Next::Move(p) => san(p, mode),
                Next::NoMove(token) => format!("{token:?}, no legal move"),
                Next::Nothing => "nothing".to_owned(),
            };
            out.push(format!(
                "The scoresheets agree on the first {k} half-moves and then differ (sheet a: \
                 {}; sheet b: {}). The moves are taken back to the last point where both \
                 agree, {} (FIDE D.2.9); both boards are set to it, both sheets are cut there, \
                 and the moves cut are kept in the record.",
                what(&next[0]),
                what(&next[1]),
                after(last.as_ref(), mode)
            ));
            out
        }
    }
}

/// A lagging sheet: no disagreement yet, the missing moves read out.
fn lagging(lag: &Lag, mode: CastlingMode) -> String {
    let Lag {
        side,
        has,
        of,
        last,
        missing,
        within_8_1_3,
        back_to,
    } = lag;
    let long = side.other();
    let rule = if *within_8_1_3 {
        "a move is written down after it is made, and a player may reply before \
         writing his opponent's move (FIDE 8.1.3)"
    } else {
        "more than one missing move is more than FIDE 8.1.3 allows, but nothing on \
         either sheet contradicts the other"
    };
    let written: Vec<String> = missing.iter().map(|p| san(p, mode)).collect();
    format!(
        "Sheet {side} has the first {has} of the {of} half-moves on sheet {long} and nothing \
         that contradicts them: {rule}, so this is no disagreement yet. The boards must \
         show {}. The \
         missing {} ({}) {} read to player {side}; if he confirms, they are written on \
         his sheet; if he disputes them, the sheets differ and the game goes back to {}.",
        after(last.as_ref(), mode),
        if missing.len() == 1 { "move" } else { "moves" },
        written.join(" "),
        if missing.len() == 1 { "is" } else { "are" },
        after(back_to.as_ref(), mode),
    )
}

/// One board: what it must do, where its pieces are believed from, what it cannot confirm.
fn board(side: Side, board: &BoardDecision) -> Vec<String> {
    let kind = if board.pegs_only { " (pegs only)" } else { "" };
    let mut out = vec![if board.correct() {
        format!("Board {side}{kind} shows the position; nothing to correct.")
    } else {
        format!(
            "Board {side}{kind} does not show the position: {} it there ({}).",
            match board.corrections.len() {
                1 => "one hand action brings".to_owned(),
                n => format!("{n} hand actions bring"),
            },
            board
                .named
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )
    }];
    if let Some(from) = &board.identities_from {
        out.push(format!(
            "Board {side} senses only which holes hold a peg, not which piece; the pieces in \
             its holes are taken from {from}."
        ));
    }
    for u in &board.unverifiable {
        out.push(format!("Board {side}: {u}."));
    }
    out
}

fn clock_sentence(clocks: &ClockDecision, agreed: usize) -> String {
    let en = Language::english().vocabulary();
    let time = |ms: u64| duration_phrase(ms, en);
    let adj = &clocks.adjustment;
    let set = format!(
        "White {} used, Black {} used",
        time(adj.used[0]),
        time(adj.used[1])
    );
    match adj.basis {
        ClockBasis::Recorded => format!(
            "The clocks go back to the times recorded after half-move {agreed}: {set}. The \
             arbiter may decide otherwise."
        ),
        ClockBasis::Proportional => format!(
            "No clock reading was recorded at half-move {agreed}, so each player keeps the share \
             of the time he used ({} for White, {} for Black, over {} half-moves) that his moves \
             still standing bear to all his moves played, as the 1957 rules say \
             (proportionally): {set}. The arbiter may decide otherwise.",
            time(clocks.used_now[0]),
            time(clocks.used_now[1]),
            clocks.plies_now
        ),
    }
}

impl fmt::Display for IdentitySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdentitySource::Believed => f.write_str("the pieces the table believes in its holes"),
            IdentitySource::Target => f.write_str("the position both boards must show"),
            IdentitySource::Sheet(_, 0) => f.write_str("the start position"),
            IdentitySource::Sheet(side, k) => write!(
                f,
                "sheet {side} after {k} half-moves, the nearest position to its pegs"
            ),
        }
    }
}

impl fmt::Display for Unverifiable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected = PieceName(self.expected);
        match (self.believed, self.from) {
            (Some(p), _) => write!(
                f,
                "on {} the record has a {} where the position needs a {expected}; pegs cannot \
                 show the difference, so the piece is exchanged by hand",
                self.square,
                PieceName(p)
            ),
            (None, Some(from)) => write!(
                f,
                "the peg taken from {from} to {} must be the {expected}; the board cannot tell \
                 which piece it is, so check it by touch",
                self.square
            ),
            (None, None) => write!(
                f,
                "a peg stands on {} as it should, but which piece it is is not known; it must \
                 be the {expected}, so check it by touch",
                self.square
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corrections::Correction;
    use crate::reconcile::ClockAdjustment;
    use shakmaty::{Chess, Color, Position, Square};

    fn decision(sheets: SheetDecision) -> Decision {
        let board = BoardDecision {
            pegs_only: false,
            corrections: Vec::new(),
            named: Vec::new(),
            unverifiable: Vec::new(),
            identities_from: None,
        };
        Decision {
            mode: shakmaty::CastlingMode::Standard,
            bad_entries: [None, None],
            sheets,
            agreed_plies: 0,
            position: Chess::default(),
            retracted: [Vec::new(), Vec::new()],
            boards: [board.clone(), board],
            clocks: None,
        }
    }

    fn e4() -> Played {
        let before = Chess::default();
        let mv = before
            .legal_moves()
            .into_iter()
            .find(|m| m.to() == Square::E4)
            .expect("e4 is legal");
        Played { before, mv }
    }

    #[test]
    fn each_decision_is_said_in_its_own_sentence() {
        let d = decision(SheetDecision::Agree {
            plies: 0,
            last: None,
        });
        assert_eq!(
            explanation(&d),
            [
                "Both scoresheets are empty, so the boards must show the start position.",
                "Board a shows the position; nothing to correct.",
                "Board b shows the position; nothing to correct.",
            ]
        );
    }

    #[test]
    fn differing_sheets_name_the_moves_in_english() {
        let mut d = decision(SheetDecision::Differ {
            agreed: 0,
            disputed: Some(Side::B),
            next: [Next::Move(e4()), Next::NoMove("Ke9".to_owned())],
            last: None,
        });
        d.boards[1].pegs_only = true;
        d.boards[1].identities_from = Some(IdentitySource::Sheet(Side::A, 3));
        let knight = Correction::Move {
            piece: Some(Color::White.knight()),
            from: Square::F3,
            to: Square::G1,
        };
        d.boards[1].corrections = vec![knight];
        d.boards[1].named = vec![knight];
        d.clocks = Some(ClockDecision {
            adjustment: ClockAdjustment {
                used: [0, 0],
                basis: ClockBasis::Recorded,
            },
            used_now: [60_000, 0],
            plies_now: 2,
        });
        let text = explanation(&d);
        assert_eq!(
            text[0],
            "Player b disputes the moves missing from his sheet, so the sheets differ after \
             half-move 0."
        );
        assert!(
            text[1].contains("(sheet a: 1.e4; sheet b: \"Ke9\", no legal move)"),
            "{text:?}"
        );
        assert!(text[1].contains("agree, the start position (FIDE D.2.9)"));
        assert_eq!(
            text[3],
            "Board b (pegs only) does not show the position: one hand action brings it there \
             (move the white knight from f3 to g1)."
        );
        assert_eq!(
            text[4],
            "Board b senses only which holes hold a peg, not which piece; the pieces in its \
             holes are taken from sheet a after 3 half-moves, the nearest position to its pegs."
        );
        assert!(text[5].starts_with("The clocks go back to the times recorded after half-move 0"));
    }
}
