//! A simulated board behind a pseudo-terminal or a TCP port, so anyone can try annabella without
//! hardware: the operator types moves (any notation), keys of the peg board's strip or raw
//! protocol lines, and the board sends what a real one would — lifts and places for the peg
//! board, field updates for a DGT board, a status after each lift and placement for a
//! Millennium board, a line of RFID codes several times a second for a Certabo board — and
//! answers the host's snapshot and identity requests.

use std::io::{BufRead, Read, Write};
#[cfg(unix)]
use std::os::fd::{AsFd, OwnedFd};
#[cfg(unix)]
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use shakmaty::{Board, Position};

use crate::boards::{
    BoardKey, Millis, Protocol, SensorEvent, certabo, dgt, gestures, millennium, peg,
};
use crate::chess::game::Game;
use crate::chess::language::Language;
use crate::chess::notation;
use crate::io::clock;

/// An operator's line the simulated board cannot perform, and why: said back to whoever types
/// at `simulate-board` (or a test's script), which goes on with the next line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OperatorError(pub String);

impl From<String> for OperatorError {
    fn from(why: String) -> OperatorError {
        OperatorError(why)
    }
}

impl From<&str> for OperatorError {
    fn from(why: &str) -> OperatorError {
        OperatorError(why.to_owned())
    }
}

/// The state of a simulated board: the position on it and how the next move is performed.
#[derive(Debug)]
pub struct SimulatedBoard {
    protocol: Protocol,
    game: Game,
    lang: Language,
    /// Cycles through the physical orders people use (capture lifted first or second, …).
    variant: usize,
    /// Host bytes of an unfinished peg command line.
    pending_line: Vec<u8>,
    dgt_data: DgtData,
    /// The Millennium board's command framing and its E2ROM (scan time, report mode, …).
    millennium: millennium::HostReader,
    e2rom: [u8; 256],
    /// The board as the hand has left it (Millennium, Certabo), which is what a status shows;
    /// the game is ahead of it while a move's actions are still being paced out.
    physical: Board,
    /// The Certabo board's pieces with their chips.
    chips: certabo::ChipBoard,
    /// The peg board's holes after `raw L…`/`raw P…` lines (a hand setting up a position, not
    /// playing the game's moves): what its snapshot then shows. `None`: the game's position.
    holes_by_hand: Option<shakmaty::Bitboard>,
}

/// Where the simulated DGT board is in a host command that carries data bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DgtData {
    None,
    Size,
    Skip(u8),
}

/// Time between the events of one move: a hand needs longer than this to lift a peg and put it
/// in another hole, and it is longer than any debounce window, so nothing is taken for chatter.
pub const HAND_PACE: std::time::Duration = std::time::Duration::from_millis(60);

/// How often the simulated Certabo board sends its line. The maker's own board simulator sends
/// one a second; a real board scans faster, and a hand is slower than this.
pub const CERTABO_LINE_PERIOD: std::time::Duration = std::time::Duration::from_millis(100);

/// How long a hand rests a piece on a square on its way (`e7e5 via e6`): longer than the move
/// detector's 300 ms hold, so that an e-board's rest is taken for the move, as a real hand's
/// would be, and then amended when the piece moves on.
pub const REST: std::time::Duration = std::time::Duration::from_millis(1_000);

/// What the operator may type besides a move.
pub const OPERATOR_HELP: &str = "type a move in any notation (e4, 5254, Sf3, e7e8q), \
    `MOVE via SQUARE…` for a piece that rests a second on each square on its way (e7e5 via e6), \
    `pause MS` for a hand that thinks, \
    `raw LINE` to send a raw peg or Certabo line (`raw 8e 03 00 ...` hex bytes for DGT, \
    `raw v0103` a Millennium message, its check digits and parity added), \
    `key K` to press a key of the peg board's strip (Q R B N promotion piece, A again, T time, \
    O own time, H history, D draw, C claim, X resign, S confirm sheet, Z board set up, \
    G next correspondence game, L list the games, M the opponent's comment, J accept a held message), \
    `fen FEN` to set up a position, `start` for the start position";

impl SimulatedBoard {
    pub fn new(protocol: Protocol, game: Game, lang: Language) -> SimulatedBoard {
        let physical = game.position().board().clone();
        let mut e2rom = [0u8; 256];
        e2rom[usize::from(millennium::REG_SCAN_TIME)] = 20;
        SimulatedBoard {
            protocol,
            chips: certabo::ChipBoard::new(&physical),
            holes_by_hand: None,
            physical,
            game,
            lang,
            variant: 0,
            pending_line: Vec::new(),
            dgt_data: DgtData::None,
            millennium: millennium::HostReader::new(),
            e2rom,
        }
    }

    /// How often the board sends its state on its own, whatever happens: a Certabo board sends
    /// its line continuously. `None` for boards that send only changes.
    pub fn repeat_period(&self) -> Option<std::time::Duration> {
        (self.protocol == Protocol::Certabo).then_some(CERTABO_LINE_PERIOD)
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    fn board(&self) -> &Board {
        self.game.position().board()
    }

    /// The bytes a real board sends when asked for a full snapshot.
    pub fn snapshot(&self) -> Vec<u8> {
        match self.protocol {
            Protocol::Peg => {
                let holes = self
                    .holes_by_hand
                    .unwrap_or_else(|| self.board().occupied());
                format!("{}\n", peg::occupancy_line(holes)).into_bytes()
            }
            Protocol::Dgt => dgt::encode_board_dump(self.board()),
            Protocol::Millennium => millennium::encode_status(&self.physical),
            Protocol::Certabo => certabo::encode_line(&self.chips.codes()),
        }
    }

    /// Answers bytes from the host (snapshot and identity requests); returns the reply bytes.
    pub fn answer(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut reply = Vec::new();
        match self.protocol {
            Protocol::Peg => {
                for &b in bytes {
                    if b == b'\n' {
                        let line = std::mem::take(&mut self.pending_line);
                        match peg::parse_host_request(&line) {
                            Some(peg::HostRequest::Snapshot) => reply.extend(self.snapshot()),
                            Some(peg::HostRequest::Identify) => {
                                reply.extend(b"Vannabella simulated peg board 1.0\n")
                            }
                            None => {}
                        }
                    } else if self.pending_line.len() < peg::MAX_LINE_BYTES {
                        self.pending_line.push(b);
                    }
                }
            }
            Protocol::Dgt => {
                // Clock and LED commands are followed by a size byte and that many data bytes,
                // which must not be mistaken for commands.
                for &b in bytes {
                    match self.dgt_data {
                        DgtData::Size => {
                            self.dgt_data = DgtData::Skip(b);
                            continue;
                        }
                        DgtData::Skip(n) if n > 0 => {
                            self.dgt_data = DgtData::Skip(n - 1);
                            continue;
                        }
                        DgtData::Skip(_) => self.dgt_data = DgtData::None,
                        DgtData::None => {}
                    }
                    match dgt::parse_host_command(b) {
                        Some(dgt::HostCommand::ClockMessage | dgt::HostCommand::SetLeds) => {
                            self.dgt_data = DgtData::Size
                        }
                        Some(dgt::HostCommand::SendBoard) => reply.extend(self.snapshot()),
                        Some(dgt::HostCommand::SendVersion) => {
                            reply.extend(dgt::encode_version(1, 0))
                        }
                        Some(dgt::HostCommand::ReturnSerialNr) => {
                            reply.extend(dgt::encode_serial_number(b"00001"))
                        }
                        _ => {}
                    }
                }
            }
            Protocol::Millennium => {
                for command in self.millennium.feed(bytes) {
                    if let millennium::HostCommand::Write { address, value } = command {
                        self.e2rom[usize::from(address)] = value;
                    }
                    let value = match command {
                        millennium::HostCommand::Read { address } => {
                            self.e2rom[usize::from(address)]
                        }
                        _ => 0,
                    };
                    reply.extend(
                        millennium::encode_reply(&command, &self.physical, value)
                            .unwrap_or_default(),
                    );
                }
            }
            // The host sends only LED commands (8 bytes); the board answers nothing.
            Protocol::Certabo => {}
        }
        reply
    }

    /// `key K`: the `K` line of one key of the peg board's strip (any single character: a key
    /// this version does not know is sent too, as a board with more keys would).
    fn key_press(&self, key: &str) -> Result<Vec<u8>, OperatorError> {
        if self.protocol != Protocol::Peg {
            return Err("only the peg board has a key strip".to_owned().into());
        }
        let mut chars = key.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return Err(format!("{key:?}: one key, e.g. `key A`").into());
        };
        let event = SensorEvent::Key(BoardKey::from_letter(c));
        let line = peg::encode(&event).ok_or_else(|| format!("{c:?} cannot be sent as a key"))?;
        Ok(format!("{line}\n").into_bytes())
    }

    /// Handles one operator line; returns what the board sends, one chunk per physical event
    /// (the caller paces them the way a hand does).
    pub fn operator_line(&mut self, line: &str) -> Result<Vec<Vec<u8>>, OperatorError> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(raw) = line.strip_prefix("raw ") {
            return match self.protocol {
                Protocol::Peg => {
                    // A peg lifted or put down by hand changes what the next snapshot shows.
                    let held = raw.trim();
                    let square = held
                        .get(1..)
                        .and_then(|sq| sq.parse::<shakmaty::Square>().ok());
                    if let Some(square) = square {
                        let mut holes = self
                            .holes_by_hand
                            .unwrap_or_else(|| self.board().occupied());
                        match held.as_bytes()[0] {
                            b'L' => holes.discard(square),
                            b'P' => holes.add(square),
                            _ => {}
                        }
                        self.holes_by_hand = Some(holes);
                    }
                    Ok(vec![format!("{raw}\n").into_bytes()])
                }
                Protocol::Dgt => raw
                    .split_whitespace()
                    .map(|h| {
                        u8::from_str_radix(h, 16)
                            .map_err(|_| OperatorError(format!("{h:?} is not a hex byte")))
                    })
                    .collect::<Result<Vec<u8>, OperatorError>>()
                    .map(|bytes| vec![bytes]),
                Protocol::Millennium => Ok(vec![millennium::frame(raw.as_bytes())]),
                Protocol::Certabo => Ok(vec![format!("{raw}\r\n").into_bytes()]),
            };
        }
        if let Some(key) = line.strip_prefix("key ") {
            return self.key_press(key.trim()).map(|bytes| vec![bytes]);
        }
        if line == "start" || line.starts_with("fen ") {
            let game = match line.strip_prefix("fen ") {
                Some(fen) => Game::from_fen(fen, false).map_err(|e| e.to_string())?,
                None => Game::new(),
            };
            self.physical = game.position().board().clone();
            self.chips = certabo::ChipBoard::new(&self.physical);
            self.game = game;
            self.holes_by_hand = None;
            // Setting up pieces by hand ends with a board the host can read in one snapshot.
            return Ok(vec![self.snapshot()]);
        }
        let pos = self.game.position().clone();
        let mode = self.game.castling_mode();
        let m =
            notation::parse_move(&pos, mode, line, None, &self.lang).map_err(|e| e.to_string())?;
        let events = match self.protocol {
            Protocol::Peg => gestures::peg_events(&pos, m, self.variant),
            Protocol::Dgt => gestures::identity_events(&pos, m, self.variant),
            Protocol::Millennium | Protocol::Certabo => {
                gestures::hand_events(&pos, m, self.variant)
            }
        };
        self.variant = self.variant.wrapping_add(1);
        self.game.play(m).map_err(|e| e.to_string())?;
        let chunks = events
            .iter()
            .map(|e| self.encode(e))
            .filter(|b| !b.is_empty())
            .collect();
        self.chips.put_aside();
        Ok(chunks)
    }

    /// One operator line's chunks, each with the pause before it: [`HAND_PACE`] between a
    /// move's events, [`REST`] after a piece is set down on a square on its way (`MOVE via
    /// SQUARE…`).
    pub fn operator_line_paced(
        &mut self,
        line: &str,
    ) -> Result<Vec<(std::time::Duration, Vec<u8>)>, OperatorError> {
        if let Some((mv, via)) = line.trim().split_once(" via ") {
            return self.move_via(mv.trim(), via);
        }
        if let Some(ms) = line.trim().strip_prefix("pause ") {
            let ms: u64 = ms
                .trim()
                .parse()
                .ok()
                .filter(|ms| *ms <= 60_000)
                .ok_or_else(|| format!("pause {ms}: milliseconds, 0 to 60000"))?;
            return Ok(vec![(std::time::Duration::from_millis(ms), Vec::new())]);
        }
        Ok(self
            .operator_line(line)?
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                (
                    if i == 0 {
                        std::time::Duration::ZERO
                    } else {
                        HAND_PACE
                    },
                    b,
                )
            })
            .collect())
    }

    /// A move whose piece rests on each of `via`'s squares on its way: lifted, set down and left
    /// for [`REST`], lifted again, and the move finished as the hand finishes it.
    fn move_via(
        &mut self,
        mv: &str,
        via: &str,
    ) -> Result<Vec<(std::time::Duration, Vec<u8>)>, OperatorError> {
        use shakmaty::Square;
        let pos = self.game.position().clone();
        let mode = self.game.castling_mode();
        let m =
            notation::parse_move(&pos, mode, mv, None, &self.lang).map_err(|e| e.to_string())?;
        if m.is_castle() {
            return Err(
                "castling moves two pieces; a rest on the way is for one piece"
                    .to_owned()
                    .into(),
            );
        }
        let (from, to) = (
            m.from().ok_or("a move without a square to come from")?,
            m.to(),
        );
        let piece = pos
            .board()
            .piece_at(from)
            .ok_or_else(|| format!("no piece on {from}"))?;
        let mut rests = Vec::new();
        for word in via.split([' ', ',']).filter(|w| !w.is_empty()) {
            let sq: Square = word
                .parse()
                .map_err(|_| format!("{word:?} is no square (via e6, or via d1 e1)"))?;
            if pos.board().piece_at(sq).is_some() || sq == to {
                return Err(format!("{sq} is not an empty square on the way to {to}").into());
            }
            rests.push(sq);
        }
        if rests.is_empty() {
            return Err("via needs the squares the piece rests on (e7e5 via e6)"
                .to_owned()
                .into());
        }
        let events = match self.protocol {
            Protocol::Peg => gestures::peg_events(&pos, m, self.variant),
            Protocol::Dgt => gestures::identity_events(&pos, m, self.variant),
            Protocol::Millennium | Protocol::Certabo => {
                gestures::hand_events(&pos, m, self.variant)
            }
        };
        let peg = self.protocol == Protocol::Peg;
        let lift = |sq| {
            if peg {
                SensorEvent::Lift(sq)
            } else {
                SensorEvent::SquareChanged {
                    square: sq,
                    piece: None,
                }
            }
        };
        let set = |sq| {
            if peg {
                SensorEvent::Place(sq)
            } else {
                SensorEvent::SquareChanged {
                    square: sq,
                    piece: Some(piece),
                }
            }
        };
        let mut paced = vec![(std::time::Duration::ZERO, lift(from))];
        for &sq in &rests {
            paced.push((HAND_PACE, set(sq)));
            paced.push((REST, lift(sq)));
        }
        // The rest of the move as the hand makes it, without the first lift of its piece.
        let from_lift = lift(from);
        paced.extend(
            events
                .into_iter()
                .filter(|e| *e != from_lift)
                .map(|e| (HAND_PACE, e)),
        );
        self.variant = self.variant.wrapping_add(1);
        self.game.play(m).map_err(|e| e.to_string())?;
        let chunks = paced
            .into_iter()
            .map(|(pause, e)| (pause, self.encode(&e)))
            .filter(|(_, b)| !b.is_empty())
            .collect();
        self.chips.put_aside();
        Ok(chunks)
    }

    /// What the board sends for one action of the hand (a snapshot board's whole state after
    /// it); `&mut` because such a board's state follows the hand.
    fn encode(&mut self, event: &SensorEvent) -> Vec<u8> {
        // Holes set by hand follow the game's moves made after them too.
        if let Some(holes) = &mut self.holes_by_hand {
            match *event {
                SensorEvent::Lift(square) => holes.discard(square),
                SensorEvent::Place(square) => holes.add(square),
                _ => {}
            }
        }
        if let SensorEvent::SquareChanged { square, piece } = *event
            && matches!(self.protocol, Protocol::Millennium | Protocol::Certabo)
        {
            match piece {
                Some(p) => self.physical.set_piece_at(square, p),
                None => {
                    self.physical.discard_piece_at(square);
                }
            }
            self.chips.apply(square, piece);
        }
        match (self.protocol, event) {
            (Protocol::Dgt, SensorEvent::SquareChanged { square, piece }) => {
                dgt::encode_field_update(*square, *piece)
            }
            (Protocol::Millennium, SensorEvent::SquareChanged { .. }) => {
                // With automatic reports off the host asks; any other mode reports the change.
                let mode = self.e2rom[usize::from(millennium::REG_AUTO_REPORTS)] & 0b111;
                if mode == millennium::AUTO_OFF {
                    Vec::new()
                } else {
                    millennium::encode_status(&self.physical)
                }
            }
            (Protocol::Certabo, SensorEvent::SquareChanged { .. }) => {
                certabo::encode_line(&self.chips.codes())
            }
            (Protocol::Peg, e) => peg::encode(e)
                .map(|l| format!("{l}\n").into_bytes())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}

#[cfg(unix)]
/// A pseudo-terminal pair in raw mode (Unix only; on Windows the daemon's simulated board is
/// on a local TCP port, `io::sim_socket`) (no echo, no line editing: a board speaks bytes).
pub struct Pty {
    pub master: OwnedFd,
    /// Kept open so the master never sees a hang-up when a client closes and reopens the device.
    pub slave: OwnedFd,
    pub path: PathBuf,
}

#[cfg(unix)]
/// Opens a pseudo-terminal that behaves like a serial device.
pub fn open_pty() -> anyhow::Result<Pty> {
    use nix::sys::termios;
    let pair = nix::pty::openpty(None, None).context("opening a pseudo-terminal")?;
    let mut attrs =
        termios::tcgetattr(pair.slave.as_fd()).context("reading terminal attributes")?;
    termios::cfmakeraw(&mut attrs);
    termios::tcsetattr(pair.slave.as_fd(), termios::SetArg::TCSANOW, &attrs)
        .context("setting raw mode")?;
    let path = nix::unistd::ttyname(pair.slave.as_fd()).context("naming the pseudo-terminal")?;
    Ok(Pty {
        master: pair.master,
        slave: pair.slave,
        path,
    })
}

#[cfg(unix)]
/// Points `link` at `target`, replacing an old link (a re-plugged board keeps its name).
pub fn replace_symlink(target: &Path, link: &Path) -> anyhow::Result<()> {
    let tmp = link.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)
        .with_context(|| format!("creating {}", tmp.display()))?;
    std::fs::rename(&tmp, link).with_context(|| format!("creating {}", link.display()))?;
    Ok(())
}

/// Serves the simulated board: replies to the host on `device` and sends what the operator
/// types on standard input. Returns when standard input ends and `exit_at_eof` is set;
/// otherwise the board stays plugged in until the process is stopped.
pub fn serve<D>(board: SimulatedBoard, device: D, exit_at_eof: bool) -> anyhow::Result<()>
where
    D: Read + Write + Send + 'static + TryCloneDevice,
{
    let stdin = std::io::stdin();
    let lines = stdin
        .lock()
        .lines()
        .map(|l| l.context("reading standard input"));
    serve_lines(board, device, lines, exit_at_eof)
}

#[cfg(unix)]
/// A simulated peg or DGT board on a fresh pseudo-terminal, driven by operator lines sent on
/// the returned channel, in a thread of its own: the daemon's `--peg sim` and its demo. The
/// path is the device to open; the board stays plugged in while the process runs.
pub fn spawn_on_pty(
    board: SimulatedBoard,
) -> anyhow::Result<(PathBuf, std::sync::mpsc::Sender<String>)> {
    let pty = open_pty()?;
    let path = pty.path.clone();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let device = std::fs::File::from(pty.master);
    let slave = pty.slave;
    std::thread::Builder::new()
        .name("simulated-board".into())
        .spawn(move || {
            // Holding the slave keeps the device from hanging up between host connections.
            let _slave = slave;
            if let Err(e) = serve_lines(board, device, rx.into_iter().map(Ok), false) {
                tracing::error!(error = %e, "simulated board stopped");
            }
        })
        .context("starting the simulated board")?;
    Ok((path, tx))
}

/// [`serve`] with the operator's lines from any source.
pub fn serve_lines<D, L>(
    board: SimulatedBoard,
    device: D,
    lines: L,
    exit_at_end: bool,
) -> anyhow::Result<()>
where
    D: Read + Write + Send + 'static + TryCloneDevice,
    L: Iterator<Item = anyhow::Result<String>>,
{
    // A board that sends its state continuously (Certabo) repeats the line the hand last left
    // it in; the hand's actions replace that line instead of being written once.
    let repeat = board.repeat_period();
    let current = Arc::new(Mutex::new(board.snapshot()));
    let board = Arc::new(Mutex::new(board));
    let mut reader = device.try_clone_device()?;
    let writer = Arc::new(Mutex::new(device));
    if let Some(period) = repeat {
        let writer = Arc::clone(&writer);
        let current = Arc::clone(&current);
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(period);
                let line = current.lock().map(|l| l.clone()).unwrap_or_default();
                let Ok(mut w) = writer.lock() else { break };
                if w.write_all(&line).and_then(|_| w.flush()).is_err() {
                    break;
                }
            }
        });
    }
    {
        let board = Arc::clone(&board);
        let writer = Arc::clone(&writer);
        std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let reply = board
                    .lock()
                    .map(|mut b| b.answer(&buf[..n]))
                    .unwrap_or_default();
                if !reply.is_empty()
                    && let Ok(mut w) = writer.lock()
                {
                    let _ = w.write_all(&reply).and_then(|_| w.flush());
                }
            }
        });
    }
    for line in lines {
        let line = line?;
        let result = board
            .lock()
            .map_err(|_| anyhow::anyhow!("board state poisoned"))?
            .operator_line_paced(&line);
        match result {
            Ok(chunks) => {
                for (pause, bytes) in &chunks {
                    std::thread::sleep(*pause);
                    if bytes.is_empty() {
                        continue;
                    }
                    if repeat.is_some() {
                        *current
                            .lock()
                            .map_err(|_| anyhow::anyhow!("board state poisoned"))? = bytes.clone();
                        continue;
                    }
                    let mut w = writer
                        .lock()
                        .map_err(|_| anyhow::anyhow!("device poisoned"))?;
                    w.write_all(bytes)
                        .and_then(|_| w.flush())
                        .context("writing to the device")?;
                }
            }
            Err(e) => eprintln!("simulate-board: {line:?}: {e}"),
        }
    }
    if exit_at_end {
        return Ok(());
    }
    loop {
        std::thread::park();
    }
}

/// A device the simulator can read and write from two threads.
pub trait TryCloneDevice: Sized {
    fn try_clone_device(&self) -> anyhow::Result<Self>;
}

impl TryCloneDevice for std::fs::File {
    fn try_clone_device(&self) -> anyhow::Result<Self> {
        Ok(self.try_clone()?)
    }
}

/// Standard output as a peg board's device that nobody writes to: reading it ends at once, so
/// the board only sends (`simulate-board --to-stdout`). Every line is stamped as in a recording
/// (`@<ms> Le2`, `docs/peg-protocol.md` §4) with the milliseconds since the board started, so
/// whoever performs the lines keeps the hand's pace however late it reads them.
pub struct StdoutDevice {
    origin: Millis,
    at_line_start: bool,
}

impl StdoutDevice {
    /// A device whose time starts now.
    pub fn new() -> StdoutDevice {
        StdoutDevice {
            origin: clock::now_ms(),
            at_line_start: true,
        }
    }
}

impl Default for StdoutDevice {
    fn default() -> Self {
        StdoutDevice::new()
    }
}

impl Read for StdoutDevice {
    fn read(&mut self, _buf: &mut [u8]) -> std::io::Result<usize> {
        Ok(0)
    }
}

impl Write for StdoutDevice {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut stamped = Vec::with_capacity(buf.len() + 16);
        for &b in buf {
            if self.at_line_start {
                let ms = clock::now_ms().saturating_sub(self.origin);
                stamped.extend_from_slice(format!("@{ms} ").as_bytes());
            }
            stamped.push(b);
            self.at_line_start = b == b'\n';
        }
        std::io::stdout().write_all(&stamped)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stdout().flush()
    }
}

impl TryCloneDevice for StdoutDevice {
    /// The clone only reads (nothing); it shares the time origin.
    fn try_clone_device(&self) -> anyhow::Result<Self> {
        Ok(StdoutDevice {
            origin: self.origin,
            at_line_start: true,
        })
    }
}

impl TryCloneDevice for std::net::TcpStream {
    fn try_clone_device(&self) -> anyhow::Result<Self> {
        Ok(self.try_clone()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peg_board_sends_lifts_and_places_and_answers_snapshots() {
        let mut b = SimulatedBoard::new(Protocol::Peg, Game::new(), Language::english().clone());
        assert_eq!(b.answer(b"?\n"), b"SFFFF00000000FFFF\n");
        assert_eq!(
            b.operator_line("e4").unwrap(),
            [b"Le2\n".to_vec(), b"Pe4\n".to_vec()]
        );
        assert_eq!(
            b.operator_line("5755").unwrap(),
            [b"Le7\n".to_vec(), b"Pe5\n".to_vec()]
        );
        assert!(b.operator_line("e4").unwrap_err().0.contains("illegal"));
        assert_eq!(b.operator_line("raw Ld1").unwrap(), [b"Ld1\n".to_vec()]);
    }

    #[test]
    fn the_operator_presses_every_key_of_the_strip() {
        let mut b = SimulatedBoard::new(Protocol::Peg, Game::new(), Language::english().clone());
        for key in BoardKey::all() {
            let letter = key.letter().unwrap();
            let line = format!("K{letter}\n").into_bytes();
            let sent = b.operator_line(&format!("key {letter}")).unwrap();
            assert_eq!(sent, std::slice::from_ref(&line));
            let lower = letter.to_ascii_lowercase();
            assert_eq!(b.operator_line(&format!("key {lower}")).unwrap(), [line]);
        }
        // A key this version does not know is sent as it is; the host answers it.
        assert_eq!(b.operator_line("key 7").unwrap(), [b"K7\n".to_vec()]);
        assert!(b.operator_line("key AB").is_err());
        assert!(b.operator_line("key #").is_err());
        let mut dgt = SimulatedBoard::new(Protocol::Dgt, Game::new(), Language::english().clone());
        assert!(dgt.operator_line("key A").is_err());
    }

    #[test]
    fn a_millennium_board_answers_its_commands_and_reports_each_action() {
        let mut b = SimulatedBoard::new(
            Protocol::Millennium,
            Game::new(),
            Language::english().clone(),
        );
        let mut reply = b.answer(&millennium::greeting());
        let mut decoder = millennium::MillenniumDecoder::new();
        let mut out = Vec::new();
        use crate::boards::Decoder;
        decoder.feed(&reply, 0, &mut out);
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(
            out[1].as_ref().unwrap().event,
            SensorEvent::Pieces(Board::new())
        );
        // Nf3: the knight lifted, then put down — one status each.
        reply = b.operator_line("Nf3").unwrap().concat();
        out.clear();
        decoder.feed(&reply, 0, &mut out);
        let events: Vec<SensorEvent> = out.into_iter().map(|d| d.unwrap().event).collect();
        assert_eq!(
            events,
            [
                SensorEvent::SquareChanged {
                    square: shakmaty::Square::G1,
                    piece: None
                },
                SensorEvent::SquareChanged {
                    square: shakmaty::Square::F3,
                    piece: shakmaty::Piece::from_char('N')
                },
            ]
        );
        assert_eq!(
            b.answer(&millennium::command_read(millennium::REG_SCAN_TIME))
                .len(),
            7
        );
        // Reports off: the host has to ask.
        b.answer(&millennium::command_write(
            millennium::REG_AUTO_REPORTS,
            millennium::AUTO_OFF,
        ));
        assert!(b.operator_line("e5").unwrap().is_empty());
    }

    #[test]
    fn a_certabo_board_shows_each_action_in_its_line() {
        let mut b =
            SimulatedBoard::new(Protocol::Certabo, Game::new(), Language::english().clone());
        assert!(b.repeat_period().is_some());
        assert!(b.answer(&certabo::LEDS_OFF).is_empty());
        let start = b.snapshot();
        let lines = b.operator_line("e4").unwrap();
        assert_eq!(lines.len(), 2);
        let mut decoder = certabo::CertaboDecoder::new(None);
        let mut out = Vec::new();
        use crate::boards::Decoder;
        for line in [&start, &start, &lines[0], &lines[0], &lines[1], &lines[1]] {
            decoder.feed(line, 0, &mut out);
        }
        let events: Vec<SensorEvent> = out.into_iter().map(|d| d.unwrap().event).collect();
        assert_eq!(events.len(), 3, "{events:?}");
        assert_eq!(events[0], SensorEvent::Pieces(Board::new()));
    }

    #[test]
    fn a_dgt_board_answers_with_a_dump() {
        let mut b = SimulatedBoard::new(Protocol::Dgt, Game::new(), Language::english().clone());
        let dump = b.answer(&[dgt::DGT_SEND_BRD]);
        assert_eq!(dump.len(), 67);
        assert_eq!(dump[0], 0x86);
        assert_eq!(
            b.operator_line("raw 8e 00 05 1c").unwrap(),
            [vec![0x8e, 0, 5, 0x1c]]
        );
        assert!(b.operator_line("raw zz").is_err());
        // A clock message's data bytes (here 0x42) are not a board request.
        assert!(b.answer(&[0x2b, 0x03, 0x42, 0x42, 0x00]).is_empty());
        assert_eq!(b.answer(&[dgt::DGT_SEND_BRD]).len(), 67);
    }
}
