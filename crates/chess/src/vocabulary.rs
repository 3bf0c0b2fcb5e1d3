//! The spoken words of one language: the `[words]` table of a `config/voices/*.toml` file.
//!
//! Everything a language says lives here as data, so that a federation adds a language by
//! writing a file, never code. Fixed words (files, ranks, pieces, castling, captures) are typed
//! fields; sentences (events, times, clock reports, corrections) are named templates with
//! `{placeholder}`s, so word order and agreement stay the language's business. [`Vocabulary::
//! validate`] checks at load time what serde cannot, naming the offending key, so that a broken
//! file is refused before a single word is spoken.
//!
//! Schema (every key required unless marked optional):
//!
//! ```toml
//! [words]
//! white = "Weiß"                       # the colours, standing alone
//! black = "Schwarz"
//! files = ["Anna", …, "Hector"]        # eight, a to h
//! ranks = ["eins", …, "acht"]          # eight, 1 to 8
//!
//! [words.pieces]                       # king queen rook bishop knight pawn
//! [words.white_pieces]                 # the same six with the colour, as an object
//! [words.black_pieces]                 #   of a correction ("weißen Springer")
//! [words.white_pieces_named]           # optional: the same as the subject, where the language
//! [words.black_pieces_named]           #   inflects ("weißer Springer"); default: the above
//! [words.pieces_definite]              # optional: the piece with its article, as the subject
//!                                      #   of a reason ("der Springer"); default: [words.pieces]
//!
//! [words.moves]
//! short_castling = "Kurze Rochade"
//! long_castling = "Lange Rochade"
//! captures = "schlägt"
//! en_passant = "en passant"
//! promotion = "wird"                   # optional: said between the square and the new piece
//! check = "Schach"
//! mate = "Matt"
//!
//! [words.accept]                       # optional: more words read (never spoken), each with
//! "nimmt" = "captures"                 # its meaning: a piece (king … pawn) or a key of
//! "0-0" = "short_castling"             # [words.moves]
//!
//! [words.numbers]
//! units = ["null", …, "neunundneunzig"]   # 100 words, 0 to 99
//! hundreds = ["hundert", …]               # nine, 100 to 900, when more follows
//! hundreds_exact = ["cien", …]            # optional: nine, when nothing follows
//! hundreds_join = ""                      # between the hundreds and the rest
//! thousand_one = "tausend"
//! thousands = "{n}tausend"                # {n}, {n_m} or {n_f}: see below
//! thousands_join = ""
//! million_one = "eine Million"
//! millions = "{n} Millionen"
//! masculine = { 1 = "un" }                # optional: forms before a masculine noun ({n_m})
//! feminine = { 1 = "una", 2 = "duas" }    # optional: forms before a feminine noun ({n_f})
//!
//! [words.time]                         # {n}/{n_m}/{n_f}: the count; "_one" forms for 1
//! hour_one = "eine Stunde"
//! hours = "{n} Stunden"
//! minute_one, minutes, second_one, seconds, move_one, moves
//! day_one, days                        # optional: times of a day or more ("zehn Tage")
//! days_left = "noch {time}"            # optional: a correspondence clock's time left
//! days_left_both = "Weiß {white}, Schwarz {black}"  # optional: both sides' times left
//! time_exceeded = "Zeit überschritten" # optional: a correspondence clock past its limit
//! pair = "{first} {second}"            # two parts of a time ("eine Stunde zwölf Minuten")
//!
//! [words.events]                       # every key of EVENT_KEYS, with its placeholders
//!
//! [words.spoken]                       # optional: how the voice says a written word, where
//! "Cesar" = "Zäsar"                    #   the synthesizer would say it wrong; the written
//! "Rochade" = "Roschade"               #   form stays in text, on the page and in Braille
//!
//! [words.phonemes]                     # optional: espeak-ng's phonemes for a word whose
//! "Rochade" = "rOS'A:d@"               #   stress no spelling gets right (espeak-ng only)
//!
//! [words.record]                       # optional: the heading of a move in the audio record
//! move = "Zug {number}, {color}"       #   ({number}: the move number in words; {color}:
//!                                      #   the colour alone); default "{number}, {color}"
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use shakmaty::{CastlingSide, Color, File, Piece, Rank, Role};

/// Every event template a language must provide, with the placeholders each may use.
///
/// Colour-dependent events have one key per colour: agreement ("les Blancs abandonnent",
/// "ganan las blancas") differs too much between languages for one `{color}` template.
#[rustfmt::skip]
pub const EVENT_KEYS: &[(&str, &[&str])] = &[
    ("stalemate", &[]),
    ("dead_position", &[]),
    ("insufficient_material", &[]),
    ("fivefold_repetition", &[]),
    ("seventy_five_moves", &[]),
    ("draw_agreed", &[]),
    ("threefold_repetition", &[]),
    ("fifty_moves", &[]),
    ("white_resigns", &[]),
    ("black_resigns", &[]),
    ("white_resigns_draw", &[]),
    ("black_resigns_draw", &[]),
    ("white_lost_on_time", &[]),
    ("black_lost_on_time", &[]),
    ("white_flag_draw", &[]),
    ("black_flag_draw", &[]),
    ("white_wins", &[]),
    ("black_wins", &[]),
    ("draw", &[]),
    ("illegal_move", &[]),
    ("promotion_request", &["queen", "rook", "bishop", "knight"]),
    ("white_offers_draw", &[]),
    ("black_offers_draw", &[]),
    ("move_confirmed", &[]),
    ("board_disconnected", &[]),
    ("board_reconnected", &[]),
    ("board_mismatch", &[]),
    ("board_correct", &[]),
    // On an output both players hear, whose board a board's sentence is about
    // (`crates/table/src/state/announcer.rs`).
    ("board_of_blind", &[]),
    ("board_of_opponent", &[]),
    ("board_mismatch_of", &["board"]),
    ("board_correct_of", &["board"]),
    ("board_disconnected_of", &["board"]),
    ("board_reconnected_of", &["board"]),
    ("on_board", &["board", "words"]),
    ("move_withdrawn", &[]),
    ("move_amended", &[]),
    ("result_offered", &["result"]),
    ("sheets_differ", &[]),
    ("sheet_lags", &[]),
    ("takeback_done", &[]),
    ("clock", &["white", "black", "moves"]),
    ("correction_move", &["piece", "colored_piece", "from", "to"]),
    ("correction_remove", &["piece", "colored_piece", "square"]),
    ("correction_place", &["piece", "colored_piece", "square"]),
    ("correction_return", &["piece", "colored_piece", "square"]),
    // A peg whose piece the holes cannot name (issue 24: the table says it cannot know).
    ("correction_move_unknown", &["from", "to"]),
    ("correction_remove_unknown", &["square"]),
    // The set-up of a position on the peg board (`crates/table/src/setup_guide.rs`).
    ("setup_check", &["piece", "colored_piece", "square"]),
    ("setup_aside", &["piece", "colored_piece", "from", "to"]),
    ("setup_remove_unknown", &["square"]),
    ("setup_step_one", &["n", "n_m", "n_f"]),
    ("setup_steps", &["n", "n_m", "n_f"]),
    ("setup_done", &[]),
    ("new_game", &[]),
    ("time_control", &["periods"]),
    ("period_moves", &["moves", "time"]),
    ("increment", &["time"]),
    ("delay", &["time"]),
    ("then", &[]),
    ("control_reached", &["color", "time"]),
    // Answers to the peg board's keys (`crates/table/src/state/keys.rs`).
    ("key_move", &["number", "color", "move"]),
    ("key_no_move", &[]),
    ("key_history_start", &[]),
    ("key_turn", &["color"]),
    ("key_to_control", &["moves"]),
    ("key_own_time", &["time"]),
    ("key_game_over", &[]),
    ("key_not_possible", &[]),
    ("key_claim_not_your_turn", &[]),
    ("key_claim_refused", &["moves"]),
    ("key_claim_penalty", &["color", "time"]),
    ("key_resign_confirm", &[]),
    ("key_sheet_confirmed", &[]),
    ("key_nothing_to_confirm", &[]),
    ("key_setup_taken", &[]),
    ("key_setup_differs_one", &[]),
    ("key_setup_differs", COUNT_PLACEHOLDERS),
    ("key_unknown", &[]),
    ("key_promotion_chosen", &["piece"]),
    ("key_no_promotion", &[]),
    ("reason_wrong_side", &["color"]),
    (
        "reason_king_in_check",
        &["piece", "colored_piece", "from", "to"],
    ),
    (
        "reason_cannot_move",
        &["piece", "colored_piece", "from", "to"],
    ),
    ("reason_castling", &[]),
    ("reason_displaced", &[]),
    ("reason_game_over", &[]),
    (
        "touch_move_first",
        &["piece", "colored_piece", "the_piece", "square"],
    ),
    (
        "touch_move_capture",
        &["piece", "colored_piece", "the_piece", "square"],
    ),
    ("touch_move_castle", &[]),
    ("touch_move_rook_first", &[]),
    ("move_refused_paused", &[]),
    ("takeback_rejected", &[]),
    ("game_continues", &[]),
    // The clock across a restart and a stall (`crates/table/src/state/resume.rs`).
    ("clock_resumed", &["downtime", "color", "time"]),
    ("clock_resumed_reboot", &["downtime", "color", "time"]),
    ("daemon_stalled", &["time"]),
    (
        "sheet_correct_move",
        &["color", "number", "played", "written"],
    ),
    // A correspondence message summed up (`crates/correspondence/src/message.rs`).
    ("mail_move", &["game", "player", "move"]),
    ("mail_time_used", &["days"]),
    // The correspondence desk (`crates/table/src/desk.rs`).
    ("desk_game", &["game"]),
    ("desk_messages_one", &[]),
    ("desk_messages", COUNT_PLACEHOLDERS),
    ("desk_list_entry", &["game", "state"]),
    ("desk_reply_queued", &["game"]),
    ("desk_mail_refused", &["game", "why"]),
    ("desk_reply_sent", &["name"]),
    ("desk_reply_refused", &["name", "why"]),
    ("desk_reply_bounced", &["name"]),
    ("desk_reply_waiting", &["name"]),
    ("desk_replies_waiting", &["count", "name"]),
    ("desk_reply_unanswered", &["name", "days"]),
    ("desk_correction_queued", &["game"]),
    ("desk_reply_resent", &["game"]),
    ("desk_mail_differs", &["number", "color"]),
    ("desk_mail_illegal", &["number", "color"]),
    ("desk_mail_held", &["game", "sender", "id"]),
    (
        "desk_mail_held_many",
        &["game", "sender", "id", "n", "n_m", "n_f"],
    ),
    (
        "desk_mail_refused_many",
        &["game", "why", "n", "n_m", "n_f"],
    ),
    ("desk_mail_not_games", COUNT_PLACEHOLDERS),
    ("desk_mail_waiting", &["game"]),
    ("desk_mail_accepted", &["id"]),
    ("desk_mail_none_held", &[]),
    ("xfcc_result_success", &["game"]),
    ("xfcc_result_server_error", &["game"]),
    ("xfcc_result_authentication_failed", &["game"]),
    ("xfcc_result_invalid_game_id", &["game"]),
    ("xfcc_result_not_your_game", &["game"]),
    ("xfcc_result_not_your_turn", &["game"]),
    ("xfcc_result_invalid_move_number", &["game"]),
    ("xfcc_result_invalid_move", &["game"]),
    ("xfcc_result_no_draw_was_offered", &["game"]),
    ("xfcc_result_lost_on_time", &["game"]),
    ("xfcc_result_you_are_on_leave", &["game"]),
    ("xfcc_result_move_is_ambiguous", &["game"]),
    ("xfcc_result_claims_not_supported", &["game"]),
    ("xfcc_result_must_offer_draw", &["game"]),
    ("xfcc_result_cannot_offer_draw", &["game"]),
    ("xfcc_result_move_does_not_match_conditional", &["game"]),
    ("xfcc_result_conditionals_already_exist", &["game"]),
    ("xfcc_result_tournament_not_yet_started", &["game"]),
    ("xfcc_result_feature_unavailable", &["game"]),
    ("xfcc_result_unknown", &["game", "code"]),
    ("server_unreachable", &["server"]),
    ("server_back", &["server"]),
    ("server_message", &["message"]),
    (
        "server_game_state",
        &[
            "game",
            "white",
            "black",
            "event",
            "days",
            "hours",
            "opponent_days",
        ],
    ),
    ("server_claim_sent", &["game"]),
    ("server_claim_not_upheld", &["game"]),
    ("server_claim_not_now", &["game"]),
    ("server_claim_lichess", &["game"]),
    ("own_message_kept", &[]),
    ("own_message_sent", &["game"]),
    ("desk_mail_why_no_move", &[]),
    ("desk_mail_why_unreadable", &[]),
    ("desk_mail_why_not_now", &[]),
    ("desk_mail_why_refused", &[]),
    ("desk_mail_why_own_side", &[]),
    ("desk_mail_why_no_offer", &[]),
    ("desk_mail_draw_declined", &["game"]),
    // The desk at his own board (`crates/table/src/state/by_mail.rs`, `desk.rs`).
    ("desk_against", &["opponent", "color"]),
    ("desk_sent", &["move"]),
    ("desk_nothing_to_send", &[]),
    ("desk_taken_back", &["move"]),
    ("desk_analysing", &[]),
    ("desk_unsent", &["game"]),
    ("desk_undo_sent", &[]),
    ("desk_message", &["from", "text"]),
    ("desk_no_message", &[]),
    ("desk_time_claimed", &["color"]),
    ("desk_time_over_opponent", &["game", "color"]),
    ("desk_time_over_own", &["game"]),
    ("desk_greeting", &["games"]),
    ("ready", &["listeners"]),
    ("ready_blind", &[]),
    ("ready_opponent", &[]),
    ("ready_arbiter", &[]),
    ("ready_everyone", &[]),
    ("ready_and", &["first", "second"]),
    ("ready_page", &["address", "port"]),
    ("ready_dot", &[]),
    // A live lichess game at the table (`src/app/lichess_table`).
    ("lichess_connection_lost", &[]), ("lichess_connection_back", &[]),
    ("lichess_wait", &["time"]), ("lichess_opponent_gone", &["time"]),
    ("lichess_opponent_gone_claim_now", &[]), ("lichess_opponent_back", &[]),
    ("lichess_seeking", &["control"]), ("lichess_seek_too_fast", &["control"]),
    ("lichess_seek_ended", &[]), ("lichess_seek_cancelled", &[]), ("lichess_challenge_sent", &["user", "control"]),
    ("lichess_challenge_declined", &["user"]), ("lichess_move_refused", &["move"]),
    ("lichess_game_started", &["opponent", "rating", "control", "color"]),
    ("lichess_nothing_to_claim", &[]), ("lichess_claim_wait", &["time"]),
    ("lichess_game_not_playable", &[]), ("lichess_command_refused", &[]), ("lichess_unreachable", &[]),
    ("lichess_control", &["minutes", "seconds"]), ("lichess_game_aborted", &[]),
];

/// The placeholders of a count template: the plain, masculine and feminine number forms.
const COUNT_PLACEHOLDERS: &[&str] = &["n", "n_m", "n_f"];

/// The meanings an `[words.accept]` entry may have.
pub const ACCEPT_MEANINGS: &[&str] = &[
    "king",
    "queen",
    "rook",
    "bishop",
    "knight",
    "pawn",
    "short_castling",
    "long_castling",
    "captures",
    "en_passant",
    "promotion",
    "check",
    "mate",
];

/// Words for squares, pieces, castling, captures, checks, results, times and numbers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {
    white: String,
    black: String,
    files: Vec<String>,
    ranks: Vec<String>,
    pieces: PieceWords,
    white_pieces: PieceWords,
    black_pieces: PieceWords,
    /// The coloured pieces as the subject ("Felix drei, weißer Springer" on the web page), for
    /// languages whose adjectives decline; the object forms serve the others.
    #[serde(default)]
    white_pieces_named: Option<PieceWords>,
    #[serde(default)]
    black_pieces_named: Option<PieceWords>,
    /// The pieces with their definite article as the subject of a sentence ("der Springer auf
    /// Gustav eins wurde zuerst berührt"), for languages whose articles follow the noun's gender.
    #[serde(default)]
    pieces_definite: Option<PieceWords>,
    moves: MoveWords,
    #[serde(default)]
    accept: BTreeMap<String, String>,
    numbers: NumberWords,
    time: TimeWords,
    events: BTreeMap<String, String>,
    /// Written word or phrase → how the voice should say it (applied by the speech adapter just
    /// before synthesis, see [`Vocabulary::pronounce`]).
    #[serde(default)]
    pub(crate) spoken: BTreeMap<String, String>,
    /// Written word → espeak-ng's phonemes for it, where no spelling gets the stress right
    /// (see [`Vocabulary::pronounce_for_espeak`]); other engines get `spoken`.
    #[serde(default)]
    pub(crate) phonemes: BTreeMap<String, String>,
    #[serde(default)]
    record: RecordWords,
    #[serde(default)]
    pub page: crate::page_words::PageWords,
}

/// The words of the audio record (FIDE D.2.7), which doubles as the blind player's score.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordWords {
    /// The heading said before a move: `{number}` and `{color}`.
    #[serde(rename = "move", default)]
    pub move_heading: Option<String>,
}

/// The record's move heading when a language file gives none.
pub const DEFAULT_RECORD_MOVE: &str = "{number}, {color}";

/// One word per piece.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceWords {
    pub king: String,
    pub queen: String,
    pub rook: String,
    pub bishop: String,
    pub knight: String,
    pub pawn: String,
}

impl PieceWords {
    pub fn get(&self, role: Role) -> &str {
        match role {
            Role::King => &self.king,
            Role::Queen => &self.queen,
            Role::Rook => &self.rook,
            Role::Bishop => &self.bishop,
            Role::Knight => &self.knight,
            Role::Pawn => &self.pawn,
        }
    }
}

/// The words of a move besides squares and pieces.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveWords {
    pub short_castling: String,
    pub long_castling: String,
    pub captures: String,
    pub en_passant: String,
    #[serde(default)]
    pub promotion: Option<String>,
    pub check: String,
    pub mate: String,
}

/// How to say numbers: a word for each of 0–99, and how larger numbers are built from them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumberWords {
    pub units: Vec<String>,
    pub hundreds: Vec<String>,
    #[serde(default)]
    pub hundreds_exact: Option<Vec<String>>,
    pub hundreds_join: String,
    pub thousand_one: String,
    pub thousands: String,
    pub thousands_join: String,
    pub million_one: String,
    pub millions: String,
    /// Overrides of `units` before a masculine noun (Spanish "veintiún minutos").
    #[serde(default)]
    pub masculine: BTreeMap<String, String>,
    /// Overrides of `units` before a feminine noun (Portuguese "duas horas").
    #[serde(default)]
    pub feminine: BTreeMap<String, String>,
}

/// Templates for durations and move counts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeWords {
    pub hour_one: String,
    pub hours: String,
    pub minute_one: String,
    pub minutes: String,
    pub second_one: String,
    pub seconds: String,
    pub move_one: String,
    pub moves: String,
    pub pair: String,
    /// Times of a day or more (correspondence chess): "ein Tag", "{n} Tage". Without them
    /// such times are said in hours.
    #[serde(default)]
    pub day_one: Option<String>,
    #[serde(default)]
    pub days: Option<String>,
    /// A correspondence clock's time left: "noch {time}".
    #[serde(default)]
    pub days_left: Option<String>,
    /// Both sides' times left: "Weiß {white}, Schwarz {black}".
    #[serde(default)]
    pub days_left_both: Option<String>,
    /// A correspondence clock past its limit: "Zeit überschritten".
    #[serde(default)]
    pub time_exceeded: Option<String>,
}

impl Vocabulary {
    /// Checks what serde cannot: list lengths, no empty words, no digits a voice would misread,
    /// templates with known placeholders only. (That no word has two meanings is checked where
    /// the words are indexed for reading: [`crate::lexicon::Lexicon::build`].)
    pub fn validate(&self) -> Result<(), String> {
        let mut problems = Vec::new();
        self.check_lists(&mut problems);
        self.check_spoken_words(&mut problems);
        self.check_templates(&mut problems);
        self.check_events(&mut problems);
        self.check_pronunciation(&mut problems);
        for (word, meaning) in &self.accept {
            if !ACCEPT_MEANINGS.contains(&meaning.as_str()) {
                problems.push(format!(
                    "words.accept.{word:?}: unknown meaning {meaning:?}; one of {}",
                    ACCEPT_MEANINGS.join(", ")
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }

    fn check_lists(&self, problems: &mut Vec<String>) {
        let mut count = |key: &str, len: usize, want: usize| {
            if len != want {
                problems.push(format!("{key} must have {want} entries, not {len}"));
            }
        };
        count("words.files", self.files.len(), 8);
        count("words.ranks", self.ranks.len(), 8);
        count("words.numbers.units", self.numbers.units.len(), 100);
        count("words.numbers.hundreds", self.numbers.hundreds.len(), 9);
        if let Some(exact) = &self.numbers.hundreds_exact {
            count("words.numbers.hundreds_exact", exact.len(), 9);
        }
        for (key, forms) in [
            ("masculine", &self.numbers.masculine),
            ("feminine", &self.numbers.feminine),
        ] {
            for (n, word) in forms {
                if n.parse::<u8>().map_or(true, |n| n > 99) {
                    problems.push(format!(
                        "words.numbers.{key}.{n}: the key must be a number from 0 to 99"
                    ));
                }
                check_word(&format!("words.numbers.{key}.{n}"), word, false, problems);
            }
        }
    }

    /// Words that are spoken: none empty, no ASCII digits (a voice reads "5:00" as a time of
    /// day), and in moves no single letters (voices read "C" as degrees and "H" as hours).
    fn check_spoken_words(&self, problems: &mut Vec<String>) {
        let mut word = |key: String, w: &str, in_moves: bool| {
            check_word(&key, w, in_moves, problems);
        };
        word("words.white".into(), &self.white, false);
        word("words.black".into(), &self.black, false);
        for (i, w) in self.files.iter().enumerate() {
            word(format!("words.files[{i}]"), w, true);
        }
        for (i, w) in self.ranks.iter().enumerate() {
            word(format!("words.ranks[{i}]"), w, true);
        }
        let named = [
            ("white_pieces_named", &self.white_pieces_named),
            ("black_pieces_named", &self.black_pieces_named),
            ("pieces_definite", &self.pieces_definite),
        ];
        let named = named
            .iter()
            .filter_map(|(table, pieces)| pieces.as_ref().map(|p| (*table, p, false)));
        for (table, pieces, in_moves) in [
            ("pieces", &self.pieces, true),
            ("white_pieces", &self.white_pieces, false),
            ("black_pieces", &self.black_pieces, false),
        ]
        .into_iter()
        .chain(named)
        {
            for role in Role::ALL {
                word(
                    format!("words.{table}.{}", role_key(role)),
                    pieces.get(role),
                    in_moves,
                );
            }
        }
        let m = &self.moves;
        for (key, w) in [
            ("short_castling", &m.short_castling),
            ("long_castling", &m.long_castling),
            ("captures", &m.captures),
            ("en_passant", &m.en_passant),
            ("check", &m.check),
            ("mate", &m.mate),
        ] {
            word(format!("words.moves.{key}"), w, true);
        }
        if let Some(p) = &m.promotion {
            word("words.moves.promotion".into(), p, true);
        }
        for (i, w) in self.numbers.units.iter().enumerate() {
            word(format!("words.numbers.units[{i}]"), w, false);
        }
        for (i, w) in self.numbers.hundreds.iter().enumerate() {
            word(format!("words.numbers.hundreds[{i}]"), w, false);
        }
        for (i, w) in self.numbers.hundreds_exact.iter().flatten().enumerate() {
            word(format!("words.numbers.hundreds_exact[{i}]"), w, false);
        }
        for (key, w) in [
            ("thousand_one", &self.numbers.thousand_one),
            ("million_one", &self.numbers.million_one),
        ] {
            word(format!("words.numbers.{key}"), w, false);
        }
        for (key, w) in [
            ("hundreds_join", &self.numbers.hundreds_join),
            ("thousands_join", &self.numbers.thousands_join),
        ] {
            if w.chars().any(|c| c.is_ascii_digit()) {
                problems.push(format!("words.numbers.{key} must not contain digits"));
            }
        }
    }

    fn check_templates(&self, problems: &mut Vec<String>) {
        let n = &self.numbers;
        let t = &self.time;
        let templates: [(&str, &str, &[&str]); 11] = [
            ("words.numbers.thousands", &n.thousands, COUNT_PLACEHOLDERS),
            ("words.numbers.millions", &n.millions, COUNT_PLACEHOLDERS),
            ("words.time.hour_one", &t.hour_one, COUNT_PLACEHOLDERS),
            ("words.time.hours", &t.hours, COUNT_PLACEHOLDERS),
            ("words.time.minute_one", &t.minute_one, COUNT_PLACEHOLDERS),
            ("words.time.minutes", &t.minutes, COUNT_PLACEHOLDERS),
            ("words.time.second_one", &t.second_one, COUNT_PLACEHOLDERS),
            ("words.time.seconds", &t.seconds, COUNT_PLACEHOLDERS),
            ("words.time.move_one", &t.move_one, COUNT_PLACEHOLDERS),
            ("words.time.moves", &t.moves, COUNT_PLACEHOLDERS),
            ("words.time.pair", &t.pair, &["first", "second"]),
        ];
        for (key, template, allowed) in templates {
            check_template(key, template, allowed, problems);
        }
        match (&t.day_one, &t.days) {
            (Some(one), Some(many)) => {
                check_template("words.time.day_one", one, COUNT_PLACEHOLDERS, problems);
                check_template("words.time.days", many, COUNT_PLACEHOLDERS, problems);
            }
            (None, None) => {}
            _ => problems.push("words.time: day_one and days go together".to_owned()),
        }
        let correspondence: [(&str, &Option<String>, &[&str]); 3] = [
            ("words.time.days_left", &t.days_left, &["time"]),
            (
                "words.time.days_left_both",
                &t.days_left_both,
                &["white", "black"],
            ),
            ("words.time.time_exceeded", &t.time_exceeded, &[]),
        ];
        for (key, template, allowed) in correspondence {
            if let Some(template) = template {
                check_template(key, template, allowed, problems);
            }
        }
    }

    fn check_events(&self, problems: &mut Vec<String>) {
        for (key, allowed) in EVENT_KEYS {
            match self.events.get(*key) {
                None => problems.push(format!("words.events.{key} is missing")),
                Some(template) => {
                    check_template(&format!("words.events.{key}"), template, allowed, problems)
                }
            }
        }
        for key in self.events.keys() {
            if !EVENT_KEYS.iter().any(|(k, _)| k == key) {
                problems.push(format!("words.events.{key} is not a known event"));
            }
        }
    }

    fn check_pronunciation(&self, problems: &mut Vec<String>) {
        for (written, spoken) in &self.spoken {
            if written.trim().is_empty() || spoken.trim().is_empty() {
                problems.push(format!(
                    "words.spoken: `{written}` = `{spoken}` has an empty side"
                ));
            }
        }
        for (written, phonemes) in &self.phonemes {
            if written.trim().is_empty() || phonemes.trim().is_empty() {
                problems.push(format!(
                    "words.phonemes: `{written}` = `{phonemes}` has an empty side"
                ));
            } else if phonemes.contains(['[', ']']) {
                problems.push(format!(
                    "words.phonemes: `{written}` = `{phonemes}`: give the phonemes without [[ ]]"
                ));
            }
        }
        if let Some(t) = &self.record.move_heading {
            check_template("words.record.move", t, &["number", "color"], problems);
        }
    }

    /// The written words that have a spoken form, with it.
    pub fn spoken_forms(&self) -> impl Iterator<Item = (&str, &str)> {
        self.spoken.iter().map(|(w, s)| (w.as_str(), s.as_str()))
    }

    /// The template of the audio record's move heading (`{number}`, `{color}`).
    pub fn record_move(&self) -> &str {
        self.record
            .move_heading
            .as_deref()
            .unwrap_or(DEFAULT_RECORD_MOVE)
    }

    /// The name of a file ("Anna" for a).
    pub fn file(&self, file: File) -> &str {
        self.files.get(usize::from(file)).map_or("", String::as_str)
    }

    /// The name of a rank ("eins" for 1).
    pub fn rank(&self, rank: Rank) -> &str {
        self.ranks.get(usize::from(rank)).map_or("", String::as_str)
    }

    /// The name of a piece ("Springer").
    pub fn piece(&self, role: Role) -> &str {
        self.pieces.get(role)
    }

    /// A piece with its definite article, as the subject of a sentence ("der Springer"); the
    /// bare name where the language file gives none.
    pub fn definite_piece(&self, role: Role) -> &str {
        self.pieces_definite
            .as_ref()
            .map_or_else(|| self.piece(role), |p| p.get(role))
    }

    /// A piece with its colour, as the object of a correction ("weißen Springer").
    pub fn colored_piece(&self, piece: Piece) -> &str {
        match piece.color {
            Color::White => self.white_pieces.get(piece.role),
            Color::Black => self.black_pieces.get(piece.role),
        }
    }

    /// A piece with its colour as the subject, naming what stands on a square ("weißer
    /// Springer"); the object form where the language file gives no other.
    pub fn named_piece(&self, piece: Piece) -> &str {
        let named = match piece.color {
            Color::White => &self.white_pieces_named,
            Color::Black => &self.black_pieces_named,
        };
        named
            .as_ref()
            .map_or_else(|| self.colored_piece(piece), |p| p.get(piece.role))
    }

    /// The colour standing alone ("Weiß").
    pub fn color(&self, color: Color) -> &str {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    pub fn castling(&self, side: CastlingSide) -> &str {
        match side {
            CastlingSide::KingSide => &self.moves.short_castling,
            CastlingSide::QueenSide => &self.moves.long_castling,
        }
    }

    pub fn moves(&self) -> &MoveWords {
        &self.moves
    }

    pub fn numbers(&self) -> &NumberWords {
        &self.numbers
    }

    pub fn time(&self) -> &TimeWords {
        &self.time
    }

    /// The template of an event (a key of [`EVENT_KEYS`]).
    pub fn event(&self, key: &str) -> Option<&str> {
        self.events.get(key).map(String::as_str)
    }

    /// Extra words read back, each with its meaning (one of [`ACCEPT_MEANINGS`]).
    pub fn accepted(&self) -> impl Iterator<Item = (&str, &str)> {
        self.accept.iter().map(|(w, m)| (w.as_str(), m.as_str()))
    }
}

/// The TOML key of a role in `[words.pieces]`.
pub fn role_key(role: Role) -> &'static str {
    match role {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    }
}

fn check_word(key: &str, word: &str, in_moves: bool, problems: &mut Vec<String>) {
    if word.trim().is_empty() {
        problems.push(format!("{key} is empty"));
    } else if word.chars().any(|c| c.is_ascii_digit()) {
        problems.push(format!(
            "{key} = {word:?}: write numbers as words; voices misread digits"
        ));
    } else if in_moves
        && let Some(letter) = word
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| w.chars().count() == 1)
    {
        problems.push(format!(
            "{key} = {word:?}: the single letter {letter:?} is misread by voices \
             (and typed letters a to h are files)"
        ));
    }
}

fn check_template(key: &str, template: &str, allowed: &[&str], problems: &mut Vec<String>) {
    if template.trim().is_empty() {
        problems.push(format!("{key} is empty"));
        return;
    }
    if template.chars().any(|c| c.is_ascii_digit()) {
        problems.push(format!(
            "{key} = {template:?}: write numbers as words; voices misread digits"
        ));
    }
    match placeholders(template) {
        Err(why) => problems.push(format!("{key} = {template:?}: {why}")),
        Ok(names) => {
            let unknown: BTreeSet<&str> =
                names.into_iter().filter(|n| !allowed.contains(n)).collect();
            if !unknown.is_empty() {
                let allowed = if allowed.is_empty() {
                    "none".to_owned()
                } else {
                    allowed
                        .iter()
                        .map(|a| format!("{{{a}}}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let unknown: Vec<String> = unknown.iter().map(|u| format!("{{{u}}}")).collect();
                problems.push(format!(
                    "{key}: unknown placeholder {}; allowed: {allowed}",
                    unknown.join(", ")
                ));
            }
        }
    }
}

mod template;
pub use template::{fill, placeholders};

#[cfg(test)]
mod tests;
