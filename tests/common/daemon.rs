//! `annabella serve` for tests: started on a state directory (and a configuration, if any) with
//! the control interface on a port the system picks, ready when its log says so; control
//! clients connected by role with the tokens it keeps in the state directory.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use super::control::ControlClient;
use super::process::{BIN, Running};

/// How `annabella serve` is to be started; [`Serve::start`] starts it.
pub struct Serve {
    state_dir: PathBuf,
    config: Option<PathBuf>,
    listen: String,
    web: String,
    args: Vec<OsString>,
    /// A program (and its arguments) that runs the daemon: `PROGRAM ARGS… annabella serve …`.
    wrapper: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
}

impl Serve {
    /// `annabella serve --state-dir STATE_DIR`, its control interface on 127.0.0.1 at a port
    /// the system picks, the web page off, logging at level info.
    pub fn new(state_dir: &Path) -> Serve {
        Serve {
            state_dir: state_dir.to_owned(),
            config: None,
            listen: "127.0.0.1:0".to_owned(),
            web: "off".to_owned(),
            args: Vec::new(),
            wrapper: Vec::new(),
            env: Vec::new(),
        }
    }

    /// Runs the daemon through another program (which ends by executing its arguments), such
    /// as `unshare … sh -c SCRIPT sh` to give it a file system of its own; the daemon keeps the
    /// process id the test sees.
    pub fn wrapped<S: Into<OsString>>(mut self, program: impl IntoIterator<Item = S>) -> Serve {
        self.wrapper = program.into_iter().map(Into::into).collect();
        self
    }

    /// An environment variable for the daemon (or its wrapper).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Serve {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Reads this configuration file; the control and web addresses set here and the state
    /// directory still override it, as flags do.
    pub fn config(mut self, path: &Path) -> Serve {
        self.config = Some(path.to_owned());
        self
    }

    /// The control interface's address (`--listen`).
    pub fn listen(mut self, addr: &str) -> Serve {
        addr.clone_into(&mut self.listen);
        self
    }

    /// The web page's address (`--web`), such as `127.0.0.1:0`, or `off`.
    pub fn web(mut self, addr: &str) -> Serve {
        addr.clone_into(&mut self.web);
        self
    }

    /// Further flags, such as `--peg DEVICE` or `--speech transcript:FILE`.
    pub fn args<S: Into<OsString>>(mut self, args: impl IntoIterator<Item = S>) -> Serve {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Starts the daemon and waits until it is ready (its `ready` log line, which also says
    /// where it listens).
    pub fn start(self) -> Daemon {
        let mut command = match self.wrapper.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(BIN);
                c
            }
            None => super::process::bin_command(),
        };
        command.arg("serve");
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(config) = &self.config {
            command.arg("--config").arg(config);
        }
        command
            .arg("--state-dir")
            .arg(&self.state_dir)
            .args(["--listen", &self.listen, "--web", &self.web])
            .args(&self.args)
            .env("RUST_LOG", "info")
            .env_remove("ANNABELLA_TOKEN");
        let started = Instant::now();
        let mut process = Running::start_log(&mut command);
        let ready = process.expect("ready", |l| ready_addresses(l).is_some());
        let ready_after = started.elapsed();
        let (control, web) = ready_addresses(&ready).expect("the ready line's addresses");
        Daemon {
            process,
            control,
            web,
            state_dir: self.state_dir,
            ready_after,
        }
    }
}

/// The control and web addresses from the daemon's `ready` log line, in either log format.
fn ready_addresses(line: &str) -> Option<(SocketAddr, Option<SocketAddr>)> {
    let web = |text: &str| -> Option<Option<SocketAddr>> {
        match text {
            "off" => Some(None),
            url => {
                let addr = url.strip_prefix("http://")?.trim_end_matches('/');
                Some(Some(addr.parse().ok()?))
            }
        }
    };
    if line.starts_with('{') {
        let json: serde_json::Value = serde_json::from_str(line).ok()?;
        let fields = &json["fields"];
        if fields["message"] != "ready" {
            return None;
        }
        let control = fields["address"].as_str()?.parse().ok()?;
        return Some((control, web(fields["web"].as_str()?)?));
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    if !words.contains(&"ready") {
        return None;
    }
    let field = |name: &str| {
        words
            .iter()
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
    };
    Some((field("address")?.parse().ok()?, web(field("web")?)?))
}

/// A running `annabella serve`; killed when dropped.
pub struct Daemon {
    process: Running,
    /// Where the control interface listens.
    pub control: SocketAddr,
    /// Where the web page is served, unless it is off.
    pub web: Option<SocketAddr>,
    /// The state directory: tokens, journal, finished games.
    pub state_dir: PathBuf,
    /// From starting the process to its `ready` line.
    pub ready_after: Duration,
}

impl Daemon {
    /// The token the daemon keeps in its state directory for `role` (white, black, observer,
    /// assistant, arbiter).
    pub fn token(&self, role: &str) -> String {
        use annabella::io::tokens;
        let path = self.state_dir.join(tokens::TOKENS_FILE);
        let raw =
            tokens::read_file(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let role = role
            .parse()
            .unwrap_or_else(|e| panic!("role {role:?}: {e:?}"));
        tokens::token_for(&raw, role, None)
            .unwrap_or_else(|| panic!("no token for {role} in {}", path.display()))
    }

    /// A control client authenticated as `role`.
    pub fn connect(&self, role: &str) -> ControlClient {
        ControlClient::authenticated(self.control, &self.token(role))
    }

    /// A client with `role` on `table`, hearing its events.
    pub fn watching(&self, role: &str, table: &str) -> ControlClient {
        let mut c = self.connect(role);
        assert_eq!(
            c.ask(&format!("table {table}")),
            format!("ok table {table}")
        );
        assert!(c.ask("events").starts_with("ok"));
        c
    }

    /// Waits for a log line satisfying `want`.
    pub fn expect_log(&mut self, what: &str, want: impl Fn(&str) -> bool) -> String {
        self.process.expect(what, want)
    }

    /// The daemon's process id, to read its memory and open files in `/proc`.
    pub fn pid(&self) -> u32 {
        self.process.id()
    }

    /// SIGTERM, as a service manager stops it; waits for the end.
    pub fn terminate(&mut self) -> ExitStatus {
        self.process.terminate()
    }

    /// SIGKILL: no shutdown, no flush; only what the journal already holds survives.
    pub fn kill9(mut self) {
        self.process.kill();
    }
}

impl Daemon {
    /// Stops the daemon (SIGTERM) and returns every line of its log.
    pub fn stop_and_read_log(mut self) -> Vec<String> {
        self.process.terminate();
        self.process.lines_to_end()
    }
}

impl Daemon {
    /// The bytes of log the daemon has written up to now (every line that has arrived).
    pub fn log_bytes_now(&mut self) -> usize {
        self.process.take_arrived();
        self.process.seen_bytes()
    }

    /// The bytes of log read so far (the lines up to `ready`, and any a test waited for).
    pub fn log_bytes_so_far(&self) -> usize {
        self.process.seen_bytes()
    }
}
