//! Why a request is refused: the error codes and the refusal itself, as values. Their line
//! (`error <code> <message>`) is written at the edge (`annabella::control::wire`).

/// Why a request is refused; the code is the reply's second word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorCode {
    /// The line is not a request (unknown keyword, missing argument, too long, not UTF-8).
    Syntax,
    /// No `auth` yet, or a wrong token.
    Auth,
    /// The role may not do this (an observer moving, a player moving the other side).
    Forbidden,
    /// The move names no legal move (illegal, ambiguous, malformed).
    Move,
    /// Not now (game over, not this side's turn, undo after the clock started).
    State,
    /// Too many requests too fast.
    Rate,
}

impl ErrorCode {
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorCode::Syntax => "syntax",
            ErrorCode::Auth => "auth",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Move => "move",
            ErrorCode::State => "state",
            ErrorCode::Rate => "rate",
        }
    }
}

/// A refused request: `error <code> <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

/// The core's tests read refusals as the control line writes them, as a client would; the one
/// encoder the daemon uses is `annabella::control::wire::RefusalLine`, which this mirrors.
#[cfg(test)]
impl Refusal {
    pub(crate) fn line(&self) -> String {
        let message: String = self
            .message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!("error {} {message}", self.code.as_str())
    }
}
