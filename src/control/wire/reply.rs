//! A table's reply in the control protocol's line: `ok <answer>` or `error <code> <message>`
//! (`docs/control-protocol.md`). The core answers with typed values ([`Answer`], [`Refusal`]);
//! this is the one place their text is written.

use std::fmt;

use super::color_name;

use crate::chess::scoresheet::format_clock;
use crate::table::control::Refusal;
use crate::table::reply::{Answer, BoardStatus, BoardSync, Reply};

/// A refusal's line: `error <code> <message>`, without its line feed.
pub trait RefusalLine {
    fn line(&self) -> String;
}

impl RefusalLine for Refusal {
    fn line(&self) -> String {
        format!("error {} {}", self.code.as_str(), one_line(&self.message))
    }
}

/// A successful reply line: `ok` and what it says.
pub fn ok_line(text: &str) -> String {
    if text.is_empty() {
        "ok".to_owned()
    } else {
        format!("ok {}", one_line(text))
    }
}

/// Replies and events are one line each: control characters (a newline in a move text echoed
/// back, say) become spaces.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The reply's line in the control protocol.
pub fn reply_line(reply: &Reply) -> String {
    match reply {
        Ok(answer) => ok_line(&AnswerText(answer).to_string()),
        Err(refusal) => refusal.line(),
    }
}

/// An answer's text, as the line carries it after `ok`.
pub fn answer_text(answer: &Answer) -> String {
    AnswerText(answer).to_string()
}

/// A board in `status`: `connected in-sync`.
struct BoardStatusText<'a>(&'a BoardStatus);

impl fmt::Display for BoardStatusText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}",
            if self.0.connected {
                "connected"
            } else {
                "disconnected"
            },
            match self.0.sync {
                BoardSync::Differs => "differs",
                BoardSync::OwesMove => "owes-move",
                BoardSync::InSync => "in-sync",
            }
        )
    }
}

fn link(connected: bool) -> &'static str {
    if connected {
        "connected"
    } else {
        "disconnected"
    }
}

/// An answer's text after `ok`: the one place reply texts are written.
pub struct AnswerText<'a>(pub &'a Answer);

impl fmt::Display for AnswerText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Answer::Played { uci, san } => write!(f, "{uci} {san}"),
            Answer::Position { fen } => f.write_str(fen),
            Answer::Clock {
                white_ms,
                black_ms,
                moves,
                running,
            } => write!(
                f,
                "white {} black {} moves {moves} running {}",
                format_clock(*white_ms),
                format_clock(*black_ms),
                running.map_or("none", color_name)
            ),
            Answer::Moves(text) => f.write_str(text),
            Answer::Status(s) => {
                write!(
                    f,
                    "table {} ply {} turn {} result {} peg {} normal ",
                    s.table,
                    s.ply,
                    color_name(s.turn),
                    s.result,
                    BoardStatusText(&s.peg)
                )?;
                match &s.normal {
                    Some(b) => write!(f, "{}", BoardStatusText(b))?,
                    None => f.write_str("virtual")?,
                }
                write!(
                    f,
                    " draw-offer {} promotion ",
                    s.draw_offer.map_or("none", color_name)
                )?;
                match s.promotion {
                    Some((from, to)) => write!(f, "{from}{to}"),
                    None => f.write_str("none"),
                }
            }
            Answer::Boards(b) => {
                write!(
                    f,
                    "peg {} {} {} normal ",
                    link(b.peg_connected),
                    b.peg_holes,
                    b.peg_believed
                )?;
                match &b.normal {
                    None => f.write_str("virtual"),
                    Some((connected, board)) => write!(f, "{} {board}", link(*connected)),
                }
            }
            Answer::DrawOffered { by } => write!(f, "{} offers a draw", color_name(*by)),
            Answer::DrawAgreed => f.write_str("draw agreed"),
            Answer::Seeking { control, rated } => write!(
                f,
                "seeking {control} {}",
                if *rated { "rated" } else { "casual" }
            ),
            Answer::SeekCancelled => f.write_str("seek cancelled"),
            Answer::Challenged { user, control } => write!(f, "challenged {user} {control}"),
            Answer::DrawByClaim { reason } => write!(f, "draw by {reason}"),
            Answer::Resigned { by } => write!(f, "{} resigns", color_name(*by)),
            Answer::Withdrawn { uci } => write!(f, "withdrawn {uci}"),
            Answer::ClockAdjusted {
                color,
                remaining_ms,
            } => write!(f, "{} {}", color_name(*color), format_clock(*remaining_ms)),
            Answer::PenaltyTime { by, opponent_ms } => write!(
                f,
                "{} gets the penalty time; {} left",
                color_name(!*by),
                format_clock(*opponent_ms)
            ),
            Answer::ResultDeclared { result } => write!(f, "result {}", result.pgn()),
            Answer::SecondIllegalMove { by } => write!(
                f,
                "second illegal move by {}: the game is over",
                color_name(*by)
            ),
            Answer::ClockRunning { running } => f.write_str(if *running {
                "clock running"
            } else {
                "clock paused"
            }),
            Answer::SheetRecorded {
                side,
                plies,
                skipped,
                verdict,
            } => {
                write!(f, "sheet {side}: {plies} half-moves")?;
                if let Some(skipped) = skipped {
                    write!(f, "; {skipped}")?;
                }
                write!(f, "; {verdict}")
            }
            Answer::SheetConfirmed { side, verdict } => {
                write!(f, "sheet {side} confirmed; {verdict}")
            }
            Answer::SheetDisputed { side, verdict } => {
                write!(f, "sheet {side} disputed; {verdict}")
            }
            Answer::TakebackDropped => f.write_str("the proposed takeback is dropped"),
            Answer::TakenBack {
                plies,
                white_ms,
                black_ms,
            } => write!(
                f,
                "back to {plies} half-moves; white {} black {}",
                format_clock(*white_ms),
                format_clock(*black_ms)
            ),
            Answer::Parsed { uci, san, spoken } => write!(f, "{uci} {san} {spoken}"),
            Answer::Export { text } => f.write_str(&json_string(text)),
            Answer::Promoted { uci } => f.write_str(uci),
            Answer::NewGame { fen } => write!(f, "new game {fen}"),
            Answer::Tagged { tag, value } => write!(f, "{tag} {value}"),
            Answer::DaysCharged { by, total_days } => write!(
                f,
                "{} is charged the penalty days; days used white {} black {}",
                color_name(*by),
                total_days[0],
                total_days[1]
            ),
            Answer::LeaveTaken { leave } => f.write_str(leave),
            Answer::Sent { plies } => write!(f, "sent {plies}"),
            Answer::Message { text: Some(text) } => write!(f, "message {text}"),
            Answer::Message { text: None } => f.write_str("message none"),
            Answer::Commented => f.write_str("comment kept"),
            Answer::MyMessageKept => f.write_str("my-message kept"),
            Answer::TimeClaimed { by } => write!(
                f,
                "{} claims the game on time; the arbiter decides (result)",
                color_name(*by)
            ),
            Answer::Focused { table } => write!(f, "focus {table}"),
            Answer::Games { text } => write!(f, "games {text}"),
            Answer::Mail { text } => write!(f, "mail {text}"),
            Answer::View(view) => write!(f, "{}", super::page::view_json(view)),
            Answer::PromotionChosen { piece } => write!(
                f,
                "{} chosen for the next promotion",
                annabella_chess::role_name(*piece)
            ),
        }
    }
}

/// `text` as one JSON string literal: an export fits on one reply line.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::reply::{BoardStatus, BoardSync, Status};
    use shakmaty::Color;

    #[test]
    fn a_reply_is_always_one_line() {
        use crate::table::control::ErrorCode;
        assert!(!Refusal::new(ErrorCode::Move, "a\nb").line().contains('\n'));
        assert_eq!(ok_line("e2e4 e4"), "ok e2e4 e4");
    }

    /// Refusals of who may do what, as their lines read.
    #[test]
    fn who_may_do_what_reads_as_documented() {
        use crate::table::control::{Role, TableRequest, permitted, permitted_to_role};
        use shakmaty::Color;
        let mv = TableRequest::Move { text: "e4".into() };
        let refused = permitted(Role::Player(Color::Black), &mv, Color::White).unwrap_err();
        assert_eq!(
            refused.line(),
            "error forbidden you play black; it is white's move"
        );
        assert_eq!(
            permitted_to_role(Role::Observer, TableRequest::Resign.spec())
                .unwrap_err()
                .line(),
            "error forbidden an observer may only read; resign changes the game"
        );
        assert_eq!(
            permitted(Role::Assistant, &TableRequest::Pause, Color::White)
                .unwrap_err()
                .line(),
            "error forbidden only the arbiter may pause; you are assistant"
        );
    }

    #[test]
    fn replies_read_as_documented() {
        let status = Answer::Status(Status {
            table: "table-1".into(),
            ply: 3,
            turn: Color::Black,
            result: "*",
            peg: BoardStatus {
                connected: true,
                sync: BoardSync::OwesMove,
            },
            normal: None,
            draw_offer: Some(Color::White),
            promotion: None,
        });
        assert_eq!(
            answer_text(&status),
            "table table-1 ply 3 turn black result * peg connected owes-move normal virtual \
             draw-offer white promotion none"
        );
        assert_eq!(
            reply_line(&Ok(Answer::Export {
                text: "1. e4 \"x\"\n".into()
            })),
            "ok \"1. e4 \\\"x\\\"\\n\""
        );
        assert_eq!(
            answer_text(&Answer::PenaltyTime {
                by: Color::White,
                opponent_ms: 61_000
            }),
            "black gets the penalty time; 0:01:01 left"
        );
    }
}
