//! Processes for tests: the built binary run to its end on given input, and long-running
//! children whose output lines a test waits for, killed when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::WAIT;

/// The binary under test, built by cargo for the integration tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_annabella");

/// The longest line a reader takes at once; a longer one arrives in pieces.
const MAX_LINE: u64 = 1 << 20;
/// How much of a child's other stream (the one not read as lines) is kept for messages.
const KEPT_BYTES: usize = 64 * 1024;

/// The binary under test as a command: run through `ANNABELLA_TEST_RUNNER` when that is set
/// (`qemu-aarch64 -L /` for a cross-built binary, which the kernel cannot exec without
/// binfmt_misc; scripts/cross/aarch64.sh sets it), else directly.
pub fn bin_command() -> Command {
    let runner = std::env::var("ANNABELLA_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            command.args(words).arg(BIN);
            command
        }
        None => Command::new(BIN),
    }
}

/// `annabella ARGS`, without the `ANNABELLA_TOKEN` of whoever runs the tests.
fn command(args: &[&str]) -> Command {
    let mut command = bin_command();
    command.args(args).env_remove("ANNABELLA_TOKEN");
    command
}

/// Starts `command` with all three streams piped.
fn spawn_piped(command: &mut Command) -> Child {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"))
}

/// Starts `annabella ARGS` with all three streams piped, for a test that handles them itself.
pub fn spawn(args: &[&str]) -> Child {
    spawn_piped(&mut command(args))
}

/// Runs `annabella ARGS` to its end with `env` set and `stdin` as its standard input.
pub fn annabella(args: &[&str], env: &[(&str, &str)], stdin: impl AsRef<[u8]>) -> Output {
    let mut command = command(args);
    command.envs(env.iter().copied());
    let mut child = spawn_piped(&mut command);
    // Written from another thread, so a child that answers before it has read everything
    // cannot stall on a full pipe while this one stalls on its input.
    let mut input = child.stdin.take().expect("stdin is piped");
    let bytes = stdin.as_ref().to_vec();
    let writer = std::thread::spawn(move || input.write_all(&bytes));
    let output = child.wait_with_output().expect("the binary's output");
    // The binary may refuse its arguments and exit before reading its input: a broken pipe is
    // that refusal, which the caller checks through the exit status and stderr.
    if let Err(e) = writer.join().expect("the input writer") {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {e}"
        );
    }
    output
}

/// A child's output as text; output that is not UTF-8 fails the test.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// The standard output of a finished run, as text.
pub fn stdout(o: &Output) -> String {
    text(&o.stdout)
}

/// The standard error of a finished run, as text.
pub fn stderr(o: &Output) -> String {
    text(&o.stderr)
}

/// Reads `reader` line by line until its end, handing each line (without its line feed, invalid
/// UTF-8 replaced) to `each` until that returns false. A last line without a line feed was cut
/// off (by a kill): it is handed on only if `cut_too`.
fn for_each_line(reader: impl Read, cut_too: bool, mut each: impl FnMut(String) -> bool) {
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.by_ref().take(MAX_LINE).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if line.ends_with(b"\n") => {
                line.pop();
            }
            // Longer than `MAX_LINE`: this piece now, the rest as the next line.
            Ok(n) if n as u64 == MAX_LINE => {}
            Ok(_) => {
                if cut_too {
                    each(String::from_utf8_lossy(&line).into_owned());
                }
                return;
            }
        }
        if !each(String::from_utf8_lossy(&line).into_owned()) {
            return;
        }
    }
}

/// Which of a [`Running`] child's output streams the test reads as lines.
#[derive(Clone, Copy, PartialEq)]
enum Watch {
    Stdout,
    /// Standard error, a log: its lines are also echoed to the test's output.
    Stderr,
}

/// A running child whose lines (of standard output, or of its log) arrive on a channel; its
/// other stream is echoed to the test's output (shown when a test fails) and its tail kept.
/// Killed when dropped.
pub struct Running {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line received so far, for failure messages and [`Running::lines_to_end`].
    seen: Vec<String>,
    other: Arc<Mutex<String>>,
    other_reader: JoinHandle<()>,
}

impl Running {
    /// Starts `command` with its standard output read as lines.
    pub fn start(command: &mut Command) -> Running {
        Running::spawn(command, Watch::Stdout)
    }

    /// Starts `command` with its standard error, a log, read as lines; each is echoed to the
    /// test's output too, whether or not the test waits for it.
    pub fn start_log(command: &mut Command) -> Running {
        Running::spawn(command, Watch::Stderr)
    }

    /// Starts `annabella ARGS` with its standard output read as lines.
    pub fn annabella(args: &[&str]) -> Running {
        Running::start(&mut command(args))
    }

    fn spawn(command: &mut Command, watch: Watch) -> Running {
        let name = Path::new(command.get_program())
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let mut child = spawn_piped(command);
        let stdin = child.stdin.take();
        let stdout: Box<dyn Read + Send> = Box::new(child.stdout.take().expect("piped"));
        let stderr: Box<dyn Read + Send> = Box::new(child.stderr.take().expect("piped"));
        let (watched, unwatched) = match watch {
            Watch::Stdout => (stdout, stderr),
            Watch::Stderr => (stderr, stdout),
        };
        let (tx, lines) = channel();
        let label = name.clone();
        // Threads spawned by a test write into its captured output.
        std::thread::spawn(move || {
            // A cut line is no line a test could rely on (a half-written acknowledgement).
            for_each_line(watched, false, |line| {
                if watch == Watch::Stderr {
                    eprintln!("{label}: {line}");
                    // The test may stop listening; the log still goes to its output.
                    tx.send(line).ok();
                    true
                } else {
                    tx.send(line).is_ok()
                }
            });
        });
        let other = Arc::new(Mutex::new(String::new()));
        let kept = other.clone();
        let label = name.clone();
        let other_reader = std::thread::spawn(move || {
            for_each_line(unwatched, true, |line| {
                eprintln!("{label}: {line}");
                let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                kept.push_str(&line);
                kept.push('\n');
                if kept.len() > 2 * KEPT_BYTES {
                    let cut = kept.ceil_char_boundary(kept.len() - KEPT_BYTES);
                    kept.drain(..cut);
                }
                true
            });
        });
        Running {
            name,
            child,
            stdin,
            lines,
            seen: Vec::new(),
            other,
            other_reader,
        }
    }

    /// The child's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The next line within `within`; `None` when none came in time or the output ended.
    pub fn next_line(&mut self, within: Duration) -> Option<String> {
        let line = self.lines.recv_timeout(within).ok()?;
        self.seen.push(line.clone());
        Some(line)
    }

    /// Waits up to [`WAIT`] for a line satisfying `want` and returns it; fails the test,
    /// showing every line seen, when none comes.
    pub fn expect(&mut self, what: &str, want: impl Fn(&str) -> bool) -> String {
        self.expect_within(what, WAIT, want)
    }

    /// [`Running::expect`] with its own patience.
    pub fn expect_within(
        &mut self,
        what: &str,
        within: Duration,
        want: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if want(&line) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no {what} from {} within {within:?}; saw {:#?}",
                    self.name, self.seen
                ),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.wait_within(Duration::from_secs(1));
                    let other = self.other_output();
                    panic!(
                        "no {what}: {} ended ({status:?}); saw {:#?}; its other output:\n{other}",
                        self.name, self.seen
                    )
                }
            }
        }
    }

    /// Waits for the line `exact`.
    pub fn expect_line(&mut self, exact: &str) {
        self.expect(exact, |l| l == exact);
    }

    /// Writes `line` and a line feed to the child's standard input.
    pub fn type_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Kills the child (SIGKILL: nothing of its own shutdown runs) and reaps it.
    pub fn kill(&mut self) -> ExitStatus {
        let _ = self.child.kill();
        self.wait()
    }

    /// Sends SIGTERM and waits up to [`WAIT`] for the child to end.
    pub fn terminate(&mut self) -> ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill -TERM {} failed", self.id());
        self.wait_within(WAIT)
            .unwrap_or_else(|| panic!("{} did not stop on SIGTERM within {WAIT:?}", self.name))
    }

    /// Waits for the child to end, however long it takes.
    pub fn wait(&mut self) -> ExitStatus {
        self.child
            .wait()
            .unwrap_or_else(|e| panic!("waiting for {}: {e}", self.name))
    }

    /// The child's exit status once it ends within `within`; `None` if it is still running.
    pub fn wait_within(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().expect("the child's status") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Takes every line that has arrived so far without waiting (they join the lines seen).
    pub fn take_arrived(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            self.seen.push(line);
        }
    }

    /// The bytes of the lines received so far, line feeds counted.
    pub fn seen_bytes(&self) -> usize {
        self.seen.iter().map(|l| l.len() + 1).sum()
    }

    /// Every line of the watched stream, from the first, once the child has ended (after
    /// [`Running::kill`] or [`Running::wait`]): the lines not yet taken are read to the end.
    pub fn lines_to_end(&mut self) -> Vec<String> {
        loop {
            match self.lines.recv_timeout(WAIT) {
                Ok(line) => self.seen.push(line),
                Err(RecvTimeoutError::Disconnected) => return self.seen.clone(),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("the output of {} did not end within {WAIT:?}", self.name)
                }
            }
        }
    }

    /// The tail of the stream not read as lines (standard error, or standard output of a child
    /// whose log is read); complete once the child has ended.
    pub fn other_output(&mut self) -> String {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            // The reader ends with the stream; a grandchild holding it open is not waited for.
            let deadline = Instant::now() + Duration::from_secs(1);
            while !self.other_reader.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        self.other.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
