//! ICCF's XFCC web service (SOAP 1.1, namespace `http://www.bennedik.com/webservices/XfccBasic`),
//! pure: the `GetMyGames` and `MakeAMove` envelopes written (every text XML-escaped, the
//! credentials in the body as the service wants them), the answers read back — each
//! `XfccGame`, the `MakeAMoveResult` code, a SOAP Fault — and a game's movetext split into its
//! SAN moves. Reading is bounded (size, depth, elements) and never panics: any input is a
//! value or an [`XfccError`]. The HTTP calls are the daemon's (`app::server_desk::xfcc`).

mod tree;

pub use tree::{Node, parse_tree};

use quick_xml::escape::escape;

/// The service's XML namespace.
pub const NAMESPACE: &str = "http://www.bennedik.com/webservices/XfccBasic";
/// The content type of every call (SOAP 1.1).
pub const CONTENT_TYPE: &str = "text/xml; charset=utf-8";
/// The largest answer read (GetMyGames with a few hundred games is far smaller).
pub const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;
/// The most moves read from one game's movetext.
pub const MAX_PLIES: usize = 1200;

/// The operations annabella calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    GetMyGames,
    MakeAMove,
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Operation::GetMyGames => "GetMyGames",
            Operation::MakeAMove => "MakeAMove",
        }
    }

    /// The `SOAPAction` header's value, quotes included.
    pub fn soap_action(self) -> String {
        format!("\"{NAMESPACE}/{}\"", self.name())
    }
}

/// The `MakeAMove` call's arguments besides the credentials.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MoveCall {
    /// The server's game id.
    pub game_id: i64,
    /// The full-move number of the move sent (Black's second move is 2).
    pub movecount: u32,
    /// The move in English SAN; empty with a resignation or a draw accepted without a move.
    pub my_move: String,
    pub offer_draw: bool,
    pub accept_draw: bool,
    pub claim_draw: bool,
    pub resign: bool,
    pub message: String,
}

/// The full-move number of the half-move at index `ply` (0-based) of a game from the standard
/// position: White's first move is 1, Black's first move is 1, Black's second move is 2.
pub fn movecount(ply: usize) -> u32 {
    u32::try_from(ply / 2 + 1).unwrap_or(u32::MAX)
}

fn envelope(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <soap:Envelope xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" \
         xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">\
         <soap:Body>{body}</soap:Body></soap:Envelope>"
    )
}

fn element(name: &str, text: &str) -> String {
    format!("<{name}>{}</{name}>", escape(text))
}

fn flag(name: &str, on: bool) -> String {
    element(name, if on { "true" } else { "false" })
}

/// The `GetMyGames` call.
pub fn get_my_games(user: &str, password: &str) -> String {
    envelope(&format!(
        "<GetMyGames xmlns=\"{NAMESPACE}\">{}{}</GetMyGames>",
        element("username", user),
        element("password", password)
    ))
}

/// The `MakeAMove` call, every flag written (`true`/`false`) as the known clients do.
pub fn make_a_move(user: &str, password: &str, call: &MoveCall) -> String {
    envelope(&format!(
        "<MakeAMove xmlns=\"{NAMESPACE}\">{}{}{}{}{}{}{}{}{}{}</MakeAMove>",
        element("username", user),
        element("password", password),
        element("gameId", &call.game_id.to_string()),
        flag("resign", call.resign),
        flag("acceptDraw", call.accept_draw),
        element("movecount", &call.movecount.to_string()),
        element("myMove", &call.my_move),
        flag("offerDraw", call.offer_draw),
        flag("claimDraw", call.claim_draw),
        element("myMessage", &call.message),
    ))
}

/// What went wrong reading an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum XfccError {
    #[error("the answer is not XML the service writes: {0}")]
    Xml(String),
    #[error("the answer is larger than {MAX_ANSWER_BYTES} bytes")]
    TooLarge,
    #[error("the answer has no {0}")]
    Missing(&'static str),
    /// A SOAP Fault; `code` when its text names a result code (as Scid reads them).
    #[error("the server answered with a fault: {text}")]
    Fault {
        text: String,
        code: Option<ResultCode>,
    },
}

/// `MakeAMoveResult`: ICCF's codes (spelling theirs), Scid's `FeatureUnavailable`, and any
/// other text kept as it came.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ResultCode {
    Success,
    ServerError,
    AuthenticationFailed,
    InvalidGameID,
    NotYourGame,
    NotYourTurn,
    InvalidMoveNumber,
    InvalidMove,
    NoDrawWasOffered,
    LostOnTime,
    YouAreOnLeave,
    MoveIsAmbigous,
    ClaimsNotSupported,
    MustOfferDraw,
    CannotOfferDraw,
    MoveDoesNotMatchPreviousConditional,
    ConditionalsAlreadyExist,
    TournamentNotYetStarted,
    FeatureUnavailable,
    Unknown(String),
}

/// Every known code with its text, in ICCF's order.
pub const RESULT_CODES: [(&str, ResultCode); 19] = [
    ("Success", ResultCode::Success),
    ("ServerError", ResultCode::ServerError),
    ("AuthenticationFailed", ResultCode::AuthenticationFailed),
    ("InvalidGameID", ResultCode::InvalidGameID),
    ("NotYourGame", ResultCode::NotYourGame),
    ("NotYourTurn", ResultCode::NotYourTurn),
    ("InvalidMoveNumber", ResultCode::InvalidMoveNumber),
    ("InvalidMove", ResultCode::InvalidMove),
    ("NoDrawWasOffered", ResultCode::NoDrawWasOffered),
    ("LostOnTime", ResultCode::LostOnTime),
    ("YouAreOnLeave", ResultCode::YouAreOnLeave),
    ("MoveIsAmbigous", ResultCode::MoveIsAmbigous),
    ("ClaimsNotSupported", ResultCode::ClaimsNotSupported),
    ("MustOfferDraw", ResultCode::MustOfferDraw),
    ("CannotOfferDraw", ResultCode::CannotOfferDraw),
    (
        "MoveDoesNotMatchPreviousConditional",
        ResultCode::MoveDoesNotMatchPreviousConditional,
    ),
    (
        "ConditionalsAlreadyExist",
        ResultCode::ConditionalsAlreadyExist,
    ),
    (
        "TournamentNotYetStarted",
        ResultCode::TournamentNotYetStarted,
    ),
    ("FeatureUnavailable", ResultCode::FeatureUnavailable),
];

impl ResultCode {
    /// The code for a text (surrounding blanks ignored); an unknown text is kept.
    pub fn parse(text: &str) -> ResultCode {
        let text = text.trim();
        RESULT_CODES
            .iter()
            .find(|(t, _)| *t == text)
            .map_or_else(|| ResultCode::Unknown(text.to_owned()), |(_, c)| c.clone())
    }

    /// The code's text as the service writes it.
    pub fn text(&self) -> &str {
        match self {
            ResultCode::Unknown(t) => t,
            known => RESULT_CODES
                .iter()
                .find(|(_, c)| c == known)
                .map_or("", |(t, _)| t),
        }
    }

    /// The voice key that tells him this code (`xfcc_result_*`), `xfcc_result_unknown` for
    /// a text the service has not published.
    pub fn voice_key(&self) -> &'static str {
        match self {
            ResultCode::Success => "xfcc_result_success",
            ResultCode::ServerError => "xfcc_result_server_error",
            ResultCode::AuthenticationFailed => "xfcc_result_authentication_failed",
            ResultCode::InvalidGameID => "xfcc_result_invalid_game_id",
            ResultCode::NotYourGame => "xfcc_result_not_your_game",
            ResultCode::NotYourTurn => "xfcc_result_not_your_turn",
            ResultCode::InvalidMoveNumber => "xfcc_result_invalid_move_number",
            ResultCode::InvalidMove => "xfcc_result_invalid_move",
            ResultCode::NoDrawWasOffered => "xfcc_result_no_draw_was_offered",
            ResultCode::LostOnTime => "xfcc_result_lost_on_time",
            ResultCode::YouAreOnLeave => "xfcc_result_you_are_on_leave",
            ResultCode::MoveIsAmbigous => "xfcc_result_move_is_ambiguous",
            ResultCode::ClaimsNotSupported => "xfcc_result_claims_not_supported",
            ResultCode::MustOfferDraw => "xfcc_result_must_offer_draw",
            ResultCode::CannotOfferDraw => "xfcc_result_cannot_offer_draw",
            ResultCode::MoveDoesNotMatchPreviousConditional => {
                "xfcc_result_move_does_not_match_conditional"
            }
            ResultCode::ConditionalsAlreadyExist => "xfcc_result_conditionals_already_exist",
            ResultCode::TournamentNotYetStarted => "xfcc_result_tournament_not_yet_started",
            ResultCode::FeatureUnavailable => "xfcc_result_feature_unavailable",
            ResultCode::Unknown(_) => "xfcc_result_unknown",
        }
    }

    /// Whether sending the same call again later may succeed (the server's own trouble);
    /// every other refusal is final for this call.
    pub fn is_transient(&self) -> bool {
        matches!(self, ResultCode::ServerError)
    }
}

/// A game's result as `GetMyGames` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameResult {
    Ongoing,
    WhiteWins,
    BlackWins,
    Draw,
    WhiteWinAdjudicated,
    BlackWinAdjudicated,
    DrawAdjudicated,
    WhiteDefaulted,
    BlackDefaulted,
    BothDefaulted,
    Cancelled,
    AdjudicationPending,
    Unknown(String),
}

impl GameResult {
    pub fn parse(text: &str) -> GameResult {
        match text.trim() {
            "" | "Ongoing" => GameResult::Ongoing,
            "WhiteWins" => GameResult::WhiteWins,
            "BlackWins" => GameResult::BlackWins,
            "Draw" => GameResult::Draw,
            "WhiteWinAdjudicated" => GameResult::WhiteWinAdjudicated,
            "BlackWinAdjudicated" => GameResult::BlackWinAdjudicated,
            "DrawAdjudicated" => GameResult::DrawAdjudicated,
            "WhiteDefaulted" => GameResult::WhiteDefaulted,
            "BlackDefaulted" => GameResult::BlackDefaulted,
            "BothDefaulted" => GameResult::BothDefaulted,
            "Cancelled" => GameResult::Cancelled,
            "AdjudicationPending" => GameResult::AdjudicationPending,
            other => GameResult::Unknown(other.to_owned()),
        }
    }

    /// The game is over on the server (an adjudication pending is not over yet).
    pub fn is_over(&self) -> bool {
        !matches!(
            self,
            GameResult::Ongoing | GameResult::AdjudicationPending | GameResult::Unknown(_)
        )
    }

    /// The winner (`Some(None)` a draw or both defaulted), `None` while it goes on or for a
    /// cancelled game.
    pub fn winner(&self) -> Option<Option<shakmaty::Color>> {
        use shakmaty::Color::{Black, White};
        match self {
            GameResult::WhiteWins | GameResult::WhiteWinAdjudicated => Some(Some(White)),
            GameResult::BlackDefaulted => Some(Some(White)),
            GameResult::BlackWins | GameResult::BlackWinAdjudicated => Some(Some(Black)),
            GameResult::WhiteDefaulted => Some(Some(Black)),
            GameResult::Draw | GameResult::DrawAdjudicated | GameResult::BothDefaulted => {
                Some(None)
            }
            _ => None,
        }
    }
}

/// Days, hours and minutes of reflection time left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeLeft {
    pub days: i64,
    pub hours: i64,
    pub minutes: i64,
}

/// One game of `GetMyGames`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct XfccGame {
    pub id: i64,
    pub white: String,
    pub black: String,
    pub event: String,
    pub site: String,
    pub my_turn: bool,
    pub has_white: bool,
    pub player: TimeLeft,
    pub opponent: TimeLeft,
    /// The movetext as sent (SAN, maybe with numbers, line breaks and a result).
    pub moves: String,
    pub draw_offered: bool,
    pub result: Option<GameResult>,
    /// The opponent's message, empty when none.
    pub message: String,
}

impl XfccGame {
    /// The game's SAN moves from its movetext.
    pub fn san(&self) -> Vec<String> {
        san_moves(&self.moves)
    }
}

/// The SAN moves of a movetext: move numbers (`12.`, `12...`, glued `12.Nf3`), results,
/// `{comments}`, `(variations)`, NAGs and `!?` marks left out; at most [`MAX_PLIES`].
pub fn san_moves(movetext: &str) -> Vec<String> {
    let mut moves = Vec::new();
    let mut depth_brace = false;
    let mut depth_paren = 0u32;
    let mut cleaned = String::with_capacity(movetext.len().min(64 * 1024));
    for c in movetext.chars().take(64 * 1024) {
        match c {
            '{' => depth_brace = true,
            '}' => depth_brace = false,
            '(' if !depth_brace => depth_paren = depth_paren.saturating_add(1),
            ')' if !depth_brace => depth_paren = depth_paren.saturating_sub(1),
            _ if depth_brace || depth_paren > 0 => {}
            _ => cleaned.push(c),
        }
        if (c == '{' || c == '(' || c == ')' || c == '}') && !cleaned.ends_with(' ') {
            cleaned.push(' ');
        }
    }
    for raw in cleaned.split_whitespace() {
        if matches!(raw, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*") || raw.starts_with('$') {
            continue;
        }
        // Castling written with zeros, as some clients do.
        let raw = raw.replace("0-0-0", "O-O-O").replace("0-0", "O-O");
        let token = raw.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        let token = token.trim_end_matches(['!', '?']);
        if token.is_empty() {
            continue;
        }
        if moves.len() == MAX_PLIES {
            break;
        }
        moves.push(token.to_owned());
    }
    moves
}

/// The body of a SOAP answer: the answer's element (`GetMyGamesResponse`, …), or the fault.
fn body(xml: &str) -> Result<Node, XfccError> {
    if xml.len() > MAX_ANSWER_BYTES {
        return Err(XfccError::TooLarge);
    }
    let root = parse_tree(xml).map_err(XfccError::Xml)?;
    let body = root
        .find("Body")
        .ok_or(XfccError::Missing("soap:Body"))?
        .clone();
    if let Some(fault) = body.find("Fault") {
        let text = fault
            .child("faultstring")
            .map(|n| n.text.trim().to_owned())
            .unwrap_or_default();
        let text: String = text.chars().take(500).collect();
        // Scid reads a fault naming a code as that code.
        let code = RESULT_CODES
            .iter()
            .find(|(t, _)| text.contains(t))
            .map(|(_, c)| c.clone());
        return Err(XfccError::Fault { text, code });
    }
    Ok(body)
}

fn flag_of(node: &Node, name: &str) -> bool {
    node.child(name)
        .is_some_and(|n| n.text.trim().eq_ignore_ascii_case("true") || n.text.trim() == "1")
}

fn number_of(node: &Node, name: &str) -> i64 {
    node.child(name)
        .and_then(|n| n.text.trim().parse().ok())
        .unwrap_or(0)
}

fn text_of(node: &Node, name: &str) -> String {
    node.child(name).map(|n| n.text.clone()).unwrap_or_default()
}

/// `GetMyGames`'s answer: every game; a game without a numeric id is left out.
pub fn parse_my_games(xml: &str) -> Result<Vec<XfccGame>, XfccError> {
    let body = body(xml)?;
    let response = body
        .find("GetMyGamesResponse")
        .ok_or(XfccError::Missing("GetMyGamesResponse"))?;
    let Some(result) = response.child("GetMyGamesResult") else {
        return Ok(Vec::new());
    };
    Ok(result
        .children
        .iter()
        .filter(|g| g.name == "XfccGame")
        .filter_map(|g| {
            let id = g.child("id")?.text.trim().parse().ok()?;
            Some(XfccGame {
                id,
                white: text_of(g, "white"),
                black: text_of(g, "black"),
                event: text_of(g, "event"),
                site: text_of(g, "site"),
                my_turn: flag_of(g, "myTurn"),
                has_white: flag_of(g, "hasWhite"),
                player: TimeLeft {
                    days: number_of(g, "daysPlayer"),
                    hours: number_of(g, "hoursPlayer"),
                    minutes: number_of(g, "minutesPlayer"),
                },
                opponent: TimeLeft {
                    days: number_of(g, "daysOpponent"),
                    hours: number_of(g, "hoursOpponent"),
                    minutes: number_of(g, "minutesOpponent"),
                },
                moves: text_of(g, "moves"),
                draw_offered: flag_of(g, "drawOffered"),
                result: g.child("result").map(|r| GameResult::parse(&r.text)),
                message: text_of(g, "message"),
            })
        })
        .collect())
}

/// `MakeAMove`'s answer: its result code (a fault naming a code is that code's error).
pub fn parse_make_a_move(xml: &str) -> Result<ResultCode, XfccError> {
    let body = body(xml)?;
    let response = body
        .find("MakeAMoveResponse")
        .ok_or(XfccError::Missing("MakeAMoveResponse"))?;
    let result = response
        .child("MakeAMoveResult")
        .ok_or(XfccError::Missing("MakeAMoveResult"))?;
    Ok(ResultCode::parse(&result.text))
}

/// A call as a server reads it (the test server's side): the operation's element with its
/// arguments by name.
pub fn parse_call(xml: &str) -> Result<Node, XfccError> {
    let body = body(xml)?;
    body.children
        .first()
        .cloned()
        .ok_or(XfccError::Missing("the operation"))
}

/// A `MakeAMove` call read back: the credentials and the arguments.
pub fn parse_move_call(xml: &str) -> Result<(String, String, MoveCall), XfccError> {
    let call = parse_call(xml)?;
    if call.name != "MakeAMove" {
        return Err(XfccError::Missing("MakeAMove"));
    }
    Ok((
        text_of(&call, "username"),
        text_of(&call, "password"),
        MoveCall {
            game_id: number_of(&call, "gameId"),
            movecount: u32::try_from(number_of(&call, "movecount")).unwrap_or(0),
            my_move: text_of(&call, "myMove").trim().to_owned(),
            offer_draw: flag_of(&call, "offerDraw"),
            accept_draw: flag_of(&call, "acceptDraw"),
            claim_draw: flag_of(&call, "claimDraw"),
            resign: flag_of(&call, "resign"),
            message: text_of(&call, "myMessage"),
        },
    ))
}

#[cfg(test)]
mod tests;
