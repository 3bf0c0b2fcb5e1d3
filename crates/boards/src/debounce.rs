//! Merges the chatter of reed switches and hall sensors into the lifts and placements a hand made.
//!
//! A peg sliding into its hole can close and open the contact several times within a few
//! milliseconds, so one placement arrives as `Pe4 Le4 Pe4`. The debouncer holds the events of a
//! square while they keep coming within the window of each other (a *burst*) and, once the square
//! has been quiet for a whole window, releases the burst's net change: nothing if the square ended
//! where it started, otherwise one event stamped with the time of the burst's *first* event,
//! because that is when the hand touched the peg (FIDE D.2.2 makes the first lifted piece the
//! touched one, so the order of first contacts is what matters).
//!
//! Released events keep the order in which their bursts began, across squares: a settled burst
//! waits behind an earlier one that is still open. A burst stays open at most
//! [`MAX_BURST_WINDOWS`] windows, so a sensor that never stops chattering holds up the others
//! only that long. Everything else (snapshots, keys, identification, DGT messages) releases all
//! held events and then passes.
//!
//! Pure and sans-IO: time comes in with the events and through [`Debouncer::poll`]; the caller
//! asks [`Debouncer::next_deadline`] when to poll. At most [`MAX_PENDING`] bursts are held.

use std::collections::VecDeque;

use shakmaty::Square;

use super::{Millis, SensorEvent, Timed};

/// The default window: longer than the chatter of the reed switches and hall sensors that fit a
/// securing hole, far shorter than any deliberate lift-and-replace by hand.
pub const DEFAULT_WINDOW: Millis = 30;

/// A burst is closed this many windows after its first event even if the square still
/// chatters; its net change so far is released and further events start a new burst.
pub const MAX_BURST_WINDOWS: Millis = 10;

/// Bursts held at most. Real play holds one or two; only a stream with a clock that jumps about
/// gets near this, and then the oldest burst is released early rather than memory growing.
pub const MAX_PENDING: usize = 128;

#[derive(Debug, Clone, Copy)]
struct Burst {
    square: Square,
    first_at: Millis,
    first_lift: bool,
    last_at: Millis,
    last_lift: bool,
}

impl Burst {
    /// The first event again when the burst changed the square; `None` when the square ended
    /// where it started.
    fn net(&self) -> Option<Timed<SensorEvent>> {
        let event = if self.first_lift {
            SensorEvent::Lift(self.square)
        } else {
            SensorEvent::Place(self.square)
        };
        (self.first_lift == self.last_lift).then_some(Timed {
            at: self.first_at,
            event,
        })
    }
}

/// The chatter filter; see the module documentation.
#[derive(Debug, Clone)]
pub struct Debouncer {
    window: Millis,
    /// Bursts in the order they began, open or settled but waiting for an earlier one.
    bursts: VecDeque<Burst>,
}

impl Default for Debouncer {
    fn default() -> Self {
        Debouncer::new(DEFAULT_WINDOW)
    }
}

impl Debouncer {
    /// A debouncer with a window of `window` ms; 0 passes every event through at once.
    pub fn new(window: Millis) -> Debouncer {
        Debouncer {
            window,
            bursts: VecDeque::with_capacity(if window == 0 { 0 } else { 16 }),
        }
    }

    pub fn window(&self) -> Millis {
        self.window
    }

    /// Bursts held now (at most [`MAX_PENDING`]).
    pub fn pending(&self) -> usize {
        self.bursts.len()
    }

    /// When `burst` is settled: a whole window after its last event, or at the latest
    /// [`MAX_BURST_WINDOWS`] windows after its first.
    fn settles_at(&self, burst: &Burst) -> Millis {
        let quiet = burst.last_at.saturating_add(self.window);
        let longest = burst
            .first_at
            .saturating_add(self.window.saturating_mul(MAX_BURST_WINDOWS));
        quiet.min(longest)
    }

    /// Takes one event; whatever is settled by then comes out in `out`, in order.
    pub fn push(&mut self, event: Timed<SensorEvent>, out: &mut Vec<Timed<SensorEvent>>) {
        if self.window == 0 {
            out.push(event);
            return;
        }
        let (square, lift) = match event.event {
            SensorEvent::Lift(square) => (square, true),
            SensorEvent::Place(square) => (square, false),
            _ => {
                self.flush(out);
                out.push(event);
                return;
            }
        };
        // Bursts that settled before this event are over, whatever this event is.
        self.poll(event.at, out);
        let open = self
            .bursts
            .iter()
            .rposition(|b| b.square == square)
            .filter(|&i| event.at < self.settles_at(&self.bursts[i]));
        if let Some(i) = open {
            let burst = &mut self.bursts[i];
            // A recording whose clock went backwards must not shorten the window.
            burst.last_at = burst.last_at.max(event.at);
            burst.last_lift = lift;
        } else {
            if self.bursts.len() >= MAX_PENDING {
                out.extend(self.bursts.pop_front().and_then(|b| b.net()));
            }
            self.bursts.push_back(Burst {
                square,
                first_at: event.at,
                first_lift: lift,
                last_at: event.at,
                last_lift: lift,
            });
        }
    }

    /// Releases, from the oldest on, the bursts that are settled at `now`; a settled burst
    /// behind an open one waits, so that events leave in the order they began.
    pub fn poll(&mut self, now: Millis, out: &mut Vec<Timed<SensorEvent>>) {
        while let Some(front) = self.bursts.front() {
            if self.settles_at(front) > now {
                break;
            }
            out.extend(self.bursts.pop_front().and_then(|b| b.net()));
        }
    }

    /// When [`poll`](Self::poll) will next release something, if anything is held.
    pub fn next_deadline(&self) -> Option<Millis> {
        self.bursts.front().map(|b| self.settles_at(b))
    }

    /// Releases everything held (end of a stream, a snapshot, a reconnect).
    pub fn flush(&mut self, out: &mut Vec<Timed<SensorEvent>>) {
        out.extend(self.bursts.drain(..).filter_map(|b| b.net()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BoardKey;

    fn lift(at: Millis, square: Square) -> Timed<SensorEvent> {
        Timed {
            at,
            event: SensorEvent::Lift(square),
        }
    }

    fn place(at: Millis, square: Square) -> Timed<SensorEvent> {
        Timed {
            at,
            event: SensorEvent::Place(square),
        }
    }

    fn run(d: &mut Debouncer, events: Vec<Timed<SensorEvent>>) -> Vec<Timed<SensorEvent>> {
        let mut out = Vec::new();
        for e in events {
            d.push(e, &mut out);
        }
        d.flush(&mut out);
        out
    }

    #[test]
    fn chatter_is_one_event_stamped_with_the_first_contact() {
        let mut d = Debouncer::default();
        let got = run(
            &mut d,
            vec![
                lift(100, Square::E2),
                place(103, Square::E2),
                lift(105, Square::E2),
            ],
        );
        assert_eq!(got, [lift(100, Square::E2)]);
    }

    #[test]
    fn a_bounce_that_ends_where_it_began_is_nothing() {
        let mut d = Debouncer::default();
        let got = run(&mut d, vec![place(0, Square::E4), lift(2, Square::E4)]);
        assert!(got.is_empty());
    }

    #[test]
    fn a_quick_but_real_lift_and_place_is_kept() {
        let mut d = Debouncer::new(30);
        let got = run(&mut d, vec![lift(0, Square::E2), place(30, Square::E2)]);
        assert_eq!(got, [lift(0, Square::E2), place(30, Square::E2)]);
    }

    #[test]
    fn events_are_released_when_their_window_passes() {
        let mut d = Debouncer::new(30);
        let mut out = Vec::new();
        d.push(lift(0, Square::E2), &mut out);
        assert_eq!(d.next_deadline(), Some(30));
        d.poll(29, &mut out);
        assert!(out.is_empty());
        d.poll(30, &mut out);
        assert_eq!(out, [lift(0, Square::E2)]);
        assert_eq!(d.next_deadline(), None);
    }

    #[test]
    fn order_is_kept_across_squares() {
        let mut d = Debouncer::new(30);
        let mut out = Vec::new();
        // e2 chatters on while d7 settles: e2 began first, so d7 waits for it.
        for e in [
            lift(0, Square::E2),
            lift(5, Square::D7),
            place(20, Square::E2),
            lift(40, Square::E2),
        ] {
            d.push(e, &mut out);
        }
        d.poll(69, &mut out);
        assert!(out.is_empty());
        assert_eq!(d.next_deadline(), Some(70));
        d.poll(70, &mut out);
        assert_eq!(out, [lift(0, Square::E2), lift(5, Square::D7)]);
    }

    #[test]
    fn a_sensor_that_never_stops_chattering_holds_others_only_so_long() {
        let mut d = Debouncer::new(30);
        let mut out = Vec::new();
        d.push(lift(1, Square::D7), &mut out);
        for t in 0..100 {
            let e = if t % 2 == 0 {
                place(10 + t * 10, Square::E2)
            } else {
                lift(10 + t * 10, Square::E2)
            };
            d.push(e, &mut out);
        }
        assert_eq!(out, [lift(1, Square::D7)]);
        assert!(d.pending() <= 4);
    }

    #[test]
    fn other_events_release_everything_first() {
        let mut d = Debouncer::default();
        let key = Timed {
            at: 1,
            event: SensorEvent::Key(BoardKey::Repeat),
        };
        let got = run(&mut d, vec![lift(0, Square::A1), key.clone()]);
        assert_eq!(got, [lift(0, Square::A1), key]);
    }

    #[test]
    fn window_zero_passes_through() {
        let mut d = Debouncer::new(0);
        let events = vec![
            lift(0, Square::E2),
            place(0, Square::E2),
            lift(0, Square::E2),
        ];
        assert_eq!(run(&mut d, events.clone()), events);
    }

    #[test]
    fn a_clock_that_goes_backwards_does_not_panic_or_lose_events() {
        let mut d = Debouncer::default();
        let got = run(
            &mut d,
            vec![
                lift(u64::MAX, Square::E2),
                lift(0, Square::D2),
                place(5, Square::D2),
            ],
        );
        assert_eq!(got, [lift(u64::MAX, Square::E2)]);
    }
}
