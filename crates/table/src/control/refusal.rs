//! The reply side of the control language as the core writes it: why a request is refused (the
//! error codes), the refusal itself, and the `ok …` line.

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

    /// The reply line, without its line feed; the message never contains one.
    pub fn line(&self) -> String {
        format!("error {} {}", self.code.as_str(), one_line(&self.message))
    }
}

/// A successful reply line: `ok` and what it says.
pub fn ok_line(text: &str) -> String {
    if text.is_empty() {
        "ok".to_owned()
    } else {
        format!("ok {}", one_line(text))
    }
}

/// Replies are one line each: control characters (a newline in a move text echoed back, say)
/// become spaces.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_always_one_line() {
        assert!(!Refusal::new(ErrorCode::Move, "a\nb").line().contains('\n'));
        assert_eq!(ok_line("e2e4 e4"), "ok e2e4 e4");
    }
}
