//! Both wires of every kind of event: the documented lines, and the same fields on each.

use super::*;
use crate::chess::game::GameResult;
use crate::table::corrections::Correction;
use crate::table::detector::IllegalReason;
use crate::table::event::{About, Listener, Say, Urgency};
use crate::table::reconcile::Side;
use crate::table::record::Source;
use shakmaty::{Move, Role, Square};

/// Which variant an event is. The match has no wildcard: a new kind of event does not
/// compile until it is given a number here and a sample in [`samples`].
fn variant(e: &TableEvent) -> usize {
    match e {
        TableEvent::Begin { .. } => 0,
        TableEvent::Restored { .. } => 1,
        TableEvent::Resumed { .. } => 2,
        TableEvent::Move { .. } => 3,
        TableEvent::Say(_) => 4,
        TableEvent::BoardError { .. } => 5,
        TableEvent::InSync { .. } => 6,
        TableEvent::Detected { .. } => 7,
        TableEvent::TouchMove { .. } => 8,
        TableEvent::Refused { .. } => 9,
        TableEvent::Guide { .. } => 10,
        TableEvent::Unverifiable { .. } => 11,
        TableEvent::Link { .. } => 12,
        TableEvent::Key(_) => 13,
        TableEvent::End { .. } => 14,
        TableEvent::DrawOffer { .. } => 15,
        TableEvent::WrongClaim { .. } => 16,
        TableEvent::Undo { .. } => 17,
        TableEvent::ResultOffered { .. } => 18,
        TableEvent::ClockAdjusted { .. } => 19,
        TableEvent::Penalty { .. } => 20,
        TableEvent::ClockRunning { .. } => 21,
        TableEvent::Resolution(_) => 22,
        TableEvent::Takeback { .. } => 23,
        TableEvent::Explain { .. } => 24,
        TableEvent::JournalError { .. } => 25,
        TableEvent::Recorded { .. } => 26,
        TableEvent::Archived { .. } => 27,
        TableEvent::Desk(_) => 28,
        TableEvent::Mail(_) => 29,
        TableEvent::Stalled { .. } => 30,
    }
}
const VARIANTS: usize = 31;

fn detected(conclusion: Conclusion) -> TableEvent {
    TableEvent::Detected {
        board: BoardId::Peg,
        conclusion,
        mode: CastlingMode::Standard,
    }
}

/// At least one event of every kind, with every inner variant (conclusions, verdicts, the
/// desk's and the mail's), and the line each must have (`docs/control-protocol.md`).
fn samples() -> Vec<(TableEvent, &'static str)> {
    let knight = Color::White.knight();
    let g1f3 = Move::Normal {
        role: Role::Knight,
        from: Square::G1,
        capture: None,
        to: Square::F3,
        promotion: None,
    };
    let back = Correction::Move {
        piece: Some(knight),
        from: Square::G3,
        to: Square::G1,
    };
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    vec![
        (
            TableEvent::Begin {
                time_control: "90+30".into(),
                fen: start.into(),
            },
            "event begin 90+30 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ),
        (
            TableEvent::Restored {
                ply: 2,
                fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
            },
            "event restored ply 2 8/8/8/8/8/8/8/K6k w - - 0 1",
        ),
        (
            TableEvent::Resumed {
                downtime_ms: 5000,
                charged_ms: 1200,
                measured_by: crate::table::event::DowntimeClock::Boot,
            },
            "event resumed downtime-ms 5000 charged-ms 1200 by boot-clock",
        ),
        (
            TableEvent::Stalled { stalled_ms: 10500 },
            "event stalled 10500",
        ),
        (
            TableEvent::Move {
                ply: 1,
                color: Color::White,
                uci: "e2e4".into(),
                san: "e4".into(),
                source: Source::Peg,
                san_local: "e4".into(),
                words: "Eva vier".into(),
                number: 1,
            },
            "event move 1 white e2e4 e4 peg",
        ),
        (
            TableEvent::Say(Say {
                listener: Listener::BlindPlayer,
                text: "Eva vier\nzwei".into(),
                urgency: Urgency::Urgent,
                about: About::Other,
                lang: "de",
                id: 7,
            }),
            "event say blind Eva vier zwei",
        ),
        (
            TableEvent::BoardError {
                board: BoardId::Peg,
                message: "line 3: bad".into(),
            },
            "event board-error peg line 3: bad",
        ),
        (
            TableEvent::InSync {
                board: BoardId::Normal,
            },
            "event in-sync normal",
        ),
        (
            detected(Conclusion::Touched {
                square: Square::G1,
                piece: knight,
            }),
            "event peg touched g1 white knight",
        ),
        (
            detected(Conclusion::Moved {
                m: g1f3,
                warning: None,
            }),
            "event peg move g1f3",
        ),
        (
            detected(Conclusion::Replicated { m: g1f3 }),
            "event peg replicated g1f3",
        ),
        (
            detected(Conclusion::PromotionPending {
                from: Square::E7,
                to: Square::E8,
            }),
            "event peg promotion-pending e7e8: choose the new piece",
        ),
        (
            detected(Conclusion::Illegal {
                reason: IllegalReason::CannotMoveThatWay {
                    piece: knight,
                    from: Square::G1,
                    to: Square::G3,
                },
                corrections: vec![back],
            }),
            "event peg illegal the white knight cannot move from g1 to g3; move the white \
             knight from g3 to g1",
        ),
        (
            detected(Conclusion::Mismatch {
                corrections: vec![back, back],
                unverifiable: true,
            }),
            "event peg mismatch move the white knight from g3 to g1; move the white knight \
             from g3 to g1 (this board senses only occupancy: which piece stands where is \
             not checked)",
        ),
        (
            detected(Conclusion::Mismatch {
                corrections: vec![back],
                unverifiable: false,
            }),
            "event peg mismatch move the white knight from g3 to g1",
        ),
        (
            detected(Conclusion::Takeback { plies: 2 }),
            "event peg takeback 2",
        ),
        (
            detected(Conclusion::InSync),
            "event peg in-sync the board matches the game",
        ),
        (
            detected(Conclusion::Rotated),
            "event peg rotated the board is set up turned; reading it turned",
        ),
        (
            detected(Conclusion::ResultOffered {
                result: GameResult::Draw,
            }),
            "event peg result-offered 1/2-1/2 (both kings on the centre squares: draw); for \
             the arbiter to confirm",
        ),
        (
            TableEvent::TouchMove {
                board: BoardId::Peg,
                warning: "the rook was touched".into(),
            },
            "event touch-move peg the rook was touched",
        ),
        (
            TableEvent::Refused {
                board: BoardId::Peg,
                reason: "not your move".into(),
            },
            "event refused peg not your move",
        ),
        (
            TableEvent::Guide {
                board: BoardId::Peg,
                corrections: vec![back, back],
            },
            "event guide peg move the white knight from g3 to g1; move the white knight from \
             g3 to g1",
        ),
        (
            TableEvent::Unverifiable {
                board: BoardId::Peg,
            },
            "event unverifiable peg an occupancy board cannot tell which piece stands in a hole",
        ),
        (
            TableEvent::Link {
                board: BoardId::Normal,
                up: false,
                detail: "/dev/ttyUSB0 gone".into(),
            },
            "event board normal disconnected /dev/ttyUSB0 gone",
        ),
        (
            TableEvent::Key(BoardKey::Other('Y')),
            "event key peg unknown Y",
        ),
        (
            TableEvent::Key(BoardKey::ConfirmSheet),
            "event key peg confirm-sheet",
        ),
        (
            TableEvent::End {
                result: GameResult::WhiteWins,
                description: "black resigns".into(),
            },
            "event end 1-0 black resigns",
        ),
        (
            TableEvent::DrawOffer {
                color: Color::Black,
            },
            "event draw-offer black",
        ),
        (
            TableEvent::WrongClaim {
                color: Color::White,
                why: "no threefold".into(),
            },
            "event wrong-claim white no threefold",
        ),
        (TableEvent::Undo { uci: "e7e6".into() }, "event undo e7e6"),
        (
            TableEvent::ResultOffered {
                board: BoardId::Normal,
                result: GameResult::BlackWins,
            },
            "event result-offered normal 0-1",
        ),
        (
            TableEvent::ClockAdjusted {
                color: Color::White,
                delta_ms: 60_000,
                remaining_ms: 61_000,
            },
            "event clock-adjusted white +60000 0:01:01",
        ),
        (
            TableEvent::Penalty {
                color: Color::Black,
                count: 1,
            },
            "event penalty black illegal move 1",
        ),
        (
            TableEvent::ClockRunning { running: false },
            "event clock pause",
        ),
        (
            TableEvent::Resolution(ResolutionEvent::Agree { plies: 4 }),
            "event resolution agree plies 4",
        ),
        (
            TableEvent::Resolution(ResolutionEvent::Lagging {
                side: Side::B,
                missing: vec!["g1f3".into(), "b8c6".into()],
            }),
            "event resolution lagging b missing g1f3,b8c6",
        ),
        (
            TableEvent::Resolution(ResolutionEvent::Proposed {
                plies: 2,
                retract_a: vec!["g1f3".into()],
                retract_b: vec![],
                used_white_ms: 61_000,
                used_black_ms: 0,
            }),
            "event resolution proposed takeback-to 2 retract-a g1f3 retract-b - used-white \
             0:01:01 used-black 0:00:00",
        ),
        (
            TableEvent::Resolution(ResolutionEvent::Rejected),
            "event resolution rejected",
        ),
        (
            TableEvent::Takeback {
                plies: 2,
                retracted: vec!["g1f3".into(), "b8c6".into()],
                white_ms: 61_000,
                black_ms: 59_000,
            },
            "event takeback 2 retracted g1f3,b8c6 clocks white 0:01:01 black 0:00:59",
        ),
        (
            TableEvent::Explain {
                line: "sheet a: 4 moves".into(),
            },
            "event explain sheet a: 4 moves",
        ),
        (
            TableEvent::JournalError {
                message: "disk full".into(),
            },
            "event journal-error disk full",
        ),
        (
            TableEvent::Recorded {
                path: "/var/lib/annabella/games/t-1.wav".into(),
            },
            "event recorded /var/lib/annabella/games/t-1.wav",
        ),
        (
            TableEvent::Archived {
                path: "/var/lib/annabella/games/t-1.pgn".into(),
            },
            "event archived /var/lib/annabella/games/t-1.pgn",
        ),
        (TableEvent::Desk(DeskEvent::Focus), "event desk focus"),
        (TableEvent::Desk(DeskEvent::Away), "event desk away"),
        (TableEvent::Desk(DeskEvent::Ready), "event desk ready"),
        (
            TableEvent::Desk(DeskEvent::Plan { steps: 3 }),
            "event desk plan 3",
        ),
        (
            TableEvent::Desk(DeskEvent::SetUp {
                step: 1,
                code: "move:Ng1:f3".into(),
                words: "Springer von Gustav eins nach Felix drei".into(),
            }),
            "event desk set-up 1 move:Ng1:f3 Springer von Gustav eins nach Felix drei",
        ),
        (
            TableEvent::Mail(MailEvent::Received {
                ply: 4,
                summary: "Zug zwei, Schwarz".into(),
            }),
            "event mail received 4 Zug zwei, Schwarz",
        ),
        (
            TableEvent::Mail(MailEvent::Refused {
                why: "the record differs".into(),
            }),
            "event mail refused the record differs",
        ),
        (
            TableEvent::Mail(MailEvent::Queued {
                ply: 3,
                message_id: "<a@b>".into(),
            }),
            "event mail queued 3 <a@b>",
        ),
    ]
}

#[test]
fn every_kind_of_event_has_a_sample() {
    let mut seen = [false; VARIANTS];
    for (event, _) in samples() {
        seen[variant(&event)] = true;
    }
    let missing: Vec<usize> = (0..VARIANTS).filter(|&i| !seen[i]).collect();
    assert!(missing.is_empty(), "variants without a sample: {missing:?}");
}

#[test]
fn lines_are_the_documented_ones() {
    for (event, line) in samples() {
        assert_eq!(event_line(&event), line, "{event:?}");
    }
}

/// Both wires carry the same fields: the page's object has exactly the event's fields (and
/// its kind and line), each with the field's value; every field but the declared page-only
/// ones is on the line; the page-only ones are exactly [`PAGE_ONLY`].
#[test]
fn each_event_kind_carries_the_same_fields_on_both_wires() {
    let mut page_only = std::collections::BTreeSet::new();
    for (event, _) in samples() {
        let EventFields { kind, fields } = event_fields(&event);
        let line = event_line(&event);
        let json = event_json(&event);
        let object = json.as_object().expect("an object");
        assert_eq!(object["event"], kind);
        assert_eq!(object["line"], line.as_str());
        let mut names: Vec<&str> = fields.iter().map(|f| f.name).collect();
        names.extend(["event", "line"]);
        names.sort_unstable();
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, names, "{kind}: the page's names are the fields'");
        for field in &fields {
            let on_page = &object[field.name];
            let (text, expected) = match &field.value {
                Value::Text(s) => (one_line(s), serde_json::Value::from(s.as_str())),
                Value::Int(n) => (n.unsigned_abs().to_string(), serde_json::Value::from(*n)),
                Value::Bool(b) => (String::new(), serde_json::Value::from(*b)),
                Value::List(items) => {
                    let text = items.first().cloned().unwrap_or_default();
                    (text, serde_json::Value::from(items.clone()))
                }
            };
            assert_eq!(on_page, &expected, "{kind}.{}", field.name);
            match field.form {
                Form::PageOnly => {
                    page_only.insert((kind, field.name));
                }
                Form::Kind => assert_eq!(field.value, Value::Text(kind.to_owned())),
                // A flag is on the line as its word, checked by the documented lines.
                Form::Words(..) => {}
                _ => assert!(
                    line.contains(&text),
                    "{kind}.{} = {text:?} is not on the line {line:?}",
                    field.name
                ),
            }
        }
    }
    let declared: std::collections::BTreeSet<(&str, &str)> = PAGE_ONLY.iter().copied().collect();
    assert_eq!(
        page_only, declared,
        "the page-only fields are the declared ones"
    );
}
