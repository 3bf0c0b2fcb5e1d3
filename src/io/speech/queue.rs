//! The order in which one output says what it is given, and what may cut what: the policy for time trouble, with no threads and no clock of its own (time is a parameter).
//!
//! The rules (`docs/speech.md`, "Time trouble"), each for what a blind player needs most:
//! - Normal utterances are said in order. When the queue is full the oldest one that is not a
//!   move is dropped (a move only when nothing else is left to drop).
//! - An urgent utterance that is not a clock call (the flag, an illegal move) goes first, behind
//!   earlier ones of its kind, and cuts whatever is being said but another of its kind.
//! - A clock call in the last minute is urgent, but never cuts a move's announcement: the move
//!   is what the player must hear to go on, and a call comes again a moment later. It waits
//!   behind the moves queued before it, and cuts anything else. A call is dropped when a later
//!   one for the same colour comes, or when its own time has run out before its turn: "vier
//!   Sekunden" said with one second left is wrong.
//! - Whatever is cut, but a clock call or the clocks' times on request (`About::TimeAnswer`,
//!   whose times a call makes stale), is said again right after the urgent utterances that
//!   cut it, and only an urgent utterance that is not a clock call cuts it again. With a call
//!   every second, a move cut by each would otherwise be heard only after the flag.
//! - The correspondence desk's words (`About::Desk`, the answer to a key such as `KG`) are
//!   superseded by its next words: those cut what the desk is saying (never anything else),
//!   the desk's words still waiting are dropped, and what was cut is not said again.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::{About, Urgency, Utterance};

/// What an utterance is, for the rules above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Move,
    ClockCall,
    Desk,
    /// The clocks' times on request: cut like any other words, but never said again.
    TimeAnswer,
    Other,
}

fn kind(u: &Utterance) -> Kind {
    match u.about {
        About::Move { .. } => Kind::Move,
        About::ClockCall { .. } => Kind::ClockCall,
        About::Desk => Kind::Desk,
        About::TimeAnswer => Kind::TimeAnswer,
        About::Withdrawn { .. } | About::Result | About::Other => Kind::Other,
    }
}

/// An utterance waiting its turn.
struct Queued {
    u: Utterance,
    /// When it was queued, to tell a clock call whose time has run out.
    since: Instant,
    /// Said again after it was cut.
    repeat: bool,
}

impl Queued {
    /// An urgent utterance that is not a clock call: the flag, an illegal move, a decision.
    fn alarm(&self) -> bool {
        self.u.urgency == Urgency::Urgent && kind(&self.u) != Kind::ClockCall
    }

    /// A clock call whose time has passed since it was made.
    fn expired(&self, now: Instant) -> bool {
        match self.u.about {
            About::ClockCall { remaining_ms, .. } => {
                now.saturating_duration_since(self.since) >= Duration::from_millis(remaining_ms)
            }
            _ => false,
        }
    }
}

/// What the output is saying now.
#[derive(Clone, Copy, Debug)]
struct Speaking {
    alarm: bool,
    kind: Kind,
    repeat: bool,
}

/// One output's queue, and what it is saying.
pub(super) struct SpeechQueue {
    items: VecDeque<Queued>,
    speaking: Option<Speaking>,
    /// Set when an arrival should cut what is being said; the worker reads and clears it.
    interrupt: bool,
    capacity: usize,
}

/// What a [`SpeechQueue::push`] removed: clock calls made stale, and what overflowed.
#[derive(Default)]
pub(super) struct Pushed {
    pub stale: Vec<Utterance>,
    pub dropped: Vec<Utterance>,
}

impl SpeechQueue {
    /// An empty queue holding at most `capacity` normal utterances (at least one).
    pub fn new(capacity: usize) -> SpeechQueue {
        SpeechQueue {
            items: VecDeque::new(),
            speaking: None,
            interrupt: false,
            capacity: capacity.max(1),
        }
    }

    /// The leading run of alarms: where the next alarm goes.
    fn after_alarms(&self) -> usize {
        self.items.iter().take_while(|q| q.alarm()).count()
    }

    /// Where a cut utterance goes: behind the urgent ones (what cut it among them) and the
    /// cut ones already waiting.
    fn after_urgent(&self) -> usize {
        self.items
            .iter()
            .take_while(|q| q.u.urgency == Urgency::Urgent || q.repeat)
            .count()
    }

    /// Takes `u`, queued at `now`; sets the interrupt when it should cut what is being said.
    pub fn push(&mut self, u: Utterance, now: Instant) -> Pushed {
        let mut out = Pushed::default();
        if let About::ClockCall { color, .. } = u.about {
            // A later call for the same colour makes the waiting ones stale.
            let mut i = 0;
            while i < self.items.len() {
                if matches!(self.items[i].u.about, About::ClockCall { color: c, .. } if c == color)
                {
                    out.stale.extend(self.items.remove(i).map(|q| q.u));
                } else {
                    i += 1;
                }
            }
        }
        let desk = u.about == About::Desk;
        if desk {
            // The desk's newer words make its older ones, still waiting, stale.
            let mut i = 0;
            while i < self.items.len() {
                if self.items[i].u.about == About::Desk {
                    out.stale.extend(self.items.remove(i).map(|q| q.u));
                } else {
                    i += 1;
                }
            }
        }
        let queued = Queued {
            u,
            since: now,
            repeat: false,
        };
        let urgent = queued.u.urgency == Urgency::Urgent;
        let at = if queued.alarm() {
            self.after_alarms()
        } else if urgent {
            // A call in the last minute: behind the alarms, the cut utterances waiting to be
            // said again and the moves queued before it.
            self.items
                .iter()
                .rposition(|q| q.alarm() || q.repeat || kind(&q.u) == Kind::Move)
                .map_or(0, |i| i + 1)
        } else {
            self.items.len()
        };
        let cuts = match self.speaking {
            None => false,
            Some(now) if desk && now.kind == Kind::Desk => true,
            Some(now) if queued.alarm() => !now.alarm,
            Some(now) => {
                urgent
                    && !now.alarm
                    && !now.repeat
                    && matches!(now.kind, Kind::Other | Kind::TimeAnswer)
            }
        };
        if cuts {
            self.interrupt = true;
        }
        self.items.insert(at, queued);
        // Only normal utterances are dropped, moves last and cut ones never: a queue of urgent
        // ones may exceed the bound for a moment.
        while self.items.len() > self.capacity {
            let droppable = |q: &Queued, moves: bool| {
                q.u.urgency == Urgency::Polite && !q.repeat && (moves || kind(&q.u) != Kind::Move)
            };
            let Some(i) = self
                .items
                .iter()
                .position(|q| droppable(q, false))
                .or_else(|| self.items.iter().position(|q| droppable(q, true)))
            else {
                break;
            };
            out.dropped.extend(self.items.remove(i).map(|q| q.u));
        }
        out
    }

    /// The next utterance to say at `now`, skipping (and returning) clock calls whose time ran
    /// out while they waited. It is then being said until [`SpeechQueue::done`] or
    /// [`SpeechQueue::cut`].
    pub fn next(&mut self, now: Instant) -> (Option<Utterance>, Vec<Utterance>) {
        let mut expired = Vec::new();
        while let Some(q) = self.items.pop_front() {
            if q.expired(now) {
                expired.push(q.u);
                continue;
            }
            self.speaking = Some(Speaking {
                alarm: q.alarm(),
                kind: kind(&q.u),
                repeat: q.repeat,
            });
            self.interrupt = false;
            return (Some(q.u), expired);
        }
        (None, expired)
    }

    /// The utterance being said was said to the end (or failed).
    pub fn done(&mut self) {
        self.speaking = None;
    }

    /// The utterance being said, `u`, was cut at `now`: unless it is a clock call, the desk's
    /// words or the times on request, it is said again right after the alarms that cut it.
    /// The times would be stale by then ("fünfundvierzig" after the call said "vierzig"):
    /// he asks again if he wants them.
    pub fn cut(&mut self, u: Utterance, now: Instant) {
        let repeat = self
            .speaking
            .is_some_and(|s| !matches!(s.kind, Kind::ClockCall | Kind::Desk | Kind::TimeAnswer));
        self.speaking = None;
        if repeat {
            let at = self.after_urgent();
            self.items.insert(
                at,
                Queued {
                    u,
                    since: now,
                    repeat: true,
                },
            );
        }
    }

    /// Whether what is being said should be cut.
    pub fn interrupted(&self) -> bool {
        self.interrupt
    }

    /// Forgets a pending interrupt (what it was for has ended by itself).
    pub fn clear_interrupt(&mut self) {
        self.interrupt = false;
    }

    /// Nothing queued and nothing being said.
    pub fn is_idle(&self) -> bool {
        self.items.is_empty() && self.speaking.is_none()
    }

    /// Forgets everything queued (at shutdown).
    pub fn clear(&mut self) {
        self.items.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;

    use crate::table::event::Listener;

    fn say(text: &str) -> Utterance {
        Utterance::new(Listener::Everyone, text, "de", "g", 0)
    }
    fn a_move(text: &str) -> Utterance {
        say(text).about(About::Move {
            number: 1,
            color: Color::Black,
        })
    }
    fn call(text: &str, remaining_ms: u64) -> Utterance {
        say(text)
            .about(About::ClockCall {
                color: Color::White,
                remaining_ms,
            })
            .urgent()
    }

    fn texts(q: &SpeechQueue) -> Vec<&str> {
        q.items.iter().map(|q| q.u.text.as_str()).collect()
    }

    #[test]
    fn a_clock_call_never_cuts_a_move_and_waits_behind_it() {
        let t = Instant::now();
        let mut q = SpeechQueue::new(16);
        q.push(a_move("Kurze Rochade"), t);
        assert_eq!(q.next(t).0.unwrap().text, "Kurze Rochade");
        q.push(call("fünf Sekunden", 5_000), t);
        assert!(!q.interrupted());
        // A later call makes the waiting one stale: only "vier" is said after the move.
        let pushed = q.push(call("vier Sekunden", 4_000), t + Duration::from_secs(1));
        assert_eq!(pushed.stale.len(), 1);
        q.done();
        assert_eq!(texts(&q), ["vier Sekunden"]);
    }

    #[test]
    fn a_clock_call_cuts_an_answer_which_is_said_again_and_not_cut_twice() {
        let t = Instant::now();
        let mut q = SpeechQueue::new(16);
        q.push(say("Zug zwölf, Weiß: Springer Felix drei"), t);
        let answer = q.next(t).0.unwrap();
        q.push(call("zehn Sekunden", 10_000), t);
        assert!(q.interrupted());
        q.cut(answer, t);
        assert_eq!(
            texts(&q),
            ["zehn Sekunden", "Zug zwölf, Weiß: Springer Felix drei"]
        );
        assert_eq!(q.next(t).0.unwrap().text, "zehn Sekunden");
        q.done();
        assert_eq!(
            q.next(t).0.unwrap().text,
            "Zug zwölf, Weiß: Springer Felix drei"
        );
        q.push(call("neun Sekunden", 9_000), t);
        assert!(!q.interrupted(), "a repeat is not cut by a call");
    }

    #[test]
    fn the_times_on_request_cut_by_a_call_are_not_said_again_with_their_stale_time() {
        let t = Instant::now();
        let mut q = SpeechQueue::new(16);
        q.push(
            say("Weiß fünfundvierzig Sekunden, Schwarz zwei Minuten").about(About::TimeAnswer),
            t,
        );
        let answer = q.next(t).0.unwrap();
        q.push(call("Weiß vierzig Sekunden", 40_000), t);
        assert!(q.interrupted(), "the call cuts the answer");
        q.cut(answer, t);
        assert_eq!(texts(&q), ["Weiß vierzig Sekunden"]);
    }

    #[test]
    fn the_flag_cuts_a_clock_call_and_a_repeat_and_goes_before_waiting_calls() {
        let t = Instant::now();
        let mut q = SpeechQueue::new(16);
        q.push(call("eine Sekunde", 1_000), t);
        q.next(t);
        q.push(say("Weiß hat die Zeit überschritten").urgent(), t);
        assert!(q.interrupted(), "the flag cuts the last call");
        let mut q = SpeechQueue::new(16);
        q.push(a_move("Springer Felix drei"), t);
        let m = q.next(t).0.unwrap();
        q.push(say("Unzulässiger Zug").urgent(), t);
        assert!(q.interrupted());
        q.cut(m, t);
        let m = {
            q.next(t);
            q.done();
            q.next(t).0.unwrap()
        };
        assert_eq!(m.text, "Springer Felix drei");
        q.push(call("drei Sekunden", 3_000), t);
        q.push(say("Weiß hat die Zeit überschritten").urgent(), t);
        assert!(q.interrupted(), "the flag cuts even a repeat");
        assert_eq!(
            texts(&q),
            ["Weiß hat die Zeit überschritten", "drei Sekunden"]
        );
    }

    #[test]
    fn the_desks_next_words_cut_its_words_and_drop_the_waiting_ones_never_a_move() {
        let t = Instant::now();
        let mut q = SpeechQueue::new(16);
        let desk = |text: &str| say(text).about(About::Desk);
        q.push(desk("gegen Carol Smith, Sie haben Weiß. Weiß am Zug …"), t);
        let reading = q.next(t).0.unwrap();
        q.push(a_move("Zug zwei, Weiß: Gustav vier"), t);
        q.push(desk("Antwort vorbereitet"), t);
        assert!(
            q.interrupted(),
            "the desk's next words cut its words being said"
        );
        // A second KG: the next game's words make the waiting ones stale.
        let pushed = q.push(desk("gegen Bob Jones, Sie haben Schwarz …"), t);
        assert_eq!(pushed.stale.len(), 1);
        q.cut(reading, t);
        // What was cut is not said again; the move stays.
        assert_eq!(
            texts(&q),
            [
                "Zug zwei, Weiß: Gustav vier",
                "gegen Bob Jones, Sie haben Schwarz …"
            ]
        );
        // The desk's words never cut anything else.
        assert_eq!(q.next(t).0.unwrap().text, "Zug zwei, Weiß: Gustav vier");
        q.push(desk("gegen Dora Klein, Sie haben Weiß …"), t);
        assert!(!q.interrupted(), "a move is not cut by the desk");
    }

    #[test]
    fn a_clock_call_whose_time_ran_out_is_skipped() {
        let t = Instant::now();
        let mut q = SpeechQueue::new(16);
        q.push(a_move("Dame Hector fünf"), t);
        q.next(t);
        q.push(call("eine Sekunde", 1_000), t);
        q.done();
        let (next, expired) = q.next(t + Duration::from_millis(1_200));
        assert!(next.is_none());
        assert_eq!(expired.len(), 1);
    }

    #[test]
    fn a_full_queue_drops_the_oldest_answer_before_any_move() {
        let t = Instant::now();
        let mut q = SpeechQueue::new(3);
        q.push(a_move("Eva vier"), t);
        q.push(say("in Ordnung"), t);
        q.push(a_move("Eva fünf"), t);
        let pushed = q.push(say("Taste unbekannt"), t);
        assert_eq!(pushed.dropped[0].text, "in Ordnung");
        let pushed = q.push(a_move("Springer Felix drei"), t);
        assert_eq!(pushed.dropped[0].text, "Taste unbekannt");
        let pushed = q.push(a_move("Springer Cesar sechs"), t);
        assert_eq!(
            pushed.dropped[0].text, "Eva vier",
            "a move only when nothing else is left"
        );
    }
}
