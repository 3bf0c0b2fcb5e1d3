//! `annabella send`: the control interface's client (`docs/control-protocol.md`) — connects,
//! authenticates, sends each request and prints the replies and event lines.
//!
//! Exit status: 0 when every reply was `ok`, 1 on an `error` reply (printed to standard error),
//! 2 when the daemon could not be reached.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use crate::config::ControlSettings;
use crate::control::hub::patience;
use crate::io::lines::{self, Line, LineSplitter};
use crate::io::tokens;
use crate::table::control::{MAX_LINE_BYTES, Role, RoleError};

/// The environment variable `send` reads a token from when `--token` is not given.
pub const TOKEN_VARIABLE: &str = "ANNABELLA_TOKEN";
/// Longest reply line read (a scoresheet is long, but not this long).
const MAX_REPLY_BYTES: usize = 1024 * 1024;
/// Bytes of an overlong reply skipped, waiting for its line feed, before `send` gives up.
const MAX_SKIPPED_REPLY_BYTES: usize = 4 * MAX_REPLY_BYTES;

#[derive(Debug, Args)]
pub struct SendArgs {
    /// The daemon's control address.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7421")]
    pub connect: String,
    /// The token. Other users can see command lines: prefer ANNABELLA_TOKEN or --role.
    #[arg(long)]
    pub token: Option<String>,
    /// Without --token or ANNABELLA_TOKEN: read this role's token (white, black, assistant,
    /// arbiter, observer) from <state-dir>/tokens.toml.
    #[arg(long, value_parser = parse_role)]
    pub role: Option<Role>,
    /// The daemon's state directory, where tokens.toml is.
    #[arg(long, value_name = "DIR", default_value = "/var/lib/annabella")]
    pub state_dir: PathBuf,
    /// The table to talk to (the token's first table otherwise).
    #[arg(long, value_name = "NAME")]
    pub table: Option<String>,
    /// The connection's language for SAN letters and spoken moves (a built-in code).
    #[arg(long, value_name = "CODE")]
    pub lang: Option<String>,
    /// Seconds to wait for the connection. A reply is waited for this long, and at least as
    /// long as the daemon may take to give one (60 s while a slow disk syncs its journal), so a
    /// late reply is printed rather than taken for a failure.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub timeout: u64,
    /// Requests, one per argument (`move e4`, `board`, `events`); `-` reads requests from
    /// standard input, one per line (blank lines and lines starting with # are skipped).
    /// Arguments stop at the first error reply; standard input goes on to the end.
    #[arg(required = true, value_name = "REQUEST")]
    pub requests: Vec<String>,
}

fn parse_role(text: &str) -> Result<Role, RoleError> {
    text.parse()
}

/// The connection and what has happened on it.
struct Session {
    addr: String,
    reader: BufReader<TcpStream>,
    lines: LineSplitter,
    writer: TcpStream,
    subscribed: bool,
}

/// After one request.
enum Step {
    Next,
    Failed,
    Quit,
}

/// A reply: `ok …` or `error …`.
enum Answer {
    Ok(String),
    Error(String),
}

impl Session {
    /// Sends one request and returns its reply, printing the event lines that arrive first.
    /// No reply in time says that the outcome is not known, never that the request failed.
    fn ask(&mut self, request: &str) -> anyhow::Result<Answer> {
        self.writer
            .write_all(format!("{request}\n").as_bytes())
            .with_context(|| format!("sending {:?} to {}", keyword(request), self.addr))?;
        loop {
            let line = match self.read_line() {
                Err(e) if timed_out(&e) => bail!(
                    "no reply from {} to {:?} in time; whether it was recorded is not known: \
                     ask sheet or status",
                    self.addr,
                    keyword(request)
                ),
                line => line?,
            };
            let Some(line) = line else {
                bail!(
                    "{} closed the connection before replying to {:?}",
                    self.addr,
                    keyword(request)
                );
            };
            if line.starts_with("event ") {
                print_line(&line);
            } else if line == "ok" || line.starts_with("ok ") {
                return Ok(Answer::Ok(line));
            } else {
                return Ok(Answer::Error(line));
            }
        }
    }

    /// Sends a request, prints its reply (an error to standard error).
    fn step(&mut self, request: &str) -> anyhow::Result<Step> {
        match self.ask(request)? {
            Answer::Ok(line) => {
                print_line(&line);
                if keyword(request).eq_ignore_ascii_case("events") {
                    self.subscribed = true;
                }
                if keyword(request).eq_ignore_ascii_case("quit") {
                    return Ok(Step::Quit);
                }
                Ok(Step::Next)
            }
            Answer::Error(line) => {
                print_error(&line);
                Ok(Step::Failed)
            }
        }
    }

    /// The daemon's next line, without its line feed (and carriage return); `None` when it
    /// has closed the connection. A line longer than [`MAX_REPLY_BYTES`] is an error.
    fn read_line(&mut self) -> anyhow::Result<Option<String>> {
        let line = lines::read_line(&mut self.reader, &mut self.lines)
            .with_context(|| format!("reading from {}", self.addr))?;
        match line {
            None => Ok(None),
            Some(Line::Text(bytes)) => {
                let text = String::from_utf8_lossy(&bytes);
                Ok(Some(text.trim_end_matches('\r').to_owned()))
            }
            Some(Line::TooLong(n)) => bail!(
                "{} sent a line of {n} bytes; at most {MAX_REPLY_BYTES}",
                self.addr
            ),
            Some(Line::Runaway) => bail!(
                "{} sent more than {MAX_SKIPPED_REPLY_BYTES} bytes without a line feed",
                self.addr
            ),
        }
    }
}

/// How long a reply is waited for: `timeout`, and at least as long as the daemon waits for a
/// table's answer (`control::hub::patience`) with ten seconds to spare.
fn reply_wait(timeout: Duration) -> Duration {
    let daemon = patience(ControlSettings::default().reply_timeout);
    timeout.max(daemon + Duration::from_secs(10))
}

/// A read that ended because no byte came in time.
fn timed_out(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| {
            matches!(
                io.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            )
        })
    })
}

/// The request's first word, for messages (never the token of `auth`).
fn keyword(request: &str) -> &str {
    request.split_whitespace().next().unwrap_or("")
}

fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn print_error(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The token: `--token`, else `ANNABELLA_TOKEN`, else the role's entry of the tokens file.
fn token(args: &SendArgs) -> anyhow::Result<String> {
    if let Some(token) = &args.token {
        return Ok(token.clone());
    }
    if let Ok(token) = std::env::var(TOKEN_VARIABLE)
        && !token.is_empty()
    {
        return Ok(token);
    }
    let Some(role) = args.role else {
        bail!(
            "no token: give --token TOKEN, set {TOKEN_VARIABLE}, or --role ROLE to read it from \
             {}",
            args.state_dir.join(tokens::TOKENS_FILE).display()
        );
    };
    let path = args.state_dir.join(tokens::TOKENS_FILE);
    let raw = tokens::read_file(&path)?;
    tokens::token_for(&raw, role, args.table.as_deref()).with_context(|| {
        format!(
            "{}: no {role} token{}",
            path.display(),
            args.table
                .as_deref()
                .map(|t| format!(" for table {t}"))
                .unwrap_or_default()
        )
    })
}

/// Refuses an argument with a line break before anything is sent: one argument is one
/// request, and a line feed would smuggle in a second.
fn check_arguments(args: &SendArgs) -> anyhow::Result<()> {
    for (i, request) in args.requests.iter().enumerate() {
        if request.contains(['\n', '\r']) {
            bail!(
                "request {} contains a line break; give each request as its own argument",
                i + 1
            );
        }
    }
    Ok(())
}

fn connect(addr: &str, timeout: Duration) -> Result<TcpStream, String> {
    let addrs: Vec<_> = addr
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {addr}: {e} (give ADDRESS:PORT)"))?
        .collect();
    let mut last = format!("cannot connect to {addr}: it resolves to no address");
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(stream) => return Ok(stream),
            Err(e) => {
                last = format!("cannot connect to {addr}: {e} (is `annabella serve` running?)")
            }
        }
    }
    Err(last)
}

pub fn run(args: SendArgs) -> anyhow::Result<ExitCode> {
    let token = token(&args)?;
    if token.len() > MAX_LINE_BYTES || token.contains(['\n', '\r']) {
        bail!("the token is no token: too long or several lines");
    }
    check_arguments(&args)?;
    let timeout = Duration::from_secs(args.timeout.max(1));
    let stream = match connect(&args.connect, timeout) {
        Ok(stream) => stream,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "annabella send: {message}");
            return Ok(ExitCode::from(2));
        }
    };
    stream.set_read_timeout(Some(reply_wait(timeout)))?;
    stream.set_write_timeout(Some(timeout))?;
    let mut session = Session {
        addr: args.connect.clone(),
        reader: BufReader::new(stream.try_clone()?),
        lines: LineSplitter::new(MAX_REPLY_BYTES, MAX_SKIPPED_REPLY_BYTES),
        writer: stream,
        subscribed: false,
    };
    // The connection's set-up: replies printed only when they refuse.
    let mut setup = vec![format!("auth {token}")];
    setup.extend(args.table.iter().map(|t| format!("table {t}")));
    setup.extend(args.lang.iter().map(|l| format!("lang {l}")));
    for request in &setup {
        if let Answer::Error(line) = session.ask(request)? {
            print_error(&line);
            return Ok(ExitCode::from(1));
        }
    }
    let mut failed = false;
    for argument in &args.requests {
        if argument == "-" {
            // Line by line, so that `send -` can be typed at.
            for line in std::io::stdin().lock().lines() {
                let line = line.context("reading requests from standard input")?;
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                match session.step(line)? {
                    Step::Next => {}
                    Step::Failed => failed = true,
                    Step::Quit => return Ok(ExitCode::from(u8::from(failed))),
                }
            }
        } else {
            match session.step(argument)? {
                Step::Next => {}
                Step::Failed => return Ok(ExitCode::from(1)),
                Step::Quit => return Ok(ExitCode::from(u8::from(failed))),
            }
        }
    }
    if session.subscribed {
        // Events until the daemon closes the connection (or the user interrupts).
        session.writer.set_read_timeout(None)?;
        while let Some(line) = session.read_line()? {
            print_line(&line);
        }
    }
    Ok(ExitCode::from(u8::from(failed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_waited_for_as_long_as_the_daemon_may_take() {
        // The daemon waits up to 60 s for a table syncing its journal slowly.
        assert_eq!(reply_wait(Duration::from_secs(10)), Duration::from_secs(70));
        assert_eq!(
            reply_wait(Duration::from_secs(100)),
            Duration::from_secs(100)
        );
        let late = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::WouldBlock))
            .context("reading from 127.0.0.1:7421");
        assert!(timed_out(&late));
        assert!(!timed_out(&anyhow::anyhow!("closed")));
    }
}
