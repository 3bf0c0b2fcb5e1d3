//! Each request's arguments read from the rest of its line, one function per keyword (the
//! parse functions `vocabulary` declares), and the words they share: a side, a colour, a
//! promotion piece. A malformed argument is a refusal that says what would be right.

use shakmaty::Color;

use super::refusal::{ErrorCode, Refusal};
use super::request::{
    ConnectionRequest as C, DeskRequest as D, ExportFormat, GameTag, MAX_TAG_CHARS, Request,
    Resolve, TableRequest as T,
};
use crate::reconcile::Side;
use annabella_chess::game::GameResult;
use annabella_chess::language::Language;

/// A request line split at its keyword.
pub struct Args<'l> {
    /// The keyword as typed (`MOVE`), for the messages.
    pub keyword: &'l str,
    /// The rest of the line, trimmed.
    pub rest: &'l str,
    /// The connection's language, for piece names.
    pub lang: &'l Language,
}

/// What a parse function gives.
pub type Parsed = Result<Request, Refusal>;

fn syntax(message: impl Into<String>) -> Refusal {
    Refusal::new(ErrorCode::Syntax, message)
}

impl Args<'_> {
    /// The rest of the line, which must not be empty: `what` says what it should be.
    fn needs(&self, what: &str) -> Result<String, Refusal> {
        if self.rest.is_empty() {
            Err(syntax(format!("{} needs {what}", self.keyword)))
        } else {
            Ok(self.rest.to_owned())
        }
    }

    /// `request`, when nothing follows the keyword.
    fn bare(&self, request: Request) -> Parsed {
        if self.rest.is_empty() {
            Ok(request)
        } else {
            Err(syntax(format!(
                "{} takes no argument, not {:?}",
                self.keyword, self.rest
            )))
        }
    }
}

pub fn auth(a: &Args) -> Parsed {
    Ok(Request::Connection(C::Auth {
        token: a.needs("a token")?,
    }))
}

pub fn events(a: &Args) -> Parsed {
    a.bare(Request::Connection(C::Events))
}

pub fn lang(a: &Args) -> Parsed {
    Ok(Request::Connection(C::Lang {
        code: a.needs("a language code, e.g. lang es")?,
    }))
}

pub fn table(a: &Args) -> Parsed {
    Ok(Request::Connection(C::Table {
        name: a.needs("a table name, e.g. table table-1")?,
    }))
}

pub fn tables(a: &Args) -> Parsed {
    a.bare(Request::Connection(C::Tables))
}

pub fn audio_devices(a: &Args) -> Parsed {
    a.bare(Request::Connection(C::AudioDevices))
}

pub fn broadcast(a: &Args) -> Parsed {
    a.bare(Request::Connection(C::Broadcast))
}

pub fn audio_device(a: &Args) -> Parsed {
    let what = "an output (its number, or blind, opponent or arbiter) and an audio device from \
                audio-devices, e.g. audio-device blind plughw:CARD=Headphones,DEV=0";
    let rest = a.needs(what)?;
    match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
        [output, device] => Ok(Request::Connection(C::AudioDevice {
            output: (*output).to_owned(),
            device: (*device).to_owned(),
        })),
        _ => Err(syntax(format!("{} needs {what}", a.keyword))),
    }
}

pub fn help(a: &Args) -> Parsed {
    a.bare(Request::Connection(C::Help))
}

pub fn quit(a: &Args) -> Parsed {
    a.bare(Request::Connection(C::Quit))
}

pub fn focus(a: &Args) -> Parsed {
    Ok(Request::Desk(D::Focus {
        table: a.needs("a correspondence table's name, e.g. focus bca-7")?,
    }))
}

pub fn games(a: &Args) -> Parsed {
    a.bare(Request::Desk(D::Games))
}

pub fn mail(a: &Args) -> Parsed {
    use super::request::MailRequest as M;
    let usage = "mail takes 'held', 'accept NUMBER', 'retry' or 'resend TABLE'";
    let mut words = a.rest.split_whitespace();
    let first = words.next().map(str::to_ascii_lowercase);
    let request = match (first.as_deref(), words.next(), words.next()) {
        (Some("held"), None, None) => M::Held,
        (Some("retry"), None, None) => M::Retry,
        (Some("resend"), Some(table), None) => M::Resend {
            table: table.to_owned(),
        },
        (Some("accept"), None, None) => M::Accept { id: None },
        (Some("accept"), Some(id), None) => M::Accept {
            id: Some(id.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                syntax(format!(
                    "mail accept takes a held message's number, not {id:?}"
                ))
            })?),
        },
        _ => return Err(syntax(format!("{usage}, not {:?}", a.rest))),
    };
    Ok(Request::Desk(D::Mail(request)))
}

pub fn move_(a: &Args) -> Parsed {
    Ok(Request::Table(T::Move {
        text: a.needs("a move in any notation, e.g. move 5254")?,
    }))
}

pub fn board(a: &Args) -> Parsed {
    if a.rest.is_empty() {
        return Ok(Request::Table(T::Board));
    }
    match a.rest.parse::<usize>() {
        Ok(ply) => Ok(Request::Table(T::BoardAt { ply })),
        Err(_) => Err(syntax(format!(
            "board takes a number of half-moves (board 12), not {:?}",
            a.rest
        ))),
    }
}

pub fn boards(a: &Args) -> Parsed {
    a.bare(Request::Table(T::Boards))
}

pub fn clock(a: &Args) -> Parsed {
    match a.rest {
        "" => Ok(Request::Table(T::Clock)),
        "quiet" => Ok(Request::Table(T::ClockQuiet)),
        _ => Err(syntax(format!(
            "clock takes nothing or quiet, not {:?}",
            truncate(a.rest, 40)
        ))),
    }
}

pub fn sheet(a: &Args) -> Parsed {
    if a.rest.is_empty() {
        Ok(Request::Table(T::Sheet))
    } else {
        Ok(Request::Table(T::SheetOf {
            side: parse_side(a.rest)?,
        }))
    }
}

pub fn status(a: &Args) -> Parsed {
    a.bare(Request::Table(T::Status))
}

pub fn view(a: &Args) -> Parsed {
    a.bare(Request::Table(T::View))
}

pub fn parse(a: &Args) -> Parsed {
    Ok(Request::Table(T::Parse {
        text: a.needs("a move in any notation, e.g. parse Sf3")?,
    }))
}

pub fn export(a: &Args) -> Parsed {
    let format = a.needs("a format: pgn, iccf, braille or brf")?;
    match ExportFormat::parse(&format) {
        Some(format) => Ok(Request::Table(T::Export { format })),
        None => Err(syntax(format!(
            "no export format {format:?}; pgn, iccf, braille or brf"
        ))),
    }
}

pub fn promote(a: &Args) -> Parsed {
    Ok(Request::Table(T::Promote {
        piece: promotion_piece(&a.needs("a piece: q, r, b or n")?, a.lang)?,
    }))
}

pub fn leave(a: &Args) -> Parsed {
    let usage = "a colour and the first and last day, e.g. leave white 2026-12-20 2027-01-05";
    let text = a.needs(usage)?;
    let words: Vec<&str> = text.split_whitespace().collect();
    let [c, from, to] = words.as_slice() else {
        return Err(syntax(format!("leave needs {usage}")));
    };
    let color = parse_color(c).ok_or_else(|| syntax(format!("{c:?}: white or black")))?;
    Ok(Request::Table(T::Leave {
        color,
        from: (*from).to_owned(),
        to: (*to).to_owned(),
    }))
}

pub fn offer_draw(a: &Args) -> Parsed {
    a.bare(Request::Table(T::OfferDraw))
}

pub fn claim_draw(a: &Args) -> Parsed {
    Ok(Request::Table(T::ClaimDraw {
        intended: (!a.rest.is_empty()).then(|| a.rest.to_owned()),
    }))
}

pub fn resign(a: &Args) -> Parsed {
    a.bare(Request::Table(T::Resign))
}

pub fn send(a: &Args) -> Parsed {
    a.bare(Request::Table(T::Send))
}

pub fn message(a: &Args) -> Parsed {
    a.bare(Request::Table(T::Message))
}

pub fn comment(a: &Args) -> Parsed {
    Ok(Request::Table(T::Comment {
        text: a.needs("the opponent's comment, e.g. comment Nice game so far")?,
    }))
}

pub fn my_message(a: &Args) -> Parsed {
    Ok(Request::Table(T::MyMessage {
        text: a.needs("your message, e.g. my-message Thank you for the game")?,
    }))
}

pub fn claim_time(a: &Args) -> Parsed {
    a.bare(Request::Table(T::ClaimTime))
}

/// `seek 15+10` or `seek 30+20 rated`: the control's speed is the lichess adapter's to judge
/// (it says why it refuses), the words here are only read.
pub fn seek(a: &Args) -> Parsed {
    let usage = "a time control minutes+seconds and optionally rated, e.g. seek 15+10 rated";
    let text = a.needs(usage)?;
    let words: Vec<&str> = text.split_whitespace().collect();
    let (control, rated) = match words.as_slice() {
        [c] if c.eq_ignore_ascii_case("cancel") => return Ok(Request::Table(T::CancelSeek)),
        [c] => (*c, false),
        [c, r] if r.eq_ignore_ascii_case("rated") => (*c, true),
        [c, r] if r.eq_ignore_ascii_case("casual") => (*c, false),
        _ => return Err(syntax(format!("seek needs {usage}"))),
    };
    let control = control.parse().map_err(|e| syntax(format!("seek: {e}")))?;
    Ok(Request::Table(T::Seek { control, rated }))
}

/// The longest lichess user name (lichess allows 2 to 30 letters, digits, `_` and `-`).
const MAX_USER_CHARS: usize = 30;

/// `challenge USER 30+20`.
pub fn challenge(a: &Args) -> Parsed {
    let usage = "a lichess user and a time control, e.g. challenge bob 30+20";
    let text = a.needs(usage)?;
    let words: Vec<&str> = text.split_whitespace().collect();
    let [user, control] = words.as_slice() else {
        return Err(syntax(format!("challenge needs {usage}")));
    };
    let fits = (2..=MAX_USER_CHARS).contains(&user.len())
        && user
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !fits {
        return Err(syntax(format!(
            "challenge: {user:?} is not a lichess user name (2 to 30 letters, digits, _ or -)"
        )));
    }
    let control = control
        .parse()
        .map_err(|e| syntax(format!("challenge: {e}")))?;
    Ok(Request::Table(T::Challenge {
        user: (*user).to_owned(),
        control,
    }))
}

pub fn undo(a: &Args) -> Parsed {
    a.bare(Request::Table(T::Undo))
}

pub fn record(a: &Args) -> Parsed {
    let (side, moves) = a
        .rest
        .split_once(char::is_whitespace)
        .unwrap_or((a.rest, ""));
    let side = parse_side(side)?;
    if moves.trim().is_empty() {
        return Err(syntax(
            "record needs a side and the moves, e.g. record b 1. e4 e5 2. Nf3",
        ));
    }
    Ok(Request::Table(T::Record {
        side,
        moves: moves.trim().to_owned(),
    }))
}

pub fn confirm(a: &Args) -> Parsed {
    Ok(Request::Table(T::Confirm {
        side: parse_side(&a.needs("a side: a or b")?)?,
    }))
}

pub fn dispute(a: &Args) -> Parsed {
    Ok(Request::Table(T::Dispute {
        side: parse_side(&a.needs("a side: a or b")?)?,
    }))
}

pub fn resolve(a: &Args) -> Parsed {
    let usage = "resolve confirm, resolve reject or resolve override PLIES";
    let mut words = a.rest.split_whitespace();
    let choice = match (words.next(), words.next(), words.next()) {
        (Some("confirm"), None, None) => Resolve::Confirm,
        (Some("reject"), None, None) => Resolve::Reject,
        (Some("override"), Some(n), None) => Resolve::Override {
            plies: n
                .parse()
                .map_err(|_| syntax(format!("{n:?} is no number of half-moves; {usage}")))?,
        },
        _ => return Err(syntax(usage)),
    };
    Ok(Request::Table(T::Resolve { choice }))
}

pub fn adjust(a: &Args) -> Parsed {
    let usage = "adjust needs a colour and seconds, e.g. adjust white +120";
    let mut words = a.rest.split_whitespace();
    let (Some(c), Some(secs), None) = (words.next(), words.next(), words.next()) else {
        return Err(syntax(usage));
    };
    let color = parse_color(c).ok_or_else(|| syntax(usage))?;
    let seconds: i64 = secs
        .trim_start_matches('+')
        .parse()
        .ok()
        .filter(|s: &i64| s.unsigned_abs() <= 86_400)
        .ok_or_else(|| {
            syntax(format!(
                "{secs:?} is no number of seconds from -86400 to +86400"
            ))
        })?;
    Ok(Request::Table(T::Adjust {
        color,
        delta_ms: seconds * 1000,
    }))
}

pub fn penalty(a: &Args) -> Parsed {
    let c = a.needs("a colour, e.g. penalty black")?;
    let color = parse_color(&c).ok_or_else(|| syntax(format!("{c:?}: white or black")))?;
    Ok(Request::Table(T::Penalty { color }))
}

pub fn result(a: &Args) -> Parsed {
    let r = a.needs("a result, e.g. result 1-0")?;
    let result = GameResult::from_pgn(&r)
        .ok_or_else(|| syntax(format!("{r:?} is no result; 1-0, 0-1 or 1/2-1/2")))?;
    Ok(Request::Table(T::Result { result }))
}

pub fn pause(a: &Args) -> Parsed {
    a.bare(Request::Table(T::Pause))
}

pub fn resume(a: &Args) -> Parsed {
    a.bare(Request::Table(T::Resume))
}

pub fn new_game(a: &Args) -> Parsed {
    let usage = "new-game [game_id ID] [fen FEN]: the standard position or a FEN; a \
                 correspondence game's new id (letters, digits, '-', '.', '_', '/', '#')";
    let mut rest = a.rest.trim();
    let mut game_id = None;
    if let Some(after) = rest.strip_prefix("game_id") {
        let after = after.trim_start();
        let (id, more) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
        // The id as the messages' `Game:` line reads it.
        if annabella_correspondence::message::GameId::new(id).is_none() {
            return Err(syntax(usage));
        }
        game_id = Some(id.to_owned());
        rest = more.trim();
    }
    let mut words = rest.splitn(2, char::is_whitespace);
    match (words.next().filter(|w| !w.is_empty()), words.next()) {
        (None, _) => Ok(Request::Table(T::NewGame { fen: None, game_id })),
        (Some("fen"), Some(fen)) if !fen.trim().is_empty() => Ok(Request::Table(T::NewGame {
            fen: Some(fen.trim().to_owned()),
            game_id,
        })),
        _ => Err(syntax(usage)),
    }
}

pub fn tag(a: &Args) -> Parsed {
    let usage = "tag white|black|event|site|round TEXT, e.g. tag white Anna Müller";
    let mut words = a.rest.splitn(2, char::is_whitespace);
    let Some(tag) = words.next().and_then(GameTag::parse) else {
        return Err(syntax(usage));
    };
    match words.next().map(str::trim).filter(|v| !v.is_empty()) {
        // One space between words, as the journal's line keeps it.
        Some(value) if value.chars().count() <= MAX_TAG_CHARS => Ok(Request::Table(T::Tag {
            tag,
            value: value.split_whitespace().collect::<Vec<_>>().join(" "),
        })),
        Some(_) => Err(syntax(format!(
            "a tag's text is at most {MAX_TAG_CHARS} characters"
        ))),
        None => Err(syntax(usage)),
    }
}

/// The piece a pawn promotes to: the UCI letters `q`, `r`, `b`, `n` (either case, whatever the
/// language: they are the letters of `e7e8q`), or the piece's name in `lang` or in English.
/// Language letters are not read: Spanish `R` (rey) would contradict UCI `r` (rook).
pub fn promotion_piece(text: &str, lang: &Language) -> Result<shakmaty::Role, Refusal> {
    use shakmaty::Role as Piece;
    let word = text.trim().to_lowercase();
    let by_letter = match word.as_str() {
        "q" => Some(Piece::Queen),
        "r" => Some(Piece::Rook),
        "b" => Some(Piece::Bishop),
        "n" => Some(Piece::Knight),
        _ => None,
    };
    let by_name = || {
        Piece::ALL.into_iter().find(|&role| {
            [lang, Language::english()]
                .iter()
                .any(|l| l.vocabulary().piece(role).to_lowercase() == word)
        })
    };
    match by_letter.or_else(by_name) {
        Some(role @ (Piece::Queen | Piece::Rook | Piece::Bishop | Piece::Knight)) => Ok(role),
        Some(role) => Err(syntax(format!(
            "a pawn promotes to a queen, rook, bishop or knight, not to a {}",
            Language::english().vocabulary().piece(role)
        ))),
        None => Err(syntax(format!(
            "promote {:?}: q, r, b or n, or the piece's name in {} ({}, {}, {}, {})",
            truncate(text, 40),
            lang.name(),
            lang.vocabulary().piece(Piece::Queen),
            lang.vocabulary().piece(Piece::Rook),
            lang.vocabulary().piece(Piece::Bishop),
            lang.vocabulary().piece(Piece::Knight),
        ))),
    }
}

fn parse_side(text: &str) -> Result<Side, Refusal> {
    match text.trim().to_ascii_lowercase().as_str() {
        "a" => Ok(Side::A),
        "b" => Ok(Side::B),
        other => Err(syntax(format!(
            "{:?} is no side: a (the blind player's sheet) or b (the sighted player's)",
            truncate(other, 20)
        ))),
    }
}

fn parse_color(text: &str) -> Option<Color> {
    match text.to_ascii_lowercase().as_str() {
        "white" | "w" => Some(Color::White),
        "black" | "b" => Some(Color::Black),
        _ => None,
    }
}

/// At most `max` characters of `text`, for echoing what was typed.
pub fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}
