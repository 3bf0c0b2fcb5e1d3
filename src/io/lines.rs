//! The one line reader of the control protocol: the daemon reading requests, `annabella send`
//! reading replies. A line is held up to a bound and no further; a longer one is skipped up to
//! its line feed, and a stream that sends too much without any line feed is given up on.
//!
//! The splitting is [`LineSplitter`], which sees only byte slices; [`LineReader`] feeds it from
//! a tokio reader and [`read_line`] from a blocking one, so both sides split lines alike.

use std::io::BufRead;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// One line read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// At most the bound, without its line feed (a carriage return before it is kept).
    Text(Vec<u8>),
    /// Longer than the bound; this many bytes were skipped, up to and without the line feed.
    TooLong(usize),
    /// More bytes than the runaway bound without a line feed; the stream is not sending lines,
    /// and every later read says so again.
    Runaway,
}

/// Splits bytes into bounded lines, holding at most `max` bytes of the current line.
#[derive(Debug, Clone)]
pub struct LineSplitter {
    line: Vec<u8>,
    skipped: usize,
    max: usize,
    runaway: usize,
}

impl LineSplitter {
    /// Lines of at most `max` bytes; a line skipped past `runaway` bytes ends as
    /// [`Line::Runaway`] without waiting for its line feed.
    pub fn new(max: usize, runaway: usize) -> LineSplitter {
        LineSplitter {
            line: Vec::new(),
            skipped: 0,
            max,
            runaway: runaway.max(max),
        }
    }

    /// Takes bytes from the front of `buf`: how many it used, and the line they finished, if
    /// any. Bytes after a finished line are left for the next call.
    pub fn feed(&mut self, buf: &[u8]) -> (usize, Option<Line>) {
        let newline = buf.iter().position(|&b| b == b'\n');
        let chunk = &buf[..newline.unwrap_or(buf.len())];
        if self.skipped > 0 {
            self.skipped = self.skipped.saturating_add(chunk.len());
        } else if self.line.len() + chunk.len() > self.max {
            self.skipped = self.line.len() + chunk.len();
            self.line = Vec::new();
        } else {
            self.line.extend_from_slice(chunk);
        }
        let used = newline.map_or(buf.len(), |i| i + 1);
        // Final: once a runaway, every further read says so (the reader closes the stream).
        if self.skipped > self.runaway {
            return (used, Some(Line::Runaway));
        }
        (used, newline.map(|_| self.take_line()))
    }

    /// At the end of the stream: the last line, when it had no line feed.
    pub fn finish(&mut self) -> Option<Line> {
        if self.skipped > 0 || !self.line.is_empty() {
            Some(self.take_line())
        } else {
            None
        }
    }

    fn take_line(&mut self) -> Line {
        if self.skipped > 0 {
            Line::TooLong(std::mem::take(&mut self.skipped))
        } else {
            Line::Text(std::mem::take(&mut self.line))
        }
    }
}

/// Reads bounded lines from a tokio reader. `next_line` is cancel-safe (its only await is
/// `fill_buf`, and what a call has read is taken over before the next await), so it can race
/// events and shutdown in a `select!`.
pub struct LineReader<R> {
    inner: BufReader<R>,
    splitter: LineSplitter,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R, max: usize, runaway: usize) -> LineReader<R> {
        LineReader {
            inner: BufReader::with_capacity(4096, inner),
            splitter: LineSplitter::new(max, runaway),
        }
    }

    /// The next line, or `None` at the end of the stream (a last line without a line feed
    /// counts).
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                return Ok(self.splitter.finish());
            }
            let (used, line) = self.splitter.feed(buf);
            self.inner.consume(used);
            if line.is_some() {
                return Ok(line);
            }
        }
    }
}

/// The next bounded line from a blocking reader, or `None` at the end of the stream; read
/// errors (a timeout set on a socket) are returned as they come.
pub fn read_line<R: BufRead>(
    reader: &mut R,
    splitter: &mut LineSplitter,
) -> std::io::Result<Option<Line>> {
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(splitter.finish());
        }
        let (used, line) = splitter.feed(buf);
        reader.consume(used);
        if line.is_some() {
            return Ok(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Line {
        Line::Text(s.as_bytes().to_vec())
    }

    /// Every line of `input`, fed in chunks of `chunk` bytes (as a socket may deliver them).
    fn split(input: &[u8], chunk: usize, max: usize, runaway: usize) -> Vec<Line> {
        let mut splitter = LineSplitter::new(max, runaway);
        let mut out = Vec::new();
        for piece in input.chunks(chunk) {
            let mut rest = piece;
            while !rest.is_empty() {
                let (used, line) = splitter.feed(rest);
                assert!(used > 0 && used <= rest.len());
                rest = &rest[used..];
                out.extend(line);
            }
        }
        out.extend(splitter.finish());
        out
    }

    #[test]
    fn lines_are_split_the_same_whatever_the_chunks() {
        let input = b"board\r\nmove e4\n\nlast";
        for chunk in [1, 2, 3, 7, 100] {
            assert_eq!(
                split(input, chunk, 10, 100),
                vec![text("board\r"), text("move e4"), text(""), text("last")],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn an_overlong_line_is_skipped_and_counted() {
        for chunk in [1, 4, 64] {
            assert_eq!(
                split(b"0123456789\n0123456789x\nok\n0123456789xy", chunk, 10, 100),
                vec![
                    text("0123456789"),
                    Line::TooLong(11),
                    text("ok"),
                    Line::TooLong(12)
                ],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn a_stream_without_line_feeds_is_a_runaway_and_memory_stays_bounded() {
        let mut splitter = LineSplitter::new(10, 100);
        let mut lines = Vec::new();
        for _ in 0..20 {
            let (used, line) = splitter.feed(&[b'x'; 8]);
            assert_eq!(used, 8);
            assert!(splitter.line.len() <= 10);
            lines.extend(line);
        }
        assert_eq!(lines.first(), Some(&Line::Runaway));
        assert_eq!(lines.len(), 8, "{lines:?}");
        assert_eq!(splitter.feed(b"\nok\n").1, Some(Line::Runaway));
        // A runaway bound below the line bound is raised to it: a whole line is never one.
        let mut tight = LineSplitter::new(10, 2);
        assert_eq!(tight.feed(b"0123456789\n"), (11, Some(text("0123456789"))));
    }

    #[tokio::test]
    async fn the_async_reader_splits_like_the_splitter() {
        let input: &[u8] = b"board\r\nmove e4\n0123456789x\nlast";
        let mut reader = LineReader::new(input, 10, 100);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.unwrap() {
            out.push(line);
        }
        assert_eq!(
            out,
            vec![
                text("board\r"),
                text("move e4"),
                Line::TooLong(11),
                text("last")
            ]
        );
        let runaway = vec![b'x'; 70_000];
        let mut reader = LineReader::new(&runaway[..], 512, 65_536);
        assert_eq!(reader.next_line().await.unwrap(), Some(Line::Runaway));
    }

    #[test]
    fn the_blocking_reader_splits_like_the_splitter() {
        let input: &[u8] = b"ok one\r\nevent two\n0123456789x\nlast";
        let mut reader = std::io::BufReader::with_capacity(3, input);
        let mut splitter = LineSplitter::new(10, 100);
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut reader, &mut splitter).unwrap() {
            out.push(line);
        }
        assert_eq!(
            out,
            vec![
                text("ok one\r"),
                text("event two"),
                Line::TooLong(11),
                text("last")
            ]
        );
        let mut empty: &[u8] = b"";
        assert_eq!(read_line(&mut empty, &mut splitter).unwrap(), None);
    }
}
