//! One `[[table]]` as written and validated: its name, kind (a board pair, or a game by mail),
//! boards, rules, position, language, time control and PGN tags.

use serde::{Deserialize, Serialize};

use super::speech::read_language;
use super::{ConfigError, NormalBoard, PegSource, bad};
use crate::boards::{Millis, debounce};
use crate::chess::language::Language;
use crate::table::clock::TimeControl;
use crate::table::control::{GameTag, MAX_TAG_CHARS};
use crate::table::detector::TouchMove;
use crate::table::name::TableName;

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawTable {
    pub name: String,
    /// `board` (a peg board and a normal board at one table), `correspondence` (a game by
    /// mail, played on the desk's peg board) or `lichess` (a peg board playing live games on
    /// lichess with the `[lichess]` account: lichess is the opponent's board).
    pub kind: String,
    /// The blind player's peg board: a device, `tcp:HOST:PORT`, `sim` or `none`.
    pub peg: String,
    /// The side the blind player plays: `white` or `black`.
    pub peg_side: String,
    /// The sighted side's board: `virtual` (moves come from the control interface),
    /// `dgt:DEVICE`, `millennium:DEVICE` or `certabo:DEVICE` (a device or `tcp:HOST:PORT`).
    pub normal: String,
    /// Touch-move rule on the peg board: off, warn or strict.
    pub touch_move: String,
    pub debounce_ms: Millis,
    /// The first game's start position (FEN); empty: the standard position.
    pub fen: String,
    /// The table's own language and time control; empty: `speech.lang`, `clock.time_control`.
    pub lang: String,
    pub time_control: String,
    /// PGN tags of the table's games: the players' names, the event, the site, the round.
    pub white: String,
    pub black: String,
    pub event: String,
    pub site: String,
    pub round: String,
    /// A correspondence table's opponent: one address, or a list of the addresses he writes
    /// from (replies go to the first; a message from any other sender is held). The game's
    /// identifier in its messages (empty: the table's name).
    pub opponent_email: OpponentEmail,
    pub game_id: String,
    /// Where a correspondence table's game is played: `mail` (by email, the default), `xfcc`
    /// (ICCF's server; `game_id` is the server's game id) or `lichess` (a lichess
    /// correspondence game; `game_id` is its id). A server game needs no `opponent_email`.
    pub source: String,
    /// How a correspondence table counts its days: `iccf` (the ICCF webserver's rules) or
    /// `bca` (the Braille Chess Association's email rules); docs/correspondence-time.md.
    pub day_rules: String,
    /// The audio record (a `wav:` output): `plain`, or `cassette` (each move said twice, the
    /// Braille Chess Association's custom for correspondence games).
    pub audio_record: String,
}

impl Default for RawTable {
    fn default() -> RawTable {
        RawTable {
            name: "table-1".to_owned(),
            kind: "board".to_owned(),
            peg: "sim".to_owned(),
            peg_side: "white".to_owned(),
            normal: "virtual".to_owned(),
            touch_move: "warn".to_owned(),
            debounce_ms: debounce::DEFAULT_WINDOW,
            fen: String::new(),
            lang: String::new(),
            time_control: String::new(),
            white: String::new(),
            black: String::new(),
            event: String::new(),
            site: String::new(),
            round: String::new(),
            opponent_email: OpponentEmail::default(),
            game_id: String::new(),
            source: "mail".to_owned(),
            day_rules: "iccf".to_owned(),
            audio_record: "plain".to_owned(),
        }
    }
}

/// What a table is: a board pair at one table, or a game by mail on the desk's peg board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableKind {
    Board,
    /// A live lichess game at a peg board (`[lichess]`'s account; `normal` stays `virtual`).
    Lichess,
    Correspondence {
        /// Where the replies go: the first of `opponent_addresses`.
        opponent_email: String,
        /// Every address the opponent writes from, lower case: a message's sender must be one.
        opponent_addresses: Vec<String>,
        /// The game's identifier in its messages (ICCF form), the table's name when unset.
        game_id: crate::correspondence::message::GameId,
        /// The time control in days and the rules that count them.
        days: crate::correspondence::day_rules::CorrespondenceControl,
        /// Where the game is played: by mail or on a server.
        source: CorrespondenceSource,
    },
}

/// Where a correspondence game is played (`source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CorrespondenceSource {
    /// By email: the mail desk reads and sends its messages.
    Mail,
    /// On ICCF's server through XFCC (`app::server_desk`).
    Xfcc,
    /// A lichess correspondence game (`app::server_desk`).
    Lichess,
}

impl CorrespondenceSource {
    /// The word in the configuration and in `<state_dir>/server-games`.
    pub fn word(self) -> &'static str {
        match self {
            CorrespondenceSource::Mail => "mail",
            CorrespondenceSource::Xfcc => "xfcc",
            CorrespondenceSource::Lichess => "lichess",
        }
    }

    /// Reads `mail`, `xfcc` or `lichess`.
    pub fn parse(word: &str) -> Option<CorrespondenceSource> {
        [
            CorrespondenceSource::Mail,
            CorrespondenceSource::Xfcc,
            CorrespondenceSource::Lichess,
        ]
        .into_iter()
        .find(|s| s.word() == word)
    }
}

/// The most addresses one opponent may be known by.
const MAX_OPPONENT_ADDRESSES: usize = 16;

/// `opponent_email`: one address or a list of them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum OpponentEmail {
    One(String),
    Many(Vec<String>),
}

impl Default for OpponentEmail {
    fn default() -> OpponentEmail {
        OpponentEmail::One(String::new())
    }
}

impl OpponentEmail {
    /// The addresses given, blanks trimmed, empty ones left out.
    pub fn addresses(&self) -> Vec<String> {
        let all: &[String] = match self {
            OpponentEmail::One(one) => std::slice::from_ref(one),
            OpponentEmail::Many(many) => many,
        };
        all.iter()
            .map(|a| a.trim().to_owned())
            .filter(|a| !a.is_empty())
            .collect()
    }
}

impl TableKind {
    /// Reads a table's `kind` with its correspondence keys; `key` names a field in errors.
    pub(super) fn parse(
        t: &RawTable,
        key: &dyn Fn(&str) -> String,
    ) -> Result<TableKind, ConfigError> {
        use crate::correspondence::day_rules::{CorrespondenceControl, Rules};
        let addresses = t.opponent_email.addresses();
        let game_id = t.game_id.as_str();
        let table_name = t.name.as_str();
        // A server's game named by `source` and `game_id` is a game of the desk: the kind
        // need not be written too (`[[table]] source = "xfcc"`, `game_id = "…"`).
        let kind = match (t.kind.as_str(), t.source.as_str()) {
            ("board", "xfcc" | "lichess") => "correspondence",
            (kind, _) => kind,
        };
        match kind {
            "board" | "lichess" => {
                let opponent_email = addresses.join(", ");
                for (field, value) in [
                    ("opponent_email", opponent_email.as_str()),
                    ("game_id", game_id),
                ] {
                    if !value.is_empty() {
                        return Err(bad(
                            key(field),
                            "only a correspondence table (kind = \"correspondence\") has one",
                        ));
                    }
                }
                if t.source != "mail" {
                    return Err(bad(
                        key("source"),
                        "only a correspondence table (kind = \"correspondence\") has one",
                    ));
                }
                if t.kind == "lichess" {
                    if t.normal != "virtual" {
                        return Err(bad(
                            key("normal"),
                            "a lichess table has no opponent's board: lichess is his board \
                             (leave normal = \"virtual\")",
                        ));
                    }
                    return Ok(TableKind::Lichess);
                }
                Ok(TableKind::Board)
            }
            "correspondence" => {
                let source = CorrespondenceSource::parse(&t.source).ok_or_else(|| {
                    bad(
                        key("source"),
                        format!("{:?}: mail, xfcc or lichess", t.source),
                    )
                })?;
                let server = source != CorrespondenceSource::Mail;
                if server && game_id.is_empty() {
                    return Err(bad(
                        key("game_id"),
                        "missing: a server's game is named by its id on the server",
                    ));
                }
                if addresses.is_empty() && !server {
                    return Err(bad(
                        key("opponent_email"),
                        "missing: a correspondence table sends its replies to the opponent's \
                         address and plays only his messages",
                    ));
                }
                if addresses.len() > MAX_OPPONENT_ADDRESSES {
                    return Err(bad(
                        key("opponent_email"),
                        format!(
                            "{} addresses; at most {MAX_OPPONENT_ADDRESSES}",
                            addresses.len()
                        ),
                    ));
                }
                for a in &addresses {
                    if a.parse::<lettre::Address>().is_err() {
                        return Err(bad(
                            key("opponent_email"),
                            format!(
                                "{a:?} is not an email address; a correspondence table sends its \
                                 replies to the opponent and plays only his messages"
                            ),
                        ));
                    }
                }
                let id = if game_id.is_empty() {
                    table_name
                } else {
                    game_id
                };
                let game_id = crate::correspondence::message::GameId::new(id).ok_or_else(|| {
                    bad(
                        key("game_id"),
                        format!(
                            "{id:?} is no game identifier: letters, digits and . - _ / # \
                             without blanks"
                        ),
                    )
                })?;
                let rules: Rules = t.day_rules.parse().map_err(|e| bad(key("day_rules"), e))?;
                let days = match t.time_control.trim() {
                    "" => CorrespondenceControl::new(rules.set().usual_control, rules),
                    text => CorrespondenceControl::new(
                        text.parse().map_err(|e| {
                            bad(
                                key("time_control"),
                                format!("{e}; a correspondence table counts days, like 20/10d"),
                            )
                        })?,
                        rules,
                    ),
                };
                Ok(TableKind::Correspondence {
                    opponent_email: addresses.first().cloned().unwrap_or_default(),
                    opponent_addresses: addresses.iter().map(|a| a.to_lowercase()).collect(),
                    game_id,
                    days,
                    source,
                })
            }
            other => Err(bad(
                key("kind"),
                format!("{other:?}: board, correspondence or lichess"),
            )),
        }
    }
}

/// A validated table.
#[derive(Debug, Clone)]
pub struct TableConfig {
    pub name: TableName,
    pub kind: TableKind,
    /// The audio record says each move twice (`audio_record = "cassette"`).
    pub cassette: bool,
    pub peg: PegSource,
    pub peg_side: shakmaty::Color,
    pub normal: NormalBoard,
    pub touch_move: TouchMove,
    pub debounce_ms: Millis,
    /// The first game's start position, checked; `None`: the standard position.
    pub fen: Option<String>,
    /// The table's own language and time control (`None`: the configuration's).
    pub lang: Option<Language>,
    pub time_control: Option<TimeControl>,
    /// PGN tags of the table's games.
    pub tags: Vec<(GameTag, String)>,
}

/// A server game's table made while the daemon runs (`app::server_desk`), checked as a
/// `[[table]]` of the file would be.
pub fn server_table(raw: &RawTable) -> Result<TableConfig, ConfigError> {
    raw.validate(0, &[])
}

impl RawTable {
    /// Checks the table `table[i]`; `earlier` are the tables before it, whose names it may
    /// not repeat.
    pub(super) fn validate(
        &self,
        i: usize,
        earlier: &[TableConfig],
    ) -> Result<TableConfig, ConfigError> {
        let t = self;
        let key = |field: &str| format!("table[{i}].{field}");
        // One rule for a table's name: the journal, the files and the page's routes use it.
        let name = TableName::new(&t.name).map_err(|e| bad(key("name"), e.to_string()))?;
        if earlier.iter().any(|other| other.name == name) {
            return Err(bad(
                key("name"),
                format!("{:?}: each table needs its own name", t.name),
            ));
        }
        let kind = TableKind::parse(t, &key)?;
        let peg = t.peg(&kind, &key("peg"))?;
        let peg_side = match t.peg_side.as_str() {
            "white" => shakmaty::Color::White,
            "black" => shakmaty::Color::Black,
            other => return Err(bad(key("peg_side"), format!("{other:?}: white or black"))),
        };
        let normal = NormalBoard::parse(&t.normal, &key("normal"))?;
        let touch_move = t
            .touch_move
            .parse()
            .map_err(|e| bad(key("touch_move"), e))?;
        if t.debounce_ms > 1000 {
            return Err(bad(
                key("debounce_ms"),
                format!("{} ms is no debounce window; 0 to 1000", t.debounce_ms),
            ));
        }
        let fen = match t.fen.trim() {
            "" => None,
            fen => Some(
                crate::chess::game::Game::from_fen(fen, false)
                    .map_err(|e| bad(key("fen"), format!("{fen:?}: {e}")))?
                    .fen(),
            ),
        };
        let lang = match t.lang.trim() {
            "" => None,
            code => Some(read_language(code).map_err(|e| bad(key("lang"), e))?),
        };
        let time_control = t.time_control(&kind, &key("time_control"))?;
        let tags = t.tags(&key)?;
        let cassette = match t.audio_record.as_str() {
            "plain" => false,
            "cassette" => true,
            other => {
                return Err(bad(
                    key("audio_record"),
                    format!("{other:?}: plain or cassette"),
                ));
            }
        };
        Ok(TableConfig {
            kind,
            cassette,
            fen,
            lang,
            time_control,
            tags,
            name,
            peg,
            peg_side,
            normal,
            touch_move,
            debounce_ms: t.debounce_ms,
        })
    }

    /// The table's peg board; a correspondence table has none of its own.
    fn peg(&self, kind: &TableKind, key: &str) -> Result<PegSource, ConfigError> {
        let peg = PegSource::parse(&self.peg).map_err(|e| bad(key, e))?;
        // A correspondence table has no board of its own: it plays on the desk's.
        match (kind, peg) {
            (TableKind::Board | TableKind::Lichess, peg) => Ok(peg),
            (TableKind::Correspondence { .. }, PegSource::Simulated | PegSource::None) => {
                Ok(PegSource::None)
            }
            (TableKind::Correspondence { .. }, PegSource::Device(_)) => Err(bad(
                key,
                "a correspondence table has no peg board of its own; it plays on the desk's \
                 ([desk] peg)",
            )),
        }
    }

    /// The table's own time control, if any.
    fn time_control(
        &self,
        kind: &TableKind,
        key: &str,
    ) -> Result<Option<TimeControl>, ConfigError> {
        match self.time_control.trim() {
            // A correspondence table's days are its control, the rules' usual one unset.
            "" => match kind {
                TableKind::Correspondence { days, .. } => Ok(Some(
                    TimeControl::parse_setting(&days.control.to_string())
                        .map_err(|e| bad(key, e))?,
                )),
                TableKind::Board | TableKind::Lichess => Ok(None),
            },
            text => Ok(Some(
                TimeControl::parse_setting(text).map_err(|e| bad(key, e))?,
            )),
        }
    }

    /// The PGN tags set, each on one line, blanks folded.
    fn tags(&self, key: &dyn Fn(&str) -> String) -> Result<Vec<(GameTag, String)>, ConfigError> {
        let mut tags = Vec::new();
        for (tag, value) in [
            (GameTag::White, &self.white),
            (GameTag::Black, &self.black),
            (GameTag::Event, &self.event),
            (GameTag::Site, &self.site),
            (GameTag::Round, &self.round),
        ] {
            let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
            if value.chars().count() > MAX_TAG_CHARS || value.chars().any(char::is_control) {
                return Err(bad(
                    key(tag.keyword()),
                    format!("at most {MAX_TAG_CHARS} characters on one line"),
                ));
            }
            if !value.is_empty() {
                tags.push((tag, value));
            }
        }
        Ok(tags)
    }
}
