//! The table's two boards by themselves: the peg board and, when the sighted side plays on an
//! e-board, that board — each one's feed and detector, its link, whether it differs from the
//! game and which correction its player was last told. Every method takes the game it judges
//! against and returns what happened as a value (the detector's conclusions, a link's news,
//! the next step of guidance); the table acts on it (`boards.rs`). Tested without a table.

use shakmaty::{Chess, Color, Position};

use crate::board_feed::{BoardFeed, min_opt};
use crate::corrections::{Correction, Observed};
use crate::detector::{BoardKind, Conclusion, DetectorSettings, TouchMove};
use crate::event::BoardId;
use crate::reconcile::BoardInput;
use crate::state::line_errors::LineErrors;
use crate::state::{NormalBoard, TableSettings};
use annabella_boards::{ClockReading, Millis, SensorEvent, Timed};
use annabella_chess::game::Game;

/// One board at the table: its feed and what the table knows of its link and its agreement
/// with the game.
pub(super) struct Board {
    pub feed: BoardFeed,
    pub connected: bool,
    /// Connected at least once: only a reconnect is said aloud, not the first connect.
    pub ever_connected: bool,
    /// After a (re)connect: the next snapshot is compared with the game, and said to agree.
    pub awaiting_snapshot: bool,
    /// The last conclusion left the board differing from the game.
    pub differs: bool,
    /// While it differs: the correction the player was last told to make (he is guided one
    /// at a time).
    pub guided: Option<Correction>,
    /// Errors on its line, told a few a second.
    pub line_errors: LineErrors,
}

impl Board {
    fn new(
        kind: BoardKind,
        mover: Color,
        touch: TouchMove,
        debounce_ms: u64,
        game: &Game,
    ) -> Board {
        let mut settings = DetectorSettings::for_kind(kind);
        settings.mover = Some(mover);
        settings.touch_move = touch;
        Board {
            feed: BoardFeed::new(kind, settings, debounce_ms, game),
            connected: false,
            ever_connected: false,
            awaiting_snapshot: true,
            differs: false,
            guided: None,
            line_errors: Default::default(),
        }
    }

    /// Whether the board still owes moves the table entered (the opponent's, to replicate).
    pub fn owes(&self, game: &Game) -> bool {
        self.feed.detector().board_ply() < game.ply_count()
    }

    fn set_differs(&mut self, differs: bool) {
        self.differs = differs;
        if !differs {
            self.guided = None;
        }
    }

    /// The fewest hand actions that make the board show the game's position.
    fn corrections(&self, game: &Game) -> Vec<Correction> {
        self.feed.detector().corrections_to(game.position().board())
    }
}

/// What a link change means for the board's player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LinkNews {
    /// A board seen before is back.
    Reconnected,
    /// A connected board went away.
    Disconnected,
    /// Nothing to say (the first connect, or no change).
    Quiet,
}

/// What a hand action on a differing board calls for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Guidance {
    /// Nothing new to say.
    Nothing,
    /// The board shows the game again (or the position before the move it owes).
    InSync,
    /// The correction said last is done: this one is next.
    Next(Correction),
}

/// Both boards at one table.
pub(super) struct Boards {
    pub peg: Board,
    pub normal: Option<Board>,
}

impl Boards {
    /// The peg board and, when the sighted side plays on an e-board, that board.
    pub fn new(s: &TableSettings, game: &Game) -> Boards {
        let peg = Board::new(
            BoardKind::Occupancy,
            s.peg_side,
            s.touch_move,
            s.debounce_ms,
            game,
        );
        let normal = (s.normal == NormalBoard::Identity).then(|| {
            // FIDE D.2.5: the sighted player follows the ordinary touch-move rules, which an
            // arbiter judges; the e-board only reports them.
            Board::new(BoardKind::Identity, !s.peg_side, TouchMove::Off, 0, game)
        });
        Boards { peg, normal }
    }

    /// Both boards were in play before a restart: their first snapshot may show a move made
    /// (or a promotion left pending) while the daemon was down.
    pub fn restored(&mut self) {
        self.peg.ever_connected = true;
        if let Some(normal) = &mut self.normal {
            normal.ever_connected = true;
        }
    }

    pub fn get(&self, board: BoardId) -> Option<&Board> {
        match board {
            BoardId::Peg => Some(&self.peg),
            BoardId::Normal => self.normal.as_ref(),
        }
    }

    pub fn get_mut(&mut self, board: BoardId) -> Option<&mut Board> {
        match board {
            BoardId::Peg => Some(&mut self.peg),
            BoardId::Normal => self.normal.as_mut(),
        }
    }

    /// The earliest table time a board's feed is due: a debounce window, a detector hold.
    pub fn next_deadline(&self) -> Option<Millis> {
        min_opt(
            self.peg.feed.next_deadline(),
            self.normal.as_ref().and_then(|b| b.feed.next_deadline()),
        )
    }

    /// No board differs from the game.
    pub fn agree(&self) -> bool {
        !self.peg.differs && self.normal.as_ref().is_none_or(|b| !b.differs)
    }

    /// A sensor event for `board`'s feed; `false` when the table has no such board.
    pub fn push(&mut self, board: BoardId, event: Timed<SensorEvent>) -> bool {
        match self.get_mut(board) {
            Some(b) => {
                b.feed.push(event);
                true
            }
            None => false,
        }
    }

    /// The time to stamp an event `board`'s reader read at `read_at`, reaching the table at
    /// `now` (see [`BoardFeed::stamp`]); `now` for a board the table does not have.
    pub fn stamp(&self, board: BoardId, read_at: Millis, now: Millis) -> Millis {
        self.get(board).map_or(now, |b| b.feed.stamp(read_at, now))
    }

    /// `board`'s debounce window looks at the time: what has settled is released.
    pub fn poll_debouncer(&mut self, board: BoardId, now_ms: Millis) {
        if let Some(b) = self.get_mut(board) {
            b.feed.poll_debouncer(now_ms);
        }
    }

    /// The events `board`'s feed has released, without looking at the time.
    pub fn released(&mut self, board: BoardId) -> Vec<Timed<SensorEvent>> {
        self.get_mut(board)
            .map(|b| b.feed.take_released())
            .unwrap_or_default()
    }

    /// What `board`'s detector concludes from one released event.
    pub fn detect(
        &mut self,
        board: BoardId,
        game: &Game,
        event: &Timed<SensorEvent>,
    ) -> Vec<Conclusion> {
        let mut found = Vec::new();
        if let Some(b) = self.get_mut(board) {
            b.feed.detector_mut().handle(game, event, &mut found);
        }
        found
    }

    /// What `board`'s detector concludes looking at the game again (it notices what the table
    /// changed) and at the time (a hold that ran out).
    pub fn poll(&mut self, board: BoardId, game: &Game, now_ms: Millis) -> Vec<Conclusion> {
        let mut found = Vec::new();
        if let Some(b) = self.get_mut(board) {
            b.feed.detector_mut().poll(game, now_ms, &mut found);
        }
        found
    }

    /// A move the game refused: the detector compares the board with the game again.
    pub fn resync(&mut self, board: BoardId, game: &Game) -> Vec<Conclusion> {
        let mut found = Vec::new();
        if let Some(b) = self.get_mut(board) {
            b.feed.detector_mut().resync(game, &mut found);
        }
        found
    }

    /// A promotion piece chosen for the peg board's pawn, as if its key had been pressed.
    pub fn choose_promotion(&mut self, game: &Game, role: shakmaty::Role) -> Vec<Conclusion> {
        let mut found = Vec::new();
        self.peg
            .feed
            .detector_mut()
            .choose_promotion(game, role, &mut found);
        found
    }

    /// A snapshot passed through `board`'s detector: whether it is the first since a
    /// (re)connect and the board agrees with the game (then said once).
    pub fn snapshot_agrees(&mut self, board: BoardId) -> bool {
        self.get_mut(board)
            .is_some_and(|b| std::mem::take(&mut b.awaiting_snapshot) && !b.differs)
    }

    /// `board`'s link came up or went down.
    pub fn link(&mut self, board: BoardId, up: bool) -> Option<LinkNews> {
        let b = self.get_mut(board)?;
        let was = b.connected;
        let again = b.ever_connected;
        b.connected = up;
        b.ever_connected |= up;
        if up {
            // Only a board seen before can have had a move made on it while away; at the
            // first connect its snapshot is compared with the game, nothing more.
            if again {
                b.feed.detector_mut().reconnected();
            }
            b.awaiting_snapshot = true;
            b.feed.discard_pending();
        }
        Some(if up && !was && again {
            LinkNews::Reconnected
        } else if !up && was {
            LinkNews::Disconnected
        } else {
            LinkNews::Quiet
        })
    }

    pub fn set_differs(&mut self, board: BoardId, differs: bool) {
        if let Some(b) = self.get_mut(board) {
            b.set_differs(differs);
        }
    }

    /// The board showed a move just played: whether it had differed (then it no longer does).
    pub fn shows_move(&mut self, board: BoardId) -> bool {
        let Some(b) = self.get_mut(board) else {
            return false;
        };
        let differed = std::mem::take(&mut b.differs);
        if differed {
            b.guided = None;
        }
        differed
    }

    /// The board that differed shows the game again: whether it had differed.
    pub fn back_in_sync(&mut self, board: BoardId) -> bool {
        match self.get_mut(board) {
            Some(b) if b.differs => {
                b.set_differs(false);
                true
            }
            _ => false,
        }
    }

    /// The board differs from the game: its player is guided by the first of `fixes`, which
    /// is returned.
    pub fn guide(&mut self, board: BoardId, fixes: &[Correction]) -> Option<Correction> {
        let first = fixes.first().copied();
        if let Some(b) = self.get_mut(board) {
            b.differs = true;
            b.guided = first;
        }
        first
    }

    /// The fewest hand actions that make `board` show the game's position.
    pub fn corrections(&self, board: BoardId, game: &Game) -> Vec<Correction> {
        self.get(board)
            .map(|b| b.corrections(game))
            .unwrap_or_default()
    }

    /// After a hand action (`event`) on a board that differs: whether the board shows the
    /// game again, or the correction said last is done and another follows.
    pub fn follow(&mut self, board: BoardId, event: &SensorEvent, game: &Game) -> Guidance {
        let Some(b) = self.get_mut(board) else {
            return Guidance::Nothing;
        };
        if !b.differs {
            return Guidance::Nothing;
        }
        // An occupancy board whose holes are the game's is right, whatever the hand guessed
        // on the way: its pegs are taken as the game's pieces (a guess that a bishop stands
        // where the game has the queen would otherwise ask for the queen for ever).
        if b.feed.detector_mut().take_as_game(game) {
            return Guidance::InSync;
        }
        // Mid-gesture a lift is the first half of a move; only a removal ends with one.
        let acts = match event {
            SensorEvent::Lift(sq) => {
                matches!(b.guided, Some(Correction::Remove { square, .. }) if square == *sq)
            }
            SensorEvent::SquareChanged {
                piece: None,
                square,
            } => {
                matches!(b.guided, Some(Correction::Remove { square: s, .. }) if s == *square)
            }
            SensorEvent::Key(_) | SensorEvent::Identity(_) | SensorEvent::Clock(_) => false,
            _ => true,
        };
        if !acts {
            return Guidance::Nothing;
        }
        let owed_ply = b.feed.detector().board_ply();
        let observed = b.feed.detector().observed();
        let fixes = b.corrections(game);
        let shows_owed_position = owed_ply < game.ply_count()
            && game
                .position_before(owed_ply)
                .is_some_and(|p| observed.matches(p.board()));
        if fixes.is_empty() || shows_owed_position {
            return Guidance::InSync;
        }
        let first = fixes.first().copied();
        if b.guided == first {
            return Guidance::Nothing;
        }
        b.guided = first;
        first.map_or(Guidance::Nothing, Guidance::Next)
    }

    /// The peg board's feed starts afresh from the game's position: its detector believes the
    /// game's pieces stand in the holes (their occupancy is the game's), owes nothing, and
    /// compares the board's next snapshot with the game.
    pub fn adopt_game_on_peg(&mut self, game: &Game, debounce_ms: Millis) {
        let d = self.peg.feed.detector();
        let (kind, settings) = (d.kind(), *d.settings());
        self.peg.feed = BoardFeed::new(kind, settings, debounce_ms, game);
        self.peg.differs = false;
        self.peg.guided = None;
    }

    /// Every physical board shows `position` as far as it can see (the peg board its holes,
    /// the e-board its pieces).
    pub fn all_show(&self, position: &Chess) -> bool {
        self.peg_shows(position)
            && self
                .normal
                .as_ref()
                .is_none_or(|b| b.feed.detector().observed().matches(position.board()))
    }

    /// The peg board's holes are those of `position` (its player has not touched it since).
    pub fn peg_shows(&self, position: &Chess) -> bool {
        self.peg.feed.detector().observed().occupied() == position.board().occupied()
    }

    /// The e-board has a chess clock: its player's moves are completed by his press.
    pub fn normal_has_clock(&self) -> bool {
        self.normal
            .as_ref()
            .is_some_and(|b| b.feed.detector().has_clock())
    }

    /// What the e-board's clock showed last.
    pub fn normal_clock(&self) -> Option<ClockReading> {
        self.normal.as_ref().and_then(|b| b.feed.detector().clock())
    }

    /// What `board` shows, for the reconciliation: the peg board's occupancy with the pieces
    /// its detector believes in; the e-board's pieces; a virtual board shows the game.
    pub fn reconcile_input(&self, board: BoardId, game: &Game) -> BoardInput {
        match self.get(board) {
            Some(b) => {
                let d = b.feed.detector();
                BoardInput {
                    observed: d.observed(),
                    believed: (d.kind() == BoardKind::Occupancy).then(|| d.believed().clone()),
                }
            }
            None => BoardInput {
                observed: Observed::Pieces(game.position().board().clone()),
                believed: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::TimeControl;
    use crate::name::TableName;
    use annabella_chess::language::Language;
    use shakmaty::{Bitboard, Square};

    fn settings(normal: NormalBoard) -> TableSettings {
        let tc: TimeControl = "5+3".parse().unwrap();
        let mut s = TableSettings::new(
            TableName::new("t1").unwrap(),
            Color::White,
            Language::english(),
            tc,
        );
        s.normal = normal;
        s
    }

    /// `event` through the peg board's feed and detector.
    fn feed(boards: &mut Boards, game: &Game, event: SensorEvent) -> Vec<Conclusion> {
        assert!(boards.push(BoardId::Peg, Timed { at: 0, event }));
        let mut found = Vec::new();
        for e in boards.released(BoardId::Peg) {
            found.extend(boards.detect(BoardId::Peg, game, &e));
        }
        found
    }

    #[test]
    fn only_a_reconnect_and_a_loss_are_news_and_a_virtual_board_has_no_link() {
        let game = Game::new();
        let mut boards = Boards::new(&settings(NormalBoard::Identity), &game);
        assert_eq!(boards.link(BoardId::Normal, true), Some(LinkNews::Quiet));
        assert_eq!(boards.link(BoardId::Normal, true), Some(LinkNews::Quiet));
        assert_eq!(
            boards.link(BoardId::Normal, false),
            Some(LinkNews::Disconnected)
        );
        assert_eq!(boards.link(BoardId::Normal, false), Some(LinkNews::Quiet));
        assert_eq!(
            boards.link(BoardId::Normal, true),
            Some(LinkNews::Reconnected)
        );
        let mut alone = Boards::new(&settings(NormalBoard::Virtual), &game);
        assert_eq!(alone.link(BoardId::Normal, true), None);
        assert!(!alone.push(
            BoardId::Normal,
            Timed {
                at: 0,
                event: SensorEvent::Place(Square::E4)
            }
        ));
    }

    #[test]
    fn a_board_missing_a_peg_is_guided_until_it_shows_the_game_again() {
        let game = Game::new();
        let mut boards = Boards::new(&settings(NormalBoard::Virtual), &game);
        let start = game.position().board().occupied();
        feed(
            &mut boards,
            &game,
            SensorEvent::Occupancy(start ^ Bitboard::from(Square::E2)),
        );
        let fixes = boards.corrections(BoardId::Peg, &game);
        assert_eq!(fixes.len(), 1);
        let first = boards.guide(BoardId::Peg, &fixes);
        assert!(matches!(
            first,
            Some(Correction::Place {
                square: Square::E2,
                ..
            })
        ));
        assert!(!boards.agree());
        // A key is no hand action on the board.
        assert_eq!(
            boards.follow(
                BoardId::Peg,
                &SensorEvent::Key(annabella_boards::BoardKey::Time),
                &game
            ),
            Guidance::Nothing
        );
        let back = SensorEvent::Place(Square::E2);
        feed(&mut boards, &game, back.clone());
        assert_eq!(boards.follow(BoardId::Peg, &back, &game), Guidance::InSync);
        assert!(boards.back_in_sync(BoardId::Peg));
        assert!(!boards.back_in_sync(BoardId::Peg), "said once");
        assert!(boards.agree());
        assert!(boards.corrections(BoardId::Peg, &game).is_empty());
    }

    #[test]
    fn the_first_snapshot_after_a_connect_is_said_to_agree_once() {
        let game = Game::new();
        let mut boards = Boards::new(&settings(NormalBoard::Virtual), &game);
        boards.link(BoardId::Peg, true);
        let start = game.position().board().occupied();
        feed(&mut boards, &game, SensorEvent::Occupancy(start));
        assert!(boards.snapshot_agrees(BoardId::Peg));
        assert!(!boards.snapshot_agrees(BoardId::Peg));
        assert!(boards.peg_shows(game.position()));
        assert_eq!(boards.next_deadline(), None);
        assert_eq!(
            boards.reconcile_input(BoardId::Normal, &game).observed,
            Observed::Pieces(game.position().board().clone())
        );
    }
}
