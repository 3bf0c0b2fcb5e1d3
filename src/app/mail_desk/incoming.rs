//! Incoming mail: the Maildir read with the opponents' messages first, each message's game
//! found, its sender checked against the game's opponent (a stranger's message is held, never
//! played and never charged to anyone), its record checked against the game, and the
//! opponent's move played as of the message's arrival (or why not said in the listener's
//! language and logged, quoting both records). A message the table cannot take now (the
//! arbiter stopped the clocks) stays in `new/` and is read again later; nothing that names a
//! game is dropped without a word, and what belongs to no game is counted and told once.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use shakmaty::Color;

use super::{LOOK_BUDGET, MESSAGES_PER_LOOK, MailDesk, publish};
use crate::app::desk_link::Notice;
use crate::chess::language::Language;
use crate::chess::notation::{Notation, Style, format_move};
use crate::chess::vocabulary::fill;
use crate::correspondence::message::{self, Intent, ParsedMessage, Verdict};
use crate::io::maildir::MailMessage;
use crate::table::control::{ErrorCode, Role, TableRequest};
use crate::table::event::{MailEvent, TableEvent};
use crate::table::state::DeskView;

/// How long a message the table could not take waits before it is read again.
const RETRY_LATER: Duration = Duration::from_secs(5);
/// The most names remembered as accepted, waiting or told.
const MAX_REMEMBERED: usize = 10_000;

/// What became of one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Played, refused aloud or a repeat: filed in `cur/`, seen.
    Filed,
    /// It names no game of the desk: filed in `cur/` unread, counted for the summary.
    NotAGame,
    /// Its sender is not the game's opponent: held, told.
    Hold { table: usize },
    /// The table cannot take it now: left in `new/`, read again later.
    Later,
}

/// The incoming side's memory between looks.
#[derive(Debug)]
pub struct Intake {
    /// Messages left in `new/` for a later look, and from when.
    later: HashMap<String, Instant>,
    /// Messages already said to be waiting (said once).
    told_waiting: HashSet<String>,
    /// Messages accepted from the held folder: their sender is not checked again. Kept in
    /// `accepted_file` so that a restart before they are read keeps the acceptance.
    pub(super) accepted: HashSet<String>,
    pub(super) accepted_file: PathBuf,
    pub(super) tell: super::tell::Tell,
}

impl Intake {
    /// The intake of a desk whose state directory is `state_dir`: the acceptances of the last
    /// run read back.
    pub fn new(state_dir: &std::path::Path) -> Intake {
        let accepted_file = state_dir.join("mail-accepted");
        let accepted = read_lines(&accepted_file);
        Intake {
            later: HashMap::new(),
            told_waiting: HashSet::new(),
            accepted,
            accepted_file,
            tell: super::tell::Tell::default(),
        }
    }

    /// Writes the accepted names (a courtesy kept atomically; losing it only holds a message
    /// again).
    pub(super) fn keep_accepted(&self) {
        let text: String = self.accepted.iter().map(|n| format!("{n}\n")).collect();
        let written = crate::io::private_file::replace(
            &self.accepted_file,
            text.as_bytes(),
            crate::io::private_file::Access::Private,
        );
        if let Err(e) = written {
            tracing::warn!(path = %self.accepted_file.display(), error = %e, "the accepted messages were not kept");
        }
    }
}

/// A small file's lines (at most 1 MiB, `MAX_REMEMBERED` lines); none when it is missing.
fn read_lines(path: &std::path::Path) -> HashSet<String> {
    use std::io::Read;
    let mut text = String::new();
    if let Ok(f) = std::fs::File::open(path) {
        f.take(1024 * 1024).read_to_string(&mut text).ok();
    }
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.contains('/'))
        .take(MAX_REMEMBERED)
        .map(str::to_owned)
        .collect()
}

impl MailDesk {
    /// Reads new messages, the opponents' first, and handles each.
    pub(super) async fn read_mail(&mut self) {
        let Some(mut maildir) = self.maildir.take() else {
            return;
        };
        let now = Instant::now();
        self.intake
            .later
            .retain(|_, at| now.duration_since(*at) < RETRY_LATER);
        let waiting: HashSet<String> = self.intake.later.keys().cloned().collect();
        let accepted = self.intake.accepted.clone();
        let opponents: HashSet<String> = self
            .tables
            .iter()
            .flat_map(|t| t.opponent_addresses.iter().cloned())
            .collect();
        let scanned = tokio::task::spawn_blocking(move || {
            let scan = maildir.scan(MESSAGES_PER_LOOK, SystemTime::now(), |e| {
                if waiting.contains(&e.file) {
                    None
                } else if accepted.contains(&e.file)
                    || e.from.as_ref().is_some_and(|f| opponents.contains(f))
                {
                    Some(0)
                } else {
                    Some(1)
                }
            });
            (maildir, scan)
        })
        .await;
        let (mut maildir, scan) = match scanned {
            Ok(done) => done,
            Err(e) => {
                // The Maildir reader is lost with the task: the mail stops, loudly.
                tracing::error!(error = %e, "reading the Maildir failed; incoming mail stops");
                return;
            }
        };
        let root = maildir.root().display().to_string();
        let scan = match scan {
            Ok(scan) => scan,
            Err(e) => {
                tracing::warn!(maildir = %root, error = %e, "the Maildir could not be read; tried again");
                self.maildir = Some(maildir);
                return;
            }
        };
        for problem in &scan.problems {
            tracing::warn!(maildir = %root, file = %problem.file(), "{problem}");
        }
        let mut left = scan.left;
        for m in scan.messages {
            if now.elapsed() > LOOK_BUDGET {
                // Read again at the next look (its header is remembered).
                left += 1;
                continue;
            }
            let outcome = self.handle_message(&m).await;
            self.file(&mut maildir, &m, outcome);
        }
        self.maildir = Some(maildir);
        let nothing_waiting = left == 0 || left <= self.intake.later.len();
        if self.intake.tell.due(nothing_waiting, Instant::now()) {
            let names: Vec<(String, &'static Language)> = (0..self.tables.len())
                .map(|i| (self.spoken(i), self.tables[i].lang))
                .collect();
            let said = self.intake.tell.take(0, |i| names[i].clone());
            for (i, text) in said {
                self.say(i, text);
            }
        }
    }

    /// Files a handled message by its outcome.
    fn file(
        &mut self,
        maildir: &mut crate::io::maildir::Maildir,
        m: &MailMessage,
        outcome: Outcome,
    ) {
        let filed = match outcome {
            Outcome::Filed => maildir.mark_handled(&m.file, true),
            Outcome::NotAGame => {
                self.intake.tell.not_a_game(Instant::now());
                maildir.mark_handled(&m.file, false)
            }
            Outcome::Hold { table } => match maildir.hold(&m.file) {
                Ok(id) => {
                    let sender = m.from.clone().unwrap_or_else(|| m.from_text.clone());
                    tracing::warn!(table = %self.tables[table].handle.name, file = %m.file, from = %m.from_text, id, "a message from a sender who is not the game's opponent: held, not played");
                    publish(
                        &self.tables[table].handle.events,
                        TableEvent::Mail(MailEvent::Refused {
                            why: match m.forged {
                                Some(why) => format!(
                                    "held as number {id}: the sender {} is doubted: {why}",
                                    m.from_text
                                ),
                                None => format!(
                                    "held as number {id}: the sender {} is not the game's opponent",
                                    m.from_text
                                ),
                            },
                        }),
                    );
                    self.intake.tell.held(table, id, &sender, Instant::now());
                    Ok(())
                }
                Err(e) => Err(e),
            },
            Outcome::Later => {
                if self.intake.later.len() < MAX_REMEMBERED {
                    self.intake.later.insert(m.file.clone(), Instant::now());
                }
                Ok(())
            }
        };
        if let Err(e) = filed {
            tracing::error!(file = %m.file, error = %e, "a handled message could not be moved out of new/");
        }
        if outcome != Outcome::Later {
            self.intake.told_waiting.remove(&m.file);
            if self.intake.accepted.remove(&m.file) {
                self.intake.keep_accepted();
            }
        }
    }

    /// One message: its game, its sender, its record against the game.
    pub(super) async fn handle_message(&mut self, m: &MailMessage) -> Outcome {
        if let Some(bounce) = &m.bounce {
            self.bounced(&m.file, bounce);
            return Outcome::Filed;
        }
        let trusted = self.intake.accepted.contains(&m.file);
        let parsed = message::parse(&m.subject, &m.body);
        let named = parsed
            .as_ref()
            .ok()
            .and_then(|p| p.game.as_ref())
            .and_then(|g| {
                // The game's id as `new-game game_id` may have changed it.
                self.tables
                    .iter()
                    .position(|t| super::replies::game_name(t, &t.view.borrow()) == g.as_str())
            });
        // A message that names no game of the desk but comes from one game's opponent is that
        // game's (he may write without the game's name).
        let by_sender: Vec<usize> = (0..self.tables.len())
            .filter(|&i| {
                m.from
                    .as_ref()
                    .is_some_and(|f| self.tables[i].opponent_addresses.contains(f))
            })
            .collect();
        let Some(i) = named.or(match by_sender[..] {
            [only] => Some(only),
            _ => None,
        }) else {
            match &parsed {
                Ok(p) => {
                    tracing::info!(file = %m.file, game = ?p.game, from = %m.from_text, "a message for a game no table plays; left unread in cur/")
                }
                Err(e) => {
                    tracing::info!(file = %m.file, subject = %m.subject, from = %m.from_text, error = %e, "a message that belongs to no game; left unread in cur/")
                }
            }
            return Outcome::NotAGame;
        };
        let from_opponent = m.forged.is_none()
            && m.from
                .as_ref()
                .is_some_and(|f| self.tables[i].opponent_addresses.contains(f));
        if !from_opponent && !trusted {
            return Outcome::Hold { table: i };
        }
        let parsed = match parsed {
            Ok(p) => p,
            Err(e) => {
                let why = self.word(i, "desk_mail_why_unreadable");
                self.refuse(i, &format!("{}: {e}", m.file), &why);
                return Outcome::Filed;
            }
        };
        let view = Arc::clone(&self.tables[i].view.borrow());
        match message::check_against(&parsed, &view.game, self.tables[i].lang) {
            Verdict::NewMove { ply, mv } => {
                let outcome = self.apply(i, m, &parsed, ply, mv, &view).await;
                if outcome == Outcome::Filed && self.tables[i].view.borrow().game.ply_count() > ply
                {
                    self.said_besides(i, &parsed).await;
                }
                outcome
            }
            Verdict::NothingNew { behind } => {
                tracing::info!(file = %m.file, game = ?parsed.game, behind, "a message with no new move (a repeat)");
                // A resent message is filed without a word; what it says besides is still his.
                if behind == 0 {
                    self.said_besides(i, &parsed).await;
                }
                Outcome::Filed
            }
            Verdict::NoMove => {
                tracing::info!(file = %m.file, game = ?parsed.game, "a message with no move");
                if parsed.intents.is_empty() && parsed.text.is_none() {
                    let why = self.word(i, "desk_mail_why_no_move");
                    self.refuse(i, &format!("{}: the message names no move", m.file), &why);
                } else {
                    self.said_besides(i, &parsed).await;
                }
                Outcome::Filed
            }
            Verdict::Disagrees(d) => {
                self.disagrees(i, &d, &view).await;
                Outcome::Filed
            }
        }
    }

    /// A record that is not the game: said, and when only its new move is illegal or
    /// ambiguous, its sender charged the rules' days (BCA email rule 6).
    async fn disagrees(&mut self, i: usize, d: &message::Disagreement, view: &DeskView) {
        let new_move_bad = d.new_move_only;
        let key = if new_move_bad {
            "desk_mail_illegal"
        } else {
            "desk_mail_differs"
        };
        let short = differs_words(key, &d.first, self.tables[i].lang);
        self.refuse(i, &d.to_string(), &short);
        if new_move_bad && !view.game.is_over() && view.game.turn() != view.peg_side {
            let t = &self.tables[i];
            let reply = t
                .handle
                .ask(
                    Role::Arbiter,
                    Language::english(),
                    TableRequest::Penalty {
                        color: view.game.turn(),
                    },
                )
                .await;
            tracing::info!(table = %t.handle.name, reply = %crate::control::wire::reply_line(&reply), "an illegal or ambiguous move by mail: the sender's penalty");
        }
    }

    async fn apply(
        &mut self,
        i: usize,
        m: &MailMessage,
        parsed: &ParsedMessage,
        ply: usize,
        mv: shakmaty::Move,
        view: &DeskView,
    ) -> Outcome {
        // The new move is the next in the game: its mover is the side to move.
        let color = view.game.turn();
        if color == view.peg_side {
            let why = self.word(i, "desk_mail_why_own_side");
            self.refuse(
                i,
                &format!("the message sends a move for {color}, the blind player's own side"),
                &why,
            );
            return Outcome::Filed;
        }
        let t = &self.tables[i];
        let mode = view.game.castling_mode();
        let iccf = format_move(
            view.game.position(),
            mode,
            mv,
            Notation::Iccf,
            &Style::new(Language::english()),
        );
        let number = view.game.fullmove_number();
        let line = match color {
            Color::White => format!("{number}. {iccf}"),
            Color::Black => format!("{number}... {iccf}"),
        };
        // His days run until the message arrived, not until the desk read it.
        let arrived_unix_ms = m.arrived_unix_ms.unwrap_or_else(crate::io::clock::unix_ms);
        let reply = t
            .handle
            .ask(
                Role::Player(color),
                Language::english(),
                TableRequest::MailMove {
                    text: line,
                    arrived_unix_ms,
                },
            )
            .await;
        if let Err(refusal) = reply {
            return self.not_taken(i, m, &refusal);
        }
        self.played(i, m, parsed, ply, mv, view);
        Outcome::Filed
    }

    /// The table refused the opponent's move: kept for later when it cannot take it now,
    /// else said.
    fn not_taken(
        &mut self,
        i: usize,
        m: &MailMessage,
        refusal: &crate::table::control::Refusal,
    ) -> Outcome {
        // The refusal as the arbiter reads it in the event and the log: its code and why.
        let full = format!("{} {}", refusal.code.as_str(), refusal.message);
        let over = self.tables[i].view.borrow().game.is_over();
        if refusal.code == ErrorCode::State && !over {
            // Paused, or the table busy: the message is kept and read again later.
            tracing::info!(table = %self.tables[i].handle.name, file = %m.file, why = %full, "the table cannot take the opponent's move now; the message stays in new/");
            if self.intake.told_waiting.len() < MAX_REMEMBERED
                && self.intake.told_waiting.insert(m.file.clone())
            {
                let text = fill(
                    &self.word(i, "desk_mail_waiting"),
                    &[("game", &self.spoken(i))],
                );
                self.say(i, text);
            }
            return Outcome::Later;
        }
        let key = if refusal.code == ErrorCode::State {
            "desk_mail_why_not_now"
        } else {
            "desk_mail_why_refused"
        };
        let why = self.word(i, key);
        self.refuse(i, &full, &why);
        Outcome::Filed
    }

    /// The opponent's move was played: the event, the count of messages, the days it cost.
    fn played(
        &mut self,
        i: usize,
        m: &MailMessage,
        parsed: &ParsedMessage,
        ply: usize,
        mv: shakmaty::Move,
        view: &DeskView,
    ) {
        // What the move cost as the game's rules count it from the message's arrival, never
        // the time the message claims (its "Time used").
        let charged = {
            let after = self.tables[i].view.borrow();
            (after.game.ply_count() == ply + 1)
                .then_some(after.last_charge)
                .flatten()
        };
        let mut as_charged = parsed.clone();
        as_charged.used_days = charged.map(|c| c.used_days);
        let t = &self.tables[i];
        let summary = message::summary_for_ear(&as_charged, &t.game_id, &view.game, mv, t.lang);
        tracing::info!(table = %t.handle.name, file = %m.file, ply = ply + 1, "the opponent's move by mail was played");
        publish(
            &t.handle.events,
            TableEvent::Mail(MailEvent::Received {
                ply: ply + 1,
                summary,
            }),
        );
        self.notices.try_send(Notice::MessageReceived(t.index)).ok();
        self.last_received[i] = m.message_id.clone();
        // The table has announced the move with the game's name and number; what the desk
        // adds is the days it cost him.
        if let Some(words) = message::time_used_for_ear(&as_charged, self.tables[i].lang) {
            self.say(i, words);
        }
    }

    /// What the opponent's message says besides its move, acted on as his: his comment kept
    /// for `KM`, a draw offered or accepted, a resignation, a claim on time, leave. The table
    /// announces each; what it refuses is said.
    async fn said_besides(&mut self, i: usize, parsed: &ParsedMessage) {
        let view = Arc::clone(&self.tables[i].view.borrow());
        let opponent = !view.peg_side;
        if let Some(text) = &parsed.text {
            let reply = self.tables[i]
                .handle
                .ask(
                    Role::Arbiter,
                    Language::english(),
                    TableRequest::Comment { text: text.clone() },
                )
                .await;
            if let Err(r) = reply {
                tracing::warn!(table = %self.tables[i].handle.name, why = %r.message, "the opponent's comment was not kept");
            }
        }
        for intent in &parsed.intents {
            let request = match intent {
                Intent::OfferDraw => TableRequest::OfferDraw,
                // Agreeing is offering while his offer stands; without one there is nothing
                // to accept.
                Intent::AcceptDraw if view.draw_offer == Some(view.peg_side) => {
                    TableRequest::OfferDraw
                }
                Intent::AcceptDraw => {
                    let why = self.word(i, "desk_mail_why_no_offer");
                    self.refuse(
                        i,
                        "the message accepts a draw, but no draw offer of his stands",
                        &why,
                    );
                    continue;
                }
                Intent::DeclineDraw => {
                    let text = fill(
                        &self.word(i, "desk_mail_draw_declined"),
                        &[("game", &self.spoken(i))],
                    );
                    self.say(i, text);
                    continue;
                }
                Intent::Resign => TableRequest::Resign,
                Intent::ClaimWinOnTime => TableRequest::ClaimTime,
                Intent::Leave { from, to } => TableRequest::Leave {
                    color: opponent,
                    from: from.to_string(),
                    to: to.to_string(),
                },
            };
            let reply = self.tables[i]
                .handle
                .ask(Role::Player(opponent), Language::english(), request)
                .await;
            match reply {
                Ok(_) => {
                    tracing::info!(table = %self.tables[i].handle.name, ?intent, "the opponent's message: done as he says");
                }
                Err(r) => {
                    let full = format!("{intent:?}: {} {}", r.code.as_str(), r.message);
                    let why = self.word(i, "desk_mail_why_refused");
                    self.refuse(i, &full, &why);
                }
            }
        }
    }

    /// The game as the blind player hears it named ("gegen Bob Jones, Sie haben Schwarz").
    pub(super) fn spoken(&self, i: usize) -> String {
        self.tables[i].view.borrow().spoken_name.clone()
    }

    /// A word of the table's language.
    fn word(&self, i: usize, key: &str) -> String {
        self.tables[i]
            .lang
            .vocabulary()
            .event(key)
            .unwrap_or(key)
            .to_owned()
    }

    /// A message not applied: the log and the event quote `full`, the blind player hears
    /// `short` (gathered with others of its kind).
    fn refuse(&mut self, i: usize, full: &str, short: &str) {
        let t = &self.tables[i];
        tracing::warn!(table = %t.handle.name, "a message was not applied: {full}");
        publish(
            &t.handle.events,
            TableEvent::Mail(MailEvent::Refused {
                why: full.to_owned(),
            }),
        );
        let short = if short.is_empty() { full } else { short };
        self.intake.tell.refused(i, short, Instant::now());
    }
}

/// "Zug sechzehn, Schwarz weicht von der Partie ab" (the template `key`) for the first
/// differing move (`16...`).
fn differs_words(key: &str, first: &str, lang: &Language) -> String {
    use crate::chess::phrases::{color_phrase, number_phrase};
    let v = lang.vocabulary();
    let color = if first.ends_with("...") {
        Color::Black
    } else {
        Color::White
    };
    let number: u32 = first.trim_end_matches('.').parse().unwrap_or(0);
    fill(
        v.event(key).unwrap_or("{number} {color}"),
        &[
            ("number", &number_phrase(number, v)),
            ("color", &color_phrase(color, v)),
        ],
    )
}
