//! The live broadcast through the real daemon (`[broadcast]`, docs/servers.md): `games.pgn`
//! with every table's game after each move, read back with the PGN reader (pgn-reader under
//! `annabella::chess::pgn`); and the push of the round to a fake lichess endpoint written
//! from lichess's OpenAPI document (`POST /api/broadcast/round/{id}/push`, a bearer token,
//! `text/plain` PGN), which counts the pushes, answers 429 once and shows the coalescing.
//! Nothing here reaches the internet.

pub mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use annabella::chess::pgn::{ImportedGame, read_games};
use common::WAIT;
use common::control::ControlClient;
use common::daemon::{Daemon, Serve};
use common::fs::scratch_dir;

/// The token the fake lichess expects (a personal token's form: letters, digits, `_`).
const TOKEN: &str = "lip_broadcastTest123";
const ROUND: &str = "Ab12Cd34";

/// A configuration with two tables (both sides of each played through the control
/// interface) and the `[broadcast]` section's lines (none: no section).
fn serve(dir: &Path, broadcast: &str, env: &[(&str, &str)]) -> Daemon {
    serve_with_peg(dir, "none", broadcast, env)
}

/// [`serve`] with table-1's White on the peg board at `peg` (a device, or `none`).
fn serve_with_peg(dir: &Path, peg: &str, broadcast: &str, env: &[(&str, &str)]) -> Daemon {
    let config = dir.join("annabella.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[speech]
backends = "transcript:{transcript}"

[[table]]
name = "table-1"
peg = "{peg}"
peg_side = "white"
time_control = "5400+30"
white = "Anna Blind"
black = "Bob Sighted"
event = "IBCA Open"
site = "Berlin"
round = "3"

[[table]]
name = "table-2"
peg = "none"
time_control = "5400+30"
white = "Carla"
black = "Dieter"
event = "IBCA Open"
site = "Berlin"
round = "3"

{broadcast}
"#,
            transcript = dir.join("transcript.txt").display(),
            // An empty section would be refused: none at all when there is nothing in it.
            broadcast = if broadcast.is_empty() {
                String::new()
            } else {
                format!("[broadcast]\n{broadcast}")
            },
        ),
    )
    .unwrap();
    let mut serve = Serve::new(&dir.join("state")).config(&config);
    for (k, v) in env {
        serve = serve.env(k, v);
    }
    serve.start()
}

/// The two players of `table`, each on his own connection.
fn players(daemon: &Daemon, table: &str) -> (ControlClient, ControlClient) {
    let side = |role: &str| {
        let mut c = daemon.connect(role);
        assert_eq!(
            c.ask(&format!("table {table}")),
            format!("ok table {table}")
        );
        c
    };
    (side("white"), side("black"))
}

/// Plays `moves` alternately from White, each one's reply awaited; returns the slowest
/// reply's time.
fn play(white: &mut ControlClient, black: &mut ControlClient, moves: &[&str]) -> Duration {
    let mut slowest = Duration::ZERO;
    for (i, m) in moves.iter().enumerate() {
        let side = if i % 2 == 0 { &mut *white } else { &mut *black };
        let asked = Instant::now();
        let reply = side.ask(&format!("move {m}"));
        assert!(reply.starts_with("ok"), "move {m}: {reply}");
        slowest = slowest.max(asked.elapsed());
    }
    slowest
}

/// Waits until `read` gives something `want` accepts, polling with a deadline; returns it
/// and when it was seen.
fn wait_for<T>(
    what: &str,
    read: impl Fn() -> Option<T>,
    want: impl Fn(&T) -> bool,
) -> (T, Instant) {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(value) = read().filter(|v| want(v)) {
            return (value, Instant::now());
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not come within {WAIT:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The games of a round's PGN text, each read back whole (a game the reader refuses fails).
fn games(text: &str) -> Vec<ImportedGame> {
    read_games(text)
        .into_iter()
        .map(|g| g.unwrap_or_else(|e| panic!("a game of the round does not read: {e}\n{text}")))
        .collect()
}

fn tag<'a>(game: &'a ImportedGame, name: &str) -> &'a str {
    game.tags
        .iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v.as_str())
}

/// The SAN moves of a game read back.
fn sans(game: &ImportedGame) -> Vec<String> {
    let mut pos = game.game.start_position().clone();
    let mut out = Vec::new();
    for &m in game.game.moves() {
        out.push(shakmaty::san::San::from_move(&pos, m).to_string());
        shakmaty::Position::play_unchecked(&mut pos, m);
    }
    out
}

/// The round's file as it is now (a half-written file never shows: it is renamed into place).
fn read_round(path: &Path) -> Option<Vec<ImportedGame>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(games(&text))
}

#[test]
fn games_pgn_holds_every_tables_game_with_clocks_and_results() {
    let dir = scratch_dir("broadcast-file");
    let round_dir = dir.join("round");
    let mut daemon = serve(&dir, &format!("pgn_dir = \"{}\"", round_dir.display()), &[]);
    let path = round_dir.join("games.pgn");
    // At the start already: both tables' games, no moves yet, in configuration order.
    let (round, _) = wait_for(
        "the first games.pgn",
        || read_round(&path),
        |g| g.len() == 2,
    );
    assert_eq!(tag(&round[0], "White"), "Anna Blind");
    assert_eq!(tag(&round[1], "White"), "Carla");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "the Broadcaster app, another user, reads it");
    }

    let (w1, b1) = players(&daemon, "table-1");
    let (w2, mut b2) = players(&daemon, "table-2");
    let mut sides = [w1, b1, w2];
    let mut delays = Vec::new();
    // (who moves: 0 table-1's White, 1 its Black, 2 table-2's White, 3 its Black; the table;
    // the move; the table's half-moves after it)
    for (who, table, m, plies) in [
        (0, 0, "e4", 1),
        (2, 1, "d4", 1),
        (1, 0, "e5", 2),
        (3, 1, "Nf6", 2),
    ] {
        let side = if who == 3 { &mut b2 } else { &mut sides[who] };
        let sent = Instant::now();
        assert!(side.ask(&format!("move {m}")).starts_with("ok"));
        let (_, seen) = wait_for(
            &format!("{m} in games.pgn"),
            || read_round(&path),
            |g| g.len() == 2 && g[table].game.ply_count() == plies,
        );
        delays.push(seen - sent);
    }
    let (round, _) = wait_for("the round", || read_round(&path), |g| g.len() == 2);
    assert_eq!(sans(&round[0]), ["e4", "e5"]);
    assert_eq!(sans(&round[1]), ["d4", "Nf6"]);
    for game in &round {
        // Every move has its clock (`{[%clk 1:30:00]}` and on).
        assert!(game.clocks.iter().all(Option::is_some), "{:?}", game.clocks);
        for (name, value) in [
            ("Event", "IBCA Open"),
            ("Site", "Berlin"),
            ("Round", "3"),
            ("Result", "*"),
            ("TimeControl", "5400+30"),
        ] {
            assert_eq!(tag(game, name), value, "tag {name}");
        }
        assert!(
            tag(game, "Date").starts_with("20"),
            "{:?}",
            tag(game, "Date")
        );
    }
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("{ [%clk") || text.contains("{[%clk"),
        "{text}"
    );

    // An end: table-2's Black resigns; the finished game stays with its result.
    assert!(b2.ask("resign").starts_with("ok"));
    let (round, _) = wait_for(
        "the result in games.pgn",
        || read_round(&path),
        |g| g.len() == 2 && tag(&g[1], "Result") == "1-0",
    );
    assert_eq!(tag(&round[0], "Result"), "*");
    assert_eq!(sans(&round[1]), ["d4", "Nf6"]);
    // … until the table's next game begins.
    let mut arbiter = daemon.connect("arbiter");
    assert_eq!(arbiter.ask("table table-2"), "ok table table-2");
    assert!(arbiter.ask("new-game").starts_with("ok new game"));
    wait_for(
        "the next game in games.pgn",
        || read_round(&path),
        |g| g.len() == 2 && tag(&g[1], "Result") == "*" && g[1].game.ply_count() == 0,
    );

    // The arbiter sees what was written.
    let state = arbiter.ask("broadcast");
    assert!(
        state.starts_with("ok broadcast games 2; file ")
            && state.contains(" written ")
            && state.ends_with("push off"),
        "{state}"
    );
    assert!(
        daemon
            .connect("observer")
            .ask("broadcast")
            .starts_with("error")
    );
    // A move after a quiet spell (the last write a second old by the arbiter's account, so no
    // coalescing gap is left): the time the round itself takes.
    let mut quiet = Vec::new();
    for (ply, m) in [(3, "Bc4"), (4, "Bc5")] {
        wait_until_quiet(&mut arbiter);
        let side = if ply % 2 == 1 {
            &mut sides[0]
        } else {
            &mut sides[1]
        };
        let sent = Instant::now();
        assert!(side.ask(&format!("move {m}")).starts_with("ok"));
        let replied = Instant::now();
        let (_, seen) = wait_for(
            &format!("{m} in games.pgn"),
            || read_round(&path),
            |g| g.len() == 2 && g[0].game.ply_count() == ply,
        );
        quiet.push((seen - sent, seen.saturating_duration_since(replied)));
    }
    eprintln!(
        "figure: a move after a quiet spell → games.pgn shows it (from the request, which \
         includes the journal's synced write; from its reply): {quiet:?}"
    );
    let worst = delays.iter().max().unwrap();
    eprintln!(
        "figure: move request → games.pgn shows it, moves in a row: {:?} each, worst {worst:?}",
        delays
    );
    daemon.terminate();
}

/// Waits until the broadcast's last write is at least a second old, asking the arbiter's
/// `broadcast` within the control interface's rate.
fn wait_until_quiet(arbiter: &mut ControlClient) {
    let deadline = Instant::now() + WAIT;
    loop {
        let state = arbiter.ask("broadcast");
        let age = state
            .split(" written ")
            .nth(1)
            .and_then(|rest| rest.split('s').next())
            .and_then(|secs| secs.parse::<u64>().ok());
        if age.is_some_and(|secs| secs >= 1) {
            return;
        }
        assert!(Instant::now() < deadline, "never quiet: {state}");
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// One push as the fake lichess received it.
#[derive(Clone, Debug)]
struct Push {
    at: Instant,
    body: String,
}

/// The fake lichess broadcast push endpoint: checks the token and the body's type, records
/// every push, and answers 429 (with `Retry-After`) to the next one when told to.
#[derive(Clone, Default)]
struct FakeLichess {
    pushes: Arc<Mutex<Vec<Push>>>,
    refused: Arc<Mutex<Vec<(Instant, String)>>>,
    rate_limit_next: Arc<Mutex<bool>>,
    /// Pushes still to be answered 503 (lichess down for maintenance).
    fail_next: Arc<Mutex<usize>>,
    /// The next push is held unanswered until `release` (a slow lichess): it stays in flight.
    hold_next: Arc<Mutex<bool>>,
    /// Pushes held so far.
    held: Arc<Mutex<usize>>,
    release: Arc<tokio::sync::Notify>,
}

impl FakeLichess {
    /// Serves on a port of this machine, on a runtime of its own; returns its base address.
    fn start(&self) -> String {
        use axum::routing::post;
        let fake = self.clone();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let app = axum::Router::new()
                    .route("/api/broadcast/round/{id}/push", post(push))
                    .with_state(fake);
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        format!("http://{addr}")
    }

    fn pushes(&self) -> Vec<Push> {
        self.pushes.lock().unwrap().clone()
    }
}

/// `POST /api/broadcast/round/{id}/push` as lichess's OpenAPI document describes it: scope
/// `study:write`, a `text/plain` PGN of up to 100 games; 200 with each game's tags and moves.
async fn push(
    axum::extract::State(fake): axum::extract::State<FakeLichess>,
    axum::extract::Path(id): axum::extract::Path<String>,
    headers: axum::http::HeaderMap,
    body: String,
) -> axum::response::Response {
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    let refuse = |status: StatusCode, why: String| {
        fake.refused
            .lock()
            .unwrap()
            .push((Instant::now(), why.clone()));
        (status, why).into_response()
    };
    if header("authorization") != format!("Bearer {TOKEN}") {
        return refuse(StatusCode::UNAUTHORIZED, "No such token".into());
    }
    if id != ROUND {
        return refuse(StatusCode::NOT_FOUND, format!("no round {id}"));
    }
    if !header("content-type").starts_with("text/plain") {
        return refuse(StatusCode::BAD_REQUEST, header("content-type"));
    }
    if std::mem::take(&mut *fake.rate_limit_next.lock().unwrap()) {
        let why = "rate limited".to_owned();
        fake.refused
            .lock()
            .unwrap()
            .push((Instant::now(), why.clone()));
        return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "3")], why).into_response();
    }
    {
        let mut failing = fake.fail_next.lock().unwrap();
        if *failing > 0 {
            *failing -= 1;
            drop(failing);
            return refuse(StatusCode::SERVICE_UNAVAILABLE, "maintenance".into());
        }
    }
    if std::mem::take(&mut *fake.hold_next.lock().unwrap()) {
        *fake.held.lock().unwrap() += 1;
        fake.release.notified().await;
    }
    let read = read_games(&body);
    if read.is_empty() || read.len() > 100 || read.iter().any(Result::is_err) {
        return refuse(StatusCode::BAD_REQUEST, "Cannot parse moves".into());
    }
    fake.pushes.lock().unwrap().push(Push {
        at: Instant::now(),
        body: body.clone(),
    });
    let games: Vec<String> = read
        .iter()
        .flatten()
        .map(|g| format!(r#"{{"tags":{{}},"moves":{}}}"#, g.game.ply_count()))
        .collect();
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        format!(r#"{{"games":[{}]}}"#, games.join(",")),
    )
        .into_response()
}

/// A daemon pushing to the fake lichess (no file).
fn pushing(name: &str) -> (PathBuf, FakeLichess, Daemon) {
    let dir = scratch_dir(name);
    let fake = FakeLichess::default();
    let url = fake.start();
    let daemon = serve(
        &dir,
        &format!("round_id = \"{ROUND}\"\ntoken_env = \"BROADCAST_TOKEN\"\nurl = \"{url}\""),
        &[("BROADCAST_TOKEN", TOKEN)],
    );
    (dir, fake, daemon)
}

/// The plies of table-1's game in a push.
fn plies_of_first(push: &Push) -> usize {
    games(&push.body)[0].game.ply_count()
}

#[test]
fn the_round_is_pushed_with_the_token_and_a_burst_is_coalesced() {
    let (_dir, fake, mut daemon) = pushing("broadcast-push");
    // The start's round: both games.
    let (first, _) = wait_for(
        "the first push",
        || fake.pushes().first().cloned(),
        |_| true,
    );
    assert_eq!(games(&first.body).len(), 2);

    // One move, then the time until lichess has it.
    let (mut white, mut black) = players(&daemon, "table-1");
    let sent = Instant::now();
    play(&mut white, &mut black, &["e4"]);
    let (after_one, _) = wait_for(
        "the push of 1.e4",
        || fake.pushes().last().cloned(),
        |p| plies_of_first(p) == 1,
    );
    let one_move = after_one.at - sent;

    // A burst of 12 moves as fast as the control interface takes them (on a quiet machine
    // they come faster than one round in 200 ms).
    let before = fake.pushes().len();
    let burst = [
        "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3",
    ];
    let slowest_free = play(&mut black, &mut white, &burst);
    let (last, _) = wait_for(
        "the push with the burst's last move",
        || fake.pushes().last().cloned(),
        |p| plies_of_first(p) == 13,
    );
    let pushes = fake.pushes().len() - before;
    assert!(
        pushes <= burst.len(),
        "{pushes} pushes for {} moves",
        burst.len()
    );
    assert_eq!(
        sans(&games(&last.body)[0]).last().map(String::as_str),
        Some("Bb3")
    );

    // A slow lichess: the burst's first push stays in flight while 8 more moves are made;
    // they collapse into the push of the latest round after it — and, whatever the machine's
    // load, at most two more: a round still being made at the release and the final one
    // (rounds are made at most every 200 ms, the last state always).
    *fake.hold_next.lock().unwrap() = true;
    let before = fake.pushes().len();
    play(&mut black, &mut white, &["Nb8"]);
    wait_for(
        "the held push",
        || Some(*fake.held.lock().unwrap()),
        |&n| n == 1,
    );
    let slow_burst = ["c3", "d6", "h3", "O-O", "d4", "Bb7", "Nbd2", "Re8"];
    // The tables do not wait for the broadcast: every move is answered while the push hangs.
    let slowest_held = play(&mut white, &mut black, &slow_burst);
    fake.release.notify_one();
    let (last, _) = wait_for(
        "the push with the slow burst's last move",
        || fake.pushes().last().cloned(),
        |p| plies_of_first(p) == 22,
    );
    let slow_pushes = fake.pushes().len() - before;
    assert!(
        slow_pushes <= 4,
        "{slow_pushes} pushes for {} moves while one was in flight: not coalesced",
        slow_burst.len() + 1
    );
    assert_eq!(
        sans(&games(&last.body)[0]).last().map(String::as_str),
        Some("Re8")
    );
    // Never two pushes of the same round, and no refusal (token, type, body all right).
    let all = fake.pushes();
    assert!(all.windows(2).all(|w| w[0].body != w[1].body));
    assert!(fake.refused.lock().unwrap().is_empty());
    let state = daemon.connect("arbiter").ask("broadcast");
    assert!(
        state.starts_with("ok broadcast games 2; file off; push round Ab12Cd34 ok "),
        "{state}"
    );
    eprintln!(
        "figure: move → push with it {one_move:?}; a burst of {} moves → {pushes} pushes ({:.2} per move); \
         {} moves while a push was in flight → {slow_pushes} pushes; slowest move reply \
         {slowest_free:?} free, {slowest_held:?} while the push hung",
        burst.len(),
        pushes as f64 / burst.len() as f64,
        slow_burst.len() + 1
    );
    daemon.terminate();
}

#[test]
fn after_a_429_the_next_push_waits_as_long_as_lichess_says_and_carries_the_latest() {
    let (_dir, fake, mut daemon) = pushing("broadcast-429");
    wait_for(
        "the first push",
        || fake.pushes().first().cloned(),
        |_| true,
    );
    let (mut white, mut black) = players(&daemon, "table-1");
    *fake.rate_limit_next.lock().unwrap() = true;
    play(&mut white, &mut black, &["d4"]);
    let (refused_at, _) = wait_for(
        "the 429",
        || fake.refused.lock().unwrap().first().map(|r| r.0),
        |_| true,
    );
    // Meanwhile more moves: they ride on the one push after the pause.
    play(&mut black, &mut white, &["d5", "c4"]);
    // The arbiter sees the refusal and the wait (once the daemon has read the answer; asked
    // within the control interface's rate).
    let mut arbiter = daemon.connect("arbiter");
    let deadline = Instant::now() + WAIT;
    loop {
        let state = arbiter.ask("broadcast");
        if state.contains("failed") && state.contains("next try in") {
            break;
        }
        assert!(Instant::now() < deadline, "the 429 never showed: {state}");
        std::thread::sleep(Duration::from_millis(150));
    }
    let deadline = Instant::now() + Duration::from_secs(60) + WAIT;
    let next = loop {
        if let Some(p) = fake.pushes().iter().find(|p| p.at > refused_at).cloned() {
            break p;
        }
        assert!(Instant::now() < deadline, "no push after the 429");
        std::thread::sleep(Duration::from_millis(20));
    };
    let waited = next.at - refused_at;
    // lichess asks for a minute at least ("waiting one minute before retrying").
    assert!(
        waited >= Duration::from_secs(60),
        "pushed again after {waited:?}"
    );
    assert_eq!(
        plies_of_first(&next),
        3,
        "the push after the pause has the latest moves"
    );
    assert_eq!(
        fake.pushes().iter().filter(|p| p.at > refused_at).count(),
        1,
        "one push after the pause"
    );
    eprintln!("figure: after a 429 (Retry-After 3) the next push came {waited:?} later");
    daemon.terminate();
}

#[test]
fn a_failing_push_is_tried_again_with_back_off_and_logged_once() {
    let (_dir, fake, daemon) = pushing("broadcast-503");
    wait_for(
        "the first push",
        || fake.pushes().first().cloned(),
        |_| true,
    );
    *fake.fail_next.lock().unwrap() = 3;
    let (mut white, mut black) = players(&daemon, "table-1");
    play(&mut white, &mut black, &["c4"]);
    let (after, _) = wait_for(
        "the push after three failures",
        || fake.pushes().get(1).cloned(),
        |_| true,
    );
    assert_eq!(plies_of_first(&after), 1);
    let refused: Vec<Instant> = fake.refused.lock().unwrap().iter().map(|r| r.0).collect();
    assert_eq!(refused.len(), 3);
    // Back-off: 1 s, then 2 s, then 4 s between the tries.
    let gaps: Vec<Duration> = refused
        .iter()
        .chain([&after.at])
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| *w[1] - *w[0])
        .collect();
    for (gap, least) in gaps.iter().zip([1, 2, 4]) {
        assert!(*gap >= Duration::from_secs(least), "gaps {gaps:?}");
    }
    let log = daemon.stop_and_read_log();
    let said = |what: &str| log.iter().filter(|l| l.contains(what)).count();
    assert_eq!(said("the broadcast push failed"), 1, "{log:#?}");
    assert_eq!(said("the broadcast push works again"), 1, "{log:#?}");
    eprintln!("figure: 3 failed pushes (503) → one warning, the push {gaps:?} apart");
}

#[test]
fn without_broadcast_the_arbiter_is_told_it_is_not_configured() {
    let dir = scratch_dir("broadcast-none");
    let daemon = serve(&dir, "", &[]);
    assert_eq!(
        daemon.connect("arbiter").ask("broadcast"),
        "error state this daemon broadcasts nothing: [broadcast] is not configured"
    );
}

#[test]
fn a_peg_boards_moves_are_in_games_pgn_and_a_restart_writes_it_again() {
    use common::board::SimulatedBoard;
    let dir = scratch_dir("broadcast-restart");
    let round_dir = dir.join("round");
    let pgn_dir = format!("pgn_dir = \"{}\"", round_dir.display());
    let peg = dir.join("peg");
    let mut board = SimulatedBoard::on_pty("peg", &peg, &[]);
    let peg = peg.display().to_string();
    let daemon = serve_with_peg(&dir, &peg, &pgn_dir, &[]);
    let path = round_dir.join("games.pgn");
    let mut watcher = daemon.watching("observer", "table-1");
    watcher.wait_status("peg connected in-sync");
    // The blind player's move on his peg board, the opponent's relayed and replicated.
    let mut black = daemon.connect("black");
    assert_eq!(black.ask("table table-1"), "ok table table-1");
    board.hand("e2e4");
    wait_for(
        "the peg board's 1.e4 in games.pgn",
        || read_round(&path),
        |g| g.len() == 2 && g[0].game.ply_count() == 1,
    );
    assert!(black.ask("move e7e5").starts_with("ok"));
    board.hand("e7e5");
    watcher.wait_status("peg connected in-sync");
    wait_for(
        "1...e5 in games.pgn",
        || read_round(&path),
        |g| g.len() == 2 && g[0].game.ply_count() == 2,
    );
    drop((watcher, black));
    daemon.kill9();

    // Killed, the file gone: the next start writes the round again from the journal.
    std::fs::remove_file(&path).unwrap();
    let mut daemon = serve_with_peg(&dir, &peg, &pgn_dir, &[]);
    let (round, _) = wait_for(
        "games.pgn after the restart",
        || read_round(&path),
        |g| g.len() == 2,
    );
    assert_eq!(sans(&round[0]), ["e4", "e5"]);
    assert!(round[0].clocks.iter().all(Option::is_some));
    assert_eq!(tag(&round[0], "White"), "Anna Blind");
    daemon.terminate();
}

#[test]
fn a_folder_that_cannot_be_written_is_said_once_and_the_games_go_on() {
    let dir = scratch_dir("broadcast-unwritable");
    // A regular file where the folder should be: no games.pgn can be made under it.
    let blocker = dir.join("not-a-folder");
    std::fs::write(&blocker, "x").unwrap();
    let round_dir = blocker.join("round");
    let daemon = serve(&dir, &format!("pgn_dir = \"{}\"", round_dir.display()), &[]);
    let (mut white, mut black) = players(&daemon, "table-1");
    // The moves are played all the same, each one a new round the file cannot take.
    play(&mut white, &mut black, &["e4", "e5", "Nf3"]);
    let mut arbiter = daemon.connect("arbiter");
    let deadline = Instant::now() + WAIT;
    let state = loop {
        let state = arbiter.ask("broadcast");
        if state.contains(" failed ") {
            break state;
        }
        assert!(
            Instant::now() < deadline,
            "the failure never showed: {state}"
        );
        std::thread::sleep(Duration::from_millis(150));
    };
    assert!(state.contains("not-a-folder"), "{state}");
    assert!(state.ends_with("push off"), "{state}");
    assert!(arbiter.ask("table table-1").starts_with("ok"));
    assert!(arbiter.ask("sheet").contains("Nf3"));
    let log = daemon.stop_and_read_log();
    let said = log
        .iter()
        .filter(|l| l.contains("games.pgn not written"))
        .count();
    assert_eq!(said, 1, "{log:#?}");
}
