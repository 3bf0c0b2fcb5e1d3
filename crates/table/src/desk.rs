//! The correspondence desk: the blind player's one peg board shared by all his games by mail.
//! The board plays the game he has turned to (`focus`, the `KG` key); turning to a game tells
//! him its state, then guides him from whatever the board holds to that game's position, one
//! instruction at a time in the fewest hand actions (`crate::setup_guide`); once the
//! board shows the position, the game's table has the board and he plays on it as at any table.
//!
//! Pure: the desk is fed the peg board's events, the focus requests and each table's
//! [`DeskView`], and answers with [`DeskAction`]s that the actor in `annabella::app::desk`
//! carries out (an input for a table, words for the blind player, an event).

use shakmaty::{Bitboard, Board, Color, Piece, Position, Square};

use crate::event::{About, BoardId, DeskEvent, TableEvent, Urgency};
use crate::setup_guide::{
    Instruction, Peg, PegContents, Progress, SetupGuide, done_phrase, instruction_phrase,
    steps_phrase,
};
use crate::state::{DeskView, Input};
use annabella_boards::{BoardKey, SensorEvent};
use annabella_chess::language::Language;
use annabella_chess::phrases::{color_phrase, fill_count};
use annabella_chess::vocabulary::Vocabulary;
use annabella_chess::vocabulary::fill;

/// What the desk wants done, for the table at this index of the desk's list.
#[derive(Debug, Clone, PartialEq)]
pub enum DeskAction {
    /// An input for the table (the peg board's events while it has the board, its link).
    Input { table: usize, input: Input },
    /// Words for the blind player, on the table's voice; the desk's own are
    /// [`About::Desk`], which its next words cut.
    Say {
        table: usize,
        text: String,
        urgency: Urgency,
        about: About,
    },
    /// An event on the table's feed.
    Event { table: usize, event: TableEvent },
    /// `KJ`: the message held last for its sender is accepted as the opponent's (the mail
    /// desk's `mail accept`); what comes of it is said on this table's voice.
    AcceptHeld { table: usize },
}

/// Where the desk's board is.
#[derive(Debug)]
enum Mode {
    /// No game has the board (none focused, or no board connected).
    Idle,
    /// Guiding the set-up of the focused game's position; `said` counts the instructions.
    SettingUp {
        guide: Box<SetupGuide>,
        current: Instruction,
        said: usize,
    },
    /// The focused table has the board.
    Playing,
}

/// The desk's state.
#[derive(Debug)]
pub struct Desk {
    /// The games' identifiers, in the configuration's order (the `KG` key's order).
    games: Vec<String>,
    focus: Option<usize>,
    /// What the board's holes are believed to hold.
    contents: PegContents,
    mode: Mode,
    /// The peg board's link is up.
    connected: bool,
    /// A snapshot has been seen since the link came up.
    seen: bool,
    /// Messages received per game since he last turned to it.
    unseen: Vec<u32>,
    /// Per game: the game's length when his move waited for `send` at the last view the desk
    /// saw (to guide the board back to the game once it is sent).
    unsent: Vec<Option<usize>>,
    /// Per game: the side whose time being over he has been told of (once).
    time_over_told: Vec<Option<Color>>,
    /// The last key was `KL`: a second `KL` names the games by their identifiers.
    listed: bool,
    /// While he analyses (his move unsent): the piece last lifted, and from where, to name
    /// the move when it is put down.
    lifted: Option<(Square, Piece)>,
    lang: &'static Language,
}

impl Desk {
    /// A desk for these games (their message identifiers), none focused; `lang` for its words.
    pub fn new(games: Vec<String>, lang: &'static Language) -> Desk {
        let n = games.len();
        Desk {
            games,
            focus: None,
            contents: PegContents::empty(),
            mode: Mode::Idle,
            connected: false,
            seen: false,
            unseen: vec![0; n],
            unsent: vec![None; n],
            time_over_told: vec![None; n],
            listed: false,
            lifted: None,
            lang,
        }
    }

    /// A game added while the desk runs (a server's game), last in the `KG` order; its index
    /// is the number of games before it.
    pub fn add_game(&mut self, game: String) -> usize {
        self.games.push(game);
        self.unseen.push(0);
        self.unsent.push(None);
        self.time_over_told.push(None);
        self.games.len() - 1
    }

    /// How many games the desk has.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// The desk has no game.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    pub fn focus(&self) -> Option<usize> {
        self.focus
    }

    /// The table with this identifier's index.
    pub fn index_of(&self, game: &str) -> Option<usize> {
        self.games.iter().position(|g| g == game)
    }

    fn vocab(&self) -> &'static Vocabulary {
        self.lang.vocabulary()
    }

    fn word(&self, key: &str) -> String {
        self.lang.vocabulary().event(key).unwrap_or(key).to_owned()
    }

    fn say(table: usize, text: String, out: &mut Vec<DeskAction>) {
        out.push(DeskAction::Say {
            table,
            text,
            urgency: Urgency::Polite,
            about: About::Desk,
        });
    }

    /// "eine neue Nachricht", "drei neue Nachrichten"; nothing for none.
    fn messages_phrase(&self, n: u32) -> Option<String> {
        match n {
            0 => None,
            1 => Some(self.word("desk_messages_one")),
            n => Some(fill_count(
                &self.word("desk_messages"),
                u64::from(n),
                self.vocab(),
            )),
        }
    }

    fn event(table: usize, what: DeskEvent, out: &mut Vec<DeskAction>) {
        out.push(DeskAction::Event {
            table,
            event: TableEvent::Desk(what),
        });
    }

    /// Turns the board to game `index`: the game before it loses the board, he hears the
    /// game's state, and the set-up begins. Turning to the game he is at says it again.
    pub fn turn_to(
        &mut self,
        index: usize,
        views: &[DeskView],
        now_unix_ms: u64,
    ) -> Vec<DeskAction> {
        let mut out = Vec::new();
        let Some(view) = views.get(index) else {
            return out;
        };
        let mut words = Vec::new();
        if let Some(old) = self.focus.filter(|&old| old != index) {
            // His move there stays tentative: he must know it is not on its way.
            if views[old].unsent() {
                words.push(fill(
                    &self.word("desk_unsent"),
                    &[("game", &views[old].spoken_name)],
                ));
            }
            // What the old game's table believed on its board is the best knowledge of the
            // holes; without it (he was mid-move), the desk's own following of his hands.
            if let (Mode::Playing, Some(board)) = (&self.mode, &views[old].peg_agrees) {
                self.contents = PegContents::from_board(board);
            }
            if let Mode::SettingUp { guide, .. } = &self.mode {
                self.contents = guide.contents().clone();
            }
            if matches!(self.mode, Mode::Playing) {
                out.push(DeskAction::Input {
                    table: old,
                    input: Input::Link {
                        board: BoardId::Peg,
                        up: false,
                        detail: format!("the desk turned to {}", self.games[index]),
                    },
                });
            }
            Self::event(old, DeskEvent::Away, &mut out);
        } else if let Mode::SettingUp { guide, .. } = &self.mode {
            self.contents = guide.contents().clone();
        }
        self.focus = Some(index);
        self.mode = Mode::Idle;
        Self::event(index, DeskEvent::Focus, &mut out);
        words.push(view.spoken_name.clone());
        words.push(view.state_words_at(now_unix_ms));
        let unseen = std::mem::take(&mut self.unseen[index]);
        words.extend(self.messages_phrase(unseen));
        Self::say(index, words.join(". "), &mut out);
        if self.connected && self.seen {
            self.begin_set_up(index, &view.target, &mut out);
        }
        one_utterance(out)
    }

    /// The next game after the focused one (the first when none is focused).
    pub fn next_game(&mut self, views: &[DeskView], now_unix_ms: u64) -> Vec<DeskAction> {
        if self.games.is_empty() {
            return Vec::new();
        }
        let next = self.focus.map_or(0, |f| (f + 1) % self.games.len());
        self.turn_to(next, views, now_unix_ms)
    }

    /// The spoken list: each game by its opponent and his colour, with whose move it is, the
    /// days as of `now_unix_ms` and its messages; `with_ids` names each by its identifier
    /// too (a second `KL`, the assistant's `games`).
    pub fn list(&self, views: &[DeskView], now_unix_ms: u64, with_ids: bool) -> Vec<DeskAction> {
        let mut out = Vec::new();
        let Some(at) = self.focus.or((!views.is_empty()).then_some(0)) else {
            return out;
        };
        Self::say(at, self.entries(views, now_unix_ms, with_ids), &mut out);
        out
    }

    /// One entry per game: "gegen Carol King, Sie haben Schwarz: Weiß am Zug, noch zwölf
    /// Tage, eine neue Nachricht".
    fn entries(&self, views: &[DeskView], now_unix_ms: u64, with_ids: bool) -> String {
        let entries: Vec<String> = views
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let name = match self.games.get(i) {
                    // A game without its opponent's name is named by its identifier already.
                    Some(id) if with_ids && !v.spoken_name.contains(id.as_str()) => {
                        format!("{id}, {}", v.spoken_name)
                    }
                    _ => v.spoken_name.clone(),
                };
                let mut entry = fill(
                    &self.word("desk_list_entry"),
                    &[("game", &name), ("state", &v.turn_words_at(now_unix_ms))],
                );
                if let Some(messages) = self.unseen.get(i).and_then(|n| self.messages_phrase(*n)) {
                    entry.push_str(", ");
                    entry.push_str(&messages);
                }
                entry
            })
            .collect();
        entries.join(". ")
    }

    /// The desk's first words when it starts with no game to return to: every game once, in
    /// one sentence each ("Ihre Fernpartien: gegen Carol King, …").
    pub fn greeting(&self, views: &[DeskView], now_unix_ms: u64) -> Vec<DeskAction> {
        let mut out = Vec::new();
        if views.is_empty() {
            return out;
        }
        let text = fill(
            &self.word("desk_greeting"),
            &[("games", &self.entries(views, now_unix_ms, false))],
        );
        Self::say(0, text, &mut out);
        out
    }

    /// The days of every game as of `now_unix_ms` (the desk looks at least every minute, and
    /// at each step of a table): a side whose time is over is told once, with "KC zum
    /// Reklamieren" when it is his opponent's.
    pub fn check_time(&mut self, views: &[DeskView], now_unix_ms: u64) -> Vec<DeskAction> {
        let mut out = Vec::new();
        for (i, view) in views.iter().enumerate() {
            let Some(told) = self.time_over_told.get_mut(i) else {
                continue;
            };
            let exceeded = view.exceeded(now_unix_ms);
            let news = exceeded.filter(|side| *told != Some(*side));
            // A side back in time (an arbiter's correction, the game over) may be told again
            // should its time run out once more.
            *told = exceeded;
            let Some(side) = news else {
                continue;
            };
            let game = view.spoken_name.as_str();
            let text = if side == view.peg_side {
                fill(&self.word("desk_time_over_own"), &[("game", game)])
            } else {
                let color = color_phrase(side, self.vocab());
                fill(
                    &self.word("desk_time_over_opponent"),
                    &[("game", game), ("color", &color)],
                )
            };
            Self::say(i, text, &mut out);
        }
        out
    }

    /// The messages received per game since he last turned to it, to keep across restarts.
    pub fn unseen(&self) -> &[u32] {
        &self.unseen
    }

    /// Counts kept from the last run: game `index` had `n` messages he had not turned to.
    pub fn restore_unseen(&mut self, index: usize, n: u32) {
        if let Some(count) = self.unseen.get_mut(index) {
            *count = n;
        }
    }

    /// Per game, the side whose time being over he was told of: to keep across restarts, so
    /// that it is told once, not at every start.
    pub fn time_over_told(&self) -> &[Option<Color>] {
        &self.time_over_told
    }

    /// Kept from the last run: game `index`'s `side` was told to be over time.
    pub fn restore_time_over(&mut self, index: usize, side: Color) {
        if let Some(told) = self.time_over_told.get_mut(index) {
            *told = Some(side);
        }
    }

    /// A message brought game `index` a move: counted until he turns to it.
    pub fn message_received(&mut self, index: usize) {
        if self.focus != Some(index)
            && let Some(n) = self.unseen.get_mut(index)
        {
            *n = n.saturating_add(1);
        }
    }

    /// Game `index`'s table stepped: while he sets up its position, a new target (a move by
    /// mail) re-plans the set-up from the holes as they are.
    pub fn view_changed(&mut self, index: usize, views: &[DeskView]) -> Vec<DeskAction> {
        let mut out = Vec::new();
        let Some(view) = views.get(index) else {
            return out;
        };
        let now_unsent = view.unsent().then(|| view.game.ply_count());
        let was_unsent = self
            .unsent
            .get_mut(index)
            .and_then(|u| std::mem::replace(u, now_unsent));
        // Sent: the same game, all of it released (not a move taken back or answered).
        let sent = was_unsent.is_some_and(|n| n == view.released_plies);
        if self.focus != Some(index) {
            return out;
        }
        // His move was sent while his board showed his analysis: the board is guided back
        // to the game's position, as when he turns to a game.
        if sent && matches!(self.mode, Mode::Playing) && view.peg_agrees.is_none() {
            out.push(DeskAction::Input {
                table: index,
                input: Input::Link {
                    board: BoardId::Peg,
                    up: false,
                    detail: "the desk guides the board back to the game".to_owned(),
                },
            });
            self.mode = Mode::Idle;
            if self.connected && self.seen {
                self.begin_set_up(index, &view.target, &mut out);
            }
            return out;
        }
        if let Mode::SettingUp { guide, .. } = &self.mode
            && guide.target() != &views[index].target
        {
            self.contents = guide.contents().clone();
            self.begin_set_up(index, &views[index].target, &mut out);
        }
        out
    }

    /// The peg board's link came up or went down.
    pub fn link(&mut self, up: bool, detail: &str) -> Vec<DeskAction> {
        let mut out = Vec::new();
        self.connected = up;
        if !up {
            self.seen = false;
            if let Some(f) = self.focus
                && matches!(self.mode, Mode::Playing)
            {
                out.push(DeskAction::Input {
                    table: f,
                    input: Input::Link {
                        board: BoardId::Peg,
                        up: false,
                        detail: detail.to_owned(),
                    },
                });
            }
            if let Mode::SettingUp { guide, .. } = &self.mode {
                self.contents = guide.contents().clone();
            }
            self.mode = Mode::Idle;
        }
        out
    }

    /// An event from the peg board.
    pub fn sensor(
        &mut self,
        event: &SensorEvent,
        views: &[DeskView],
        now_unix_ms: u64,
    ) -> Vec<DeskAction> {
        let mut out = Vec::new();
        let vocab = self.vocab();
        let listed = std::mem::take(&mut self.listed);
        match event {
            SensorEvent::Key(BoardKey::NextGame) => return self.next_game(views, now_unix_ms),
            SensorEvent::Key(BoardKey::AcceptHeld) => {
                return vec![DeskAction::AcceptHeld {
                    table: self.focus.unwrap_or(0),
                }];
            }
            SensorEvent::Key(BoardKey::ListGames) => {
                self.listed = true;
                return self.list(views, now_unix_ms, listed);
            }
            SensorEvent::Occupancy(occ) if !self.seen => {
                self.seen = true;
                return self.first_snapshot(*occ, views);
            }
            _ => {}
        }
        let Some(focus) = self.focus else {
            self.contents.observe(event);
            return out;
        };
        match &mut self.mode {
            Mode::Idle => self.contents.observe(event),
            Mode::Playing => {
                let named = self.analysis_move(event, &views[focus]);
                if let Some(text) = named {
                    Self::say(focus, text, &mut out);
                }
                out.push(DeskAction::Input {
                    table: focus,
                    input: Input::Sensor {
                        board: BoardId::Peg,
                        event: event.clone(),
                    },
                });
            }
            Mode::SettingUp {
                guide,
                current,
                said,
            } => match event {
                SensorEvent::Key(BoardKey::Repeat) => {
                    let text = instruction_phrase(current, vocab);
                    Self::say(focus, text, &mut out);
                }
                SensorEvent::Key(BoardKey::SetUp) => {
                    if guide.accept_as_is().is_ok() {
                        self.ready(focus, &mut out);
                    } else {
                        let text = instruction_phrase(current, vocab);
                        Self::say(focus, text, &mut out);
                    }
                }
                // Other keys (the time, the game's moves) are the game's.
                SensorEvent::Key(_) => out.push(DeskAction::Input {
                    table: focus,
                    input: Input::Sensor {
                        board: BoardId::Peg,
                        event: event.clone(),
                    },
                }),
                _ => match guide.observe(event) {
                    Progress::Next(next) | Progress::Replanned(next) => {
                        *said += 1;
                        *current = next;
                        let n = *said;
                        let text = instruction_phrase(&next, vocab);
                        let code = instruction_code(&next);
                        Self::event(
                            focus,
                            DeskEvent::SetUp {
                                step: n,
                                code,
                                words: text.clone(),
                            },
                            &mut out,
                        );
                        Self::say(focus, text, &mut out);
                    }
                    Progress::Done => self.ready(focus, &mut out),
                    Progress::Pending => {}
                },
            },
        }
        out
    }

    /// Follows a hand on the board (the holes' contents) and, while his move waits for `send`
    /// and he analyses, names each piece he moves ("Bauer von David sieben nach David fünf"):
    /// the table neither plays nor corrects these. Putting his unsent move back is the table's
    /// takeback, not named.
    fn analysis_move(&mut self, event: &SensorEvent, view: &DeskView) -> Option<String> {
        let lifted = match *event {
            SensorEvent::Lift(square) => match self.contents.hole(square) {
                Some(Peg::Known(piece)) => Some((square, piece)),
                _ => None,
            },
            _ => self.lifted,
        };
        self.contents.observe(event);
        self.lifted = lifted;
        let SensorEvent::Place(to) = *event else {
            return None;
        };
        let (from, piece) = self.lifted.take()?;
        let plies = view.game.ply_count();
        let before_his_move = plies
            .checked_sub(1)
            .and_then(|last| view.game.position_before(last))
            .map(|p| p.board().occupied());
        if !view.unsent() || from == to || before_his_move == Some(self.contents.occupancy()) {
            return None;
        }
        Some(instruction_phrase(
            &Instruction::Move { piece, from, to },
            self.vocab(),
        ))
    }

    /// The board's first snapshot since it connected: the holes as they are. When they are
    /// exactly the focused game's, the pegs are taken as its pieces (the board was left set
    /// up for it); otherwise nobody knows which pegs they are.
    fn first_snapshot(&mut self, occ: Bitboard, views: &[DeskView]) -> Vec<DeskAction> {
        let mut out = Vec::new();
        // A board it has not watched holds pegs nobody knows; what the desk followed itself
        // (a reconnect with the same holes) stays known.
        if self.contents.occupancy() != occ {
            self.contents = PegContents::from_occupancy(occ);
        }
        if let Some(f) = self.focus {
            self.begin_set_up(f, &views[f].target, &mut out);
        }
        out
    }

    /// Starts guiding the board to `target`; a board that already shows it is the game's.
    fn begin_set_up(&mut self, table: usize, target: &Board, out: &mut Vec<DeskAction>) {
        // A peg nobody knows in a hole where the game has a piece is taken for that piece, as
        // the `KZ` key takes a whole board: a board left set up, or set up by hand while the
        // daemon was off, costs no check of each piece; he feels a wrong one and swaps it.
        for square in self.contents.unknown() & target.occupied() {
            self.contents
                .set(square, target.piece_at(square).map(Peg::Known));
        }
        let (guide, first) = SetupGuide::new(self.contents.clone(), target.clone());
        match first {
            None => {
                self.contents = guide.contents().clone();
                self.attach(table, out);
            }
            Some(first) => {
                let steps = guide.remaining();
                Self::event(table, DeskEvent::Plan { steps }, out);
                let text = format!(
                    "{}. {}",
                    steps_phrase(steps, self.vocab()),
                    instruction_phrase(&first, self.vocab())
                );
                Self::event(
                    table,
                    DeskEvent::SetUp {
                        step: 1,
                        code: instruction_code(&first),
                        words: instruction_phrase(&first, self.vocab()),
                    },
                    out,
                );
                Self::say(table, text, out);
                self.mode = Mode::SettingUp {
                    guide: Box::new(guide),
                    current: first,
                    said: 1,
                };
            }
        }
    }

    fn ready(&mut self, table: usize, out: &mut Vec<DeskAction>) {
        Self::say(table, done_phrase(self.vocab()), out);
        self.attach(table, out);
    }

    /// The focused table takes the board: its link comes up and it is shown the holes.
    fn attach(&mut self, table: usize, out: &mut Vec<DeskAction>) {
        if let Mode::SettingUp { guide, .. } = &self.mode {
            self.contents = guide.contents().clone();
        }
        self.mode = Mode::Playing;
        Self::event(table, DeskEvent::Ready, out);
        out.push(DeskAction::Input {
            table,
            input: Input::Link {
                board: BoardId::Peg,
                up: true,
                detail: "the desk's peg board".to_owned(),
            },
        });
        out.push(DeskAction::Input {
            table,
            input: Input::Sensor {
                board: BoardId::Peg,
                event: SensorEvent::Occupancy(self.contents.occupancy()),
            },
        });
    }
}

/// The desk's words of one answer as one utterance (the game's state and the first set-up
/// instruction), so that the next key cuts all of it and nothing of the game left behind is
/// said after the next game's words.
fn one_utterance(actions: Vec<DeskAction>) -> Vec<DeskAction> {
    let mut out: Vec<DeskAction> = Vec::with_capacity(actions.len());
    let mut first: Option<(usize, usize)> = None;
    for action in actions {
        if let DeskAction::Say {
            table,
            text,
            about: About::Desk,
            ..
        } = &action
        {
            match first {
                Some((at, t)) if t == *table => {
                    if let Some(DeskAction::Say { text: words, .. }) = out.get_mut(at) {
                        words.push_str(". ");
                        words.push_str(text);
                    }
                    continue;
                }
                Some(_) => {}
                None => first = Some((out.len(), *table)),
            }
        }
        out.push(action);
    }
    out
}

/// An instruction for a program (the event line, a test that follows it):
/// `move:Ng1:f3`, `aside:Ng1:h3`, `remove:Ng1` (`remove:?g1` for a peg nobody knows),
/// `place:Ng1`, `check:Ng1`; the piece in FEN letters (upper case White).
pub fn instruction_code(i: &Instruction) -> String {
    let letter = |p: shakmaty::Piece| p.char();
    match *i {
        Instruction::Move { piece, from, to } => format!("move:{}{from}:{to}", letter(piece)),
        Instruction::Aside { piece, from, to } => format!("aside:{}{from}:{to}", letter(piece)),
        Instruction::Remove { piece, square } => {
            format!("remove:{}{square}", piece.map_or('?', letter))
        }
        Instruction::Place { piece, square } => format!("place:{}{square}", letter(piece)),
        Instruction::Check { piece, square } => format!("check:{}{square}", letter(piece)),
    }
}
