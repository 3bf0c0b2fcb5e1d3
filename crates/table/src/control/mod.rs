//! The control interface's language, without the socket: request lines parsed into requests
//! typed by who answers them, the one table that declares every request, roles and what each
//! may do, and the reply lines (`ok …`, `error <code> <message>`).
//!
//! Assistants, arbiters and correspondence players type these lines (with `nc`, or through
//! `annabella send`); a malformed line gets an error reply naming what was wrong, never a crash.
//!
//! - [`request`]: the request types — for the connection, the desk or a table.
//! - [`vocabulary`]: every request declared once (keyword, example, access, answerer, parser),
//!   and the line parser.
//! - [`arguments`]: each request's arguments read from its line.
//! - [`permissions`]: roles and the checks made from the declared access.
//! - [`refusal`]: error codes, refusals and the `ok` line.

pub mod arguments;
pub mod permissions;
pub mod refusal;
pub mod request;
pub mod vocabulary;

pub use arguments::promotion_piece;
pub use permissions::{Role, RoleError, permitted, permitted_to_role};
pub use refusal::{ErrorCode, Refusal};
pub use request::{
    ConnectionRequest, DeskRequest, ExportFormat, GameTag, MAX_TAG_CHARS, MailRequest, Request,
    Resolve, TableRequest,
};
pub use vocabulary::{
    Access, Answerer, KEYWORDS, Keywords, MAX_LINE_BYTES, REQUESTS, RequestSpec, parse_line,
    parse_line_in, parse_table_line,
};
