//! Who may ask what: the roles a token carries, and the checks made from each request's
//! declared [`Access`](super::vocabulary::Access) — by the control session before a request is
//! sent on, and by the table with its side to move.

use std::fmt;
use std::str::FromStr;

use shakmaty::Color;

use super::refusal::{ErrorCode, Refusal};
use super::request::TableRequest;
use super::vocabulary::{Access, RequestSpec};

/// Who is connected, as the token says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The player of one colour (moves only for his own side).
    Player(Color),
    /// The blind player's assistant (FIDE D.2.10): relays moves of both sides.
    Assistant,
    /// The arbiter: everything, including decisions about the clocks and the game.
    Arbiter,
    /// Reads only.
    Observer,
}

/// A word that names no role.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown role {0:?}; white, black, assistant, arbiter or observer")]
pub struct RoleError(pub String);

impl FromStr for Role {
    type Err = RoleError;

    fn from_str(s: &str) -> Result<Role, RoleError> {
        match s {
            "white" => Ok(Role::Player(Color::White)),
            "black" => Ok(Role::Player(Color::Black)),
            "assistant" => Ok(Role::Assistant),
            "arbiter" => Ok(Role::Arbiter),
            "observer" => Ok(Role::Observer),
            _ => Err(RoleError(s.to_owned())),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Player(Color::White) => "white",
            Role::Player(Color::Black) => "black",
            Role::Assistant => "assistant",
            Role::Arbiter => "arbiter",
            Role::Observer => "observer",
        })
    }
}

/// The part of [`permitted`] that needs no position: what the request's declared access allows
/// `role`. The control session applies it before a request leaves the connection.
pub fn permitted_to_role(role: Role, spec: &RequestSpec) -> Result<(), Refusal> {
    match spec.access {
        Access::Arbiter if role != Role::Arbiter => Err(Refusal::new(
            ErrorCode::Forbidden,
            format!("only the arbiter may {}; you are {role}", spec.keyword),
        )),
        Access::Players if role == Role::Observer => Err(Refusal::new(
            ErrorCode::Forbidden,
            format!(
                "an observer may only read; {} changes the game",
                spec.keyword
            ),
        )),
        _ => Ok(()),
    }
}

/// Whether `role` may send `request` when `side_to_move` is to move. Moves are further
/// checked by the table (legality); this is only who may ask.
///
/// The table applies this when it takes the request (the side to move is its own state, so
/// the check and the move cannot race); the control session applies [`permitted_to_role`] first.
pub fn permitted(role: Role, request: &TableRequest, side_to_move: Color) -> Result<(), Refusal> {
    permitted_to_role(role, request.spec())?;
    match (role, request) {
        (
            Role::Player(color),
            TableRequest::Move { .. } | TableRequest::MailMove { .. } | TableRequest::Undo,
        ) if color != side_to_move => Err(Refusal::new(
            ErrorCode::Forbidden,
            format!("you play {color}; it is {side_to_move}'s move"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::request::ConnectionRequest;

    #[test]
    fn who_may_do_what() {
        let mv = TableRequest::Move { text: "e4".into() };
        assert!(permitted(Role::Player(Color::White), &mv, Color::White).is_ok());
        let refused = permitted(Role::Player(Color::Black), &mv, Color::White).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden);
        // The refusals' lines are checked where they are written (`control::wire::reply`).
        assert_eq!(
            permitted(Role::Observer, &mv, Color::White)
                .unwrap_err()
                .code,
            ErrorCode::Forbidden
        );
        assert!(permitted(Role::Observer, &TableRequest::Board, Color::White).is_ok());
        assert!(permitted_to_role(Role::Observer, ConnectionRequest::Tables.spec()).is_ok());
        assert!(permitted_to_role(Role::Observer, TableRequest::Resign.spec()).is_err());
        assert!(permitted_to_role(Role::Player(Color::Black), mv.spec()).is_ok());
        assert!(permitted(Role::Assistant, &mv, Color::Black).is_ok());
        assert!(permitted(Role::Arbiter, &TableRequest::Resign, Color::Black).is_ok());
        assert!(
            permitted(
                Role::Player(Color::Black),
                &TableRequest::Resign,
                Color::White
            )
            .is_ok()
        );
        assert!(permitted(Role::Assistant, &TableRequest::Pause, Color::White).is_err());
        assert_eq!("assistant".parse::<Role>(), Ok(Role::Assistant));
        assert!("king".parse::<Role>().is_err());
    }
}
