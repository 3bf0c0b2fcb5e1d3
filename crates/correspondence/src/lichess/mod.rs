//! A live lichess game at a table (issue 26 point 3), pure: the Board API's stream lines as
//! types (`lines`), the time controls lichess lets a board seek or challenge with (`speed`),
//! and what a rebuilt move list means for the table (`rebuild`: which of the server's moves
//! are new for the table, which of the table's moves the server still lacks). The HTTP client,
//! the streams' supervision and the table's requests are adapters (`app::lichess_table`).

pub mod lines;
pub mod rebuild;
pub mod speed;
