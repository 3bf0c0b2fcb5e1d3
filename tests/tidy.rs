//! Invariants of the code base, checked as tests: file headers, a pure core, a true code map.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The sources of the pure core's crates: decisions only, no I/O, no clock. The crates' manifests
/// name no I/O crate (`the_core_crates_depend_on_no_io_crate`); this list is for what the
/// compiler cannot refuse, the standard library's I/O and clock.
const PURE: [&str; 4] = [
    "crates/chess/src",
    "crates/boards/src",
    "crates/correspondence/src",
    "crates/table/src",
];

/// Every crate's sources: the root package (the daemon, adapters, command line) and the core.
const CRATE_SOURCES: [&str; 5] = [
    "src",
    "crates/chess/src",
    "crates/boards/src",
    "crates/correspondence/src",
    "crates/table/src",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn all_rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "benches", "fuzz"] {
        rust_files(&root().join(dir), &mut files);
    }
    files.sort();
    files
}

#[test]
fn every_source_file_starts_with_a_doc_line() {
    let offenders: Vec<_> = all_rust_files()
        .into_iter()
        .filter(|p| !fs::read_to_string(p).unwrap_or_default().starts_with("//!"))
        .collect();
    assert!(
        offenders.is_empty(),
        "files without a leading //! line: {offenders:?}"
    );
}

/// What pure code never names: I/O, tasks, the clock.
const FORBIDDEN: [&str; 13] = [
    "tokio",
    "std::fs",
    "std::net",
    "std::io::stdin",
    "std::io::stdout",
    "std::process",
    "std::env",
    "Instant::now",
    "SystemTime::now",
    "std::thread",
    "io::clock",
    "println!",
    "eprintln!",
];

/// Each line of code (comments aside) in `paths` that names something [`FORBIDDEN`].
fn io_offences(paths: &[PathBuf]) -> Vec<String> {
    let mut offences = Vec::new();
    for path in paths {
        let text = fs::read_to_string(path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in FORBIDDEN {
                if code.contains(word) {
                    offences.push(format!("{}:{}: {word}", path.display(), i + 1));
                }
            }
        }
    }
    offences
}

/// The pure core does no I/O and never reads the clock: time is a parameter.
#[test]
fn the_core_does_no_io_and_reads_no_clock() {
    let mut core = Vec::new();
    for dir in PURE {
        rust_files(&root().join(dir), &mut core);
    }
    assert!(!core.is_empty());
    let offences = io_offences(&core);
    assert!(
        offences.is_empty(),
        "I/O or clock reads in the pure core:\n{}",
        offences.join("\n")
    );
}

/// The control session is sans-IO: lines in, actions out, the time a parameter; only its
/// driver (`src/control/session_driver.rs`) touches sockets, tasks and the clock.
#[test]
fn the_control_session_does_no_io_and_reads_no_clock() {
    let session = ["src/control/session.rs", "src/control/rate_limit.rs"].map(|p| root().join(p));
    let offences = io_offences(&session);
    assert!(
        offences.is_empty(),
        "I/O or clock reads in the control session:\n{}",
        offences.join("\n")
    );
}

/// `anyhow` belongs to the binary's edge, where an error is a message for the operator with its
/// context: `main`, the commands, the daemon's startup and the command line's simulated board.
/// Everything below them returns typed errors a caller can act on.
const ANYHOW_ALLOWED: [&str; 7] = [
    "src/main.rs",
    "src/cli/",
    "src/app/daemon.rs",
    // One table's part of the daemon's startup.
    "src/app/table_wiring.rs",
    "src/io/simulator.rs",
    // The simulated board plugged in for the daemon (a pty, or a TCP port on Windows).
    "src/io/sim_socket.rs",
    // The simulator's recording device implements its device trait.
    "src/io/recording.rs",
];

#[test]
fn anyhow_only_at_the_binarys_edge() {
    let mut offences = Vec::new();
    for path in all_rust_files() {
        let relative = path
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if !relative.starts_with("src/") || ANYHOW_ALLOWED.iter().any(|a| relative.starts_with(a)) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("anyhow") {
                offences.push(format!("{relative}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "anyhow outside the binary's edge (docs/ARCHITECTURE.md):\n{}",
        offences.join("\n")
    );
}

/// Domain types own no wire format: the adapters do.
#[test]
fn the_core_derives_no_serialize() {
    let mut core = Vec::new();
    for dir in PURE {
        rust_files(&root().join(dir), &mut core);
    }
    for path in core {
        let text = fs::read_to_string(&path).unwrap();
        let serialize = text
            .match_indices("Serialize")
            .any(|(i, _)| !text[..i].ends_with("De"));
        assert!(!serialize, "{} derives or names Serialize", path.display());
    }
}

/// docs/ARCHITECTURE.md names every source file, so the code map cannot silently go stale.
#[test]
fn the_code_map_names_every_source_file() {
    let map = fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let mut files = Vec::new();
    for dir in CRATE_SOURCES {
        rust_files(&root().join(dir), &mut files);
    }
    let missing: Vec<_> = files
        .iter()
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .filter(|p| !map.contains(p.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md does not mention: {missing:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The module graph: which module refers to which, and no cycles among siblings.
//
// A cycle between modules means neither can be understood, tested or moved without the other;
// the core is layered (words, then languages, then notations, then scoresheets) and this keeps
// it so. The check reads the sources rather than asking the compiler, so it needs no nightly
// tool: a small lexer drops comments and literals, then every `use` tree and every path that
// starts with `crate::`, `super::` or `self::` is resolved to the file module it names,
// following `pub use` re-exports to where the item really lives.
//
// The unit is the module directory: for each module with child modules, the children are the
// nodes (each standing for its whole subtree) and the parent's own items are left out, because
// a parent and its children are one unit by design (the parent declares and re-exports them;
// they use its shared types).
// ---------------------------------------------------------------------------------------------

/// A module's path inside the crate: `["chess", "notation", "san"]`; the crate root is empty.
type ModPath = Vec<String>;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Colons,
    Open,
    Close,
    Semi,
    Comma,
    Star,
    Other(char),
}

/// The tokens of Rust source that matter for paths, with their line numbers; comments, string,
/// character and number literals are dropped.
fn lex(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let ident_start = |ch: char| ch.is_alphabetic() || ch == '_';
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    // Skips a quoted literal whose opening quote is at `i`, honouring backslash escapes.
    let skip_quoted = |mut i: usize, quote: char, line: &mut usize| -> usize {
        i += 1;
        while i < c.len() && c[i] != quote {
            if c[i] == '\\' {
                i += 1;
            }
            if at(i) == '\n' {
                *line += 1;
            }
            i += 1;
        }
        i + 1
    };
    // Skips a raw string whose `r` is at `i`: r"…", r#"…"#, …
    let skip_raw = |mut i: usize, line: &mut usize| -> usize {
        i += 1;
        let mut hashes = 0;
        while at(i) == '#' {
            hashes += 1;
            i += 1;
        }
        i += 1; // the opening quote
        while i < c.len() {
            if c[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                return i + 1 + hashes;
            }
            if c[i] == '\n' {
                *line += 1;
            }
            i += 1;
        }
        i
    };
    let is_raw_string = |i: usize| {
        let mut j = i + 1;
        while at(j) == '#' {
            j += 1;
        }
        at(j) == '"' && (j > i + 1 || at(i + 1) == '"')
    };
    while i < c.len() {
        let ch = c[i];
        match ch {
            '\n' => {
                line += 1;
                i += 1;
            }
            '/' if at(i + 1) == '/' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if c[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
            }
            '"' => i = skip_quoted(i, '"', &mut line),
            'r' if is_raw_string(i) => i = skip_raw(i, &mut line),
            'b' if at(i + 1) == 'r' && is_raw_string(i + 1) => i = skip_raw(i + 1, &mut line),
            'b' if at(i + 1) == '"' => i = skip_quoted(i + 1, '"', &mut line),
            'b' if at(i + 1) == '\'' => i = skip_quoted(i + 1, '\'', &mut line),
            // A character literal ('x', '\n', '\u{2800}'), or else a lifetime ('a, 'static).
            '\'' if at(i + 1) == '\\' || at(i + 2) == '\'' => i = skip_quoted(i, '\'', &mut line),
            '\'' => i += 1,
            'r' if at(i + 1) == '#' && ident_start(at(i + 2)) => i += 2, // raw identifier
            _ if ident_start(ch) => {
                let start = i;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
                out.push((Tok::Ident(c[start..i].iter().collect()), line));
            }
            _ if ch.is_ascii_digit() => {
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
            ':' if at(i + 1) == ':' => {
                out.push((Tok::Colons, line));
                i += 2;
            }
            _ if ch.is_whitespace() => i += 1,
            _ => {
                let tok = match ch {
                    '{' => Tok::Open,
                    '}' => Tok::Close,
                    ';' => Tok::Semi,
                    ',' => Tok::Comma,
                    '*' => Tok::Star,
                    other => Tok::Other(other),
                };
                out.push((tok, line));
                i += 1;
            }
        }
    }
    out
}

/// A path as written, made absolute up to where names stop being known: the module it starts
/// from (after `crate`, `super`, `self` or a child module's name) and the segments after that.
#[derive(Debug, Clone)]
struct RawPath {
    base: ModPath,
    rest: Vec<String>,
    line: usize,
}

/// What one file refers to, and what it re-exports (`pub use`: name → path).
#[derive(Debug, Default)]
struct FileRefs {
    paths: Vec<RawPath>,
    reexports: Vec<(String, RawPath)>,
}

/// Expands the use tree starting at `toks[*i]` into full paths, each with the name it binds.
fn use_tree(toks: &[(Tok, usize)], i: &mut usize, prefix: Vec<String>, out: &mut Vec<UsePath>) {
    let mut path = prefix;
    while let Some((tok, line)) = toks.get(*i) {
        match tok {
            Tok::Ident(s) => {
                path.push(s.clone());
                *i += 1;
                match toks.get(*i).map(|t| &t.0) {
                    Some(Tok::Colons) => *i += 1,
                    Some(Tok::Ident(kw)) if kw == "as" => {
                        let alias = match toks.get(*i + 1) {
                            Some((Tok::Ident(a), _)) => a.clone(),
                            _ => String::new(),
                        };
                        *i += 2;
                        out.push((path, alias, *line));
                        return;
                    }
                    _ => {
                        let name = path.last().cloned().unwrap_or_default();
                        out.push((path, name, *line));
                        return;
                    }
                }
            }
            Tok::Open => {
                *i += 1;
                while let Some((tok, _)) = toks.get(*i) {
                    match tok {
                        Tok::Close => {
                            *i += 1;
                            return;
                        }
                        Tok::Comma => *i += 1,
                        _ => use_tree(toks, i, path.clone(), out),
                    }
                }
                return;
            }
            Tok::Star => {
                path.push("*".to_owned());
                *i += 1;
                out.push((path, String::new(), *line));
                return;
            }
            // A leading `::` (an extern crate); the path stays extern.
            Tok::Colons => *i += 1,
            _ => return,
        }
    }
}

/// A path of a use tree: its segments, the name it binds, its line.
type UsePath = (Vec<String>, String, usize);

/// The module a path's first segments name, relative to `scope`, with the segments left over;
/// `None` for paths into other crates (or names this reading does not follow).
fn anchor(
    segments: &[String],
    scope: &ModPath,
    modules: &BTreeSet<ModPath>,
) -> Option<(ModPath, Vec<String>)> {
    let mut base = scope.clone();
    let mut k = 0;
    match segments.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            k = 1;
        }
        Some("self") => k = 1,
        Some("super") => {
            while segments.get(k).map(String::as_str) == Some("super") {
                base.pop()?;
                k += 1;
            }
        }
        Some(first) => {
            let mut child = scope.clone();
            child.push(first.to_owned());
            if !modules.contains(&child) {
                return None;
            }
        }
        None => return None,
    }
    Some((base, segments[k..].to_vec()))
}

/// Every path one file refers to, resolved up to its anchor module.
fn file_refs(file_module: &ModPath, text: &str, modules: &BTreeSet<ModPath>) -> FileRefs {
    let toks = lex(text);
    let mut refs = FileRefs::default();
    // Inline modules (`mod tests { … }`): their path and the brace depth inside them.
    let mut scopes: Vec<(ModPath, usize)> = vec![(file_module.clone(), 0)];
    let mut depth = 0;
    let mut i = 0;
    while i < toks.len() {
        let scope = scopes.last().map(|s| s.0.clone()).unwrap_or_default();
        match &toks[i].0 {
            Tok::Open => {
                depth += 1;
                i += 1;
            }
            Tok::Close => {
                if scopes.len() > 1 && scopes.last().is_some_and(|s| s.1 == depth) {
                    scopes.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Tok::Ident(kw) if kw == "mod" => match (toks.get(i + 1), toks.get(i + 2)) {
                (Some((Tok::Ident(name), _)), Some((Tok::Open, _))) => {
                    let mut inner = scope.clone();
                    inner.push(name.clone());
                    depth += 1;
                    scopes.push((inner, depth));
                    i += 3;
                }
                _ => i += 1,
            },
            Tok::Ident(kw) if kw == "use" => {
                let public = match i.checked_sub(1).map(|p| &toks[p].0) {
                    Some(Tok::Ident(p)) if p == "pub" => true,
                    Some(Tok::Other(')')) => {
                        i >= 4 && matches!(&toks[i - 4].0, Tok::Ident(p) if p == "pub")
                    }
                    _ => false,
                };
                i += 1;
                let mut paths = Vec::new();
                while i < toks.len() && toks[i].0 != Tok::Semi {
                    let before = i;
                    use_tree(&toks, &mut i, Vec::new(), &mut paths);
                    if i == before {
                        i += 1;
                    }
                }
                for (segments, name, line) in paths {
                    if let Some((base, rest)) = anchor(&segments, &scope, modules) {
                        let path = RawPath { base, rest, line };
                        if public && scopes.len() == 1 && !name.is_empty() && name != "_" {
                            refs.reexports.push((name, path.clone()));
                        }
                        refs.paths.push(path);
                    }
                }
            }
            Tok::Ident(first)
                if ["crate", "super", "self"].contains(&first.as_str())
                    && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Colons)
                    && (i == 0 || toks[i - 1].0 != Tok::Colons) =>
            {
                let line = toks[i].1;
                let mut segments = vec![first.clone()];
                i += 1;
                while toks.get(i).map(|t| &t.0) == Some(&Tok::Colons) {
                    match toks.get(i + 1) {
                        Some((Tok::Ident(s), _)) => {
                            segments.push(s.clone());
                            i += 2;
                        }
                        _ => break,
                    }
                }
                if let Some((base, rest)) = anchor(&segments, &scope, modules) {
                    refs.paths.push(RawPath { base, rest, line });
                }
            }
            _ => i += 1,
        }
    }
    refs
}

/// The module of a file under `src`: `chess/notation/mod.rs` → `["chess", "notation"]`.
fn module_of(relative: &Path) -> ModPath {
    let mut path: ModPath = relative
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = path.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && !(path.is_empty() && stem == "lib") {
            path.push(stem.to_owned());
        }
    }
    path
}

/// One reference from a file to a module, with where it is written.
#[derive(Debug, Clone)]
struct Edge {
    from: ModPath,
    to: ModPath,
    file: String,
    line: usize,
}

/// Every reference between the library's modules. `files` are (path relative to `src`, text);
/// the binary's root (`main.rs`) is another crate and is left out.
fn module_edges(files: &[(PathBuf, String)]) -> Vec<Edge> {
    let files: Vec<_> = files
        .iter()
        .filter(|(p, _)| p != Path::new("main.rs"))
        .map(|(p, text)| (p, module_of(p), text))
        .collect();
    let modules: BTreeSet<ModPath> = files.iter().map(|f| f.1.clone()).collect();
    let refs: Vec<FileRefs> = files
        .iter()
        .map(|(_, m, text)| file_refs(m, text, &modules))
        .collect();
    let mut reexports: BTreeMap<ModPath, BTreeMap<String, RawPath>> = BTreeMap::new();
    for ((_, m, _), r) in files.iter().zip(&refs) {
        for (name, path) in &r.reexports {
            reexports
                .entry(m.clone())
                .or_default()
                .insert(name.clone(), path.clone());
        }
    }
    // The file module a path ends in, following re-exports of items (a bounded number of hops,
    // so that a re-export loop cannot hang the test).
    fn target(
        path: &RawPath,
        modules: &BTreeSet<ModPath>,
        reexports: &BTreeMap<ModPath, BTreeMap<String, RawPath>>,
        hops: usize,
    ) -> ModPath {
        let mut at = path.base.clone();
        for segment in &path.rest {
            let mut child = at.clone();
            child.push(segment.clone());
            if modules.contains(&child) {
                at = child;
                continue;
            }
            if hops < 8
                && let Some(next) = reexports.get(&at).and_then(|r| r.get(segment))
            {
                return target(next, modules, reexports, hops + 1);
            }
            break;
        }
        at
    }
    let mut edges = Vec::new();
    for ((file, from, _), r) in files.iter().zip(&refs) {
        for path in &r.paths {
            let to = target(path, &modules, &reexports, 0);
            if &to != from {
                edges.push(Edge {
                    from: from.clone(),
                    to,
                    file: file.to_string_lossy().replace('\\', "/"),
                    line: path.line,
                });
            }
        }
    }
    edges
}

/// The cycles among the children of every module directory at or under `top`, one line each
/// (`chess::a -> chess::b -> chess::a`, with the file and line of each step).
fn sibling_cycles(edges: &[Edge], top: &ModPath) -> Vec<String> {
    let mut parents: BTreeSet<ModPath> = BTreeSet::new();
    for e in edges {
        for m in [&e.from, &e.to] {
            for len in 0..m.len() {
                if m[..len].starts_with(top) {
                    parents.insert(m[..len].to_vec());
                }
            }
        }
    }
    let mut cycles = Vec::new();
    for parent in parents {
        let n = parent.len();
        // child → child → (file, line) of the first reference seen.
        let mut graph: BTreeMap<&str, BTreeMap<&str, (&str, usize)>> = BTreeMap::new();
        for e in edges {
            if e.from.len() > n
                && e.to.len() > n
                && e.from.starts_with(&parent)
                && e.to.starts_with(&parent)
                && e.from[n] != e.to[n]
            {
                graph
                    .entry(&e.from[n])
                    .or_default()
                    .entry(&e.to[n])
                    .or_insert((&e.file, e.line));
            }
        }
        let reach = |from: &str| -> BTreeSet<&str> {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from];
            while let Some(m) = todo.pop() {
                for &next in graph.get(m).into_iter().flat_map(|g| g.keys()) {
                    if seen.insert(next) {
                        todo.push(next);
                    }
                }
            }
            seen
        };
        let mut reported: BTreeSet<&str> = BTreeSet::new();
        for &start in graph.keys() {
            if reported.contains(start) || !reach(start).contains(start) {
                continue;
            }
            // The shortest way back to `start`, found breadth first.
            let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([start]);
            'search: while let Some(m) = queue.pop_front() {
                for &next in graph.get(m).into_iter().flat_map(|g| g.keys()) {
                    if next == start {
                        previous.insert(start, m);
                        break 'search;
                    }
                    if !previous.contains_key(next) {
                        previous.insert(next, m);
                        queue.push_back(next);
                    }
                }
            }
            let mut ring = vec![start];
            let mut m = previous[start];
            while m != start {
                ring.push(m);
                m = previous[m];
            }
            ring.push(start);
            ring.reverse();
            let prefix = parent.iter().map(|s| format!("{s}::")).collect::<String>();
            let steps: Vec<String> = ring
                .windows(2)
                .map(|w| {
                    let (file, line) = graph[w[0]][w[1]];
                    format!("{prefix}{} -> {prefix}{} (src/{file}:{line})", w[0], w[1])
                })
                .collect();
            reported.extend(ring.iter().copied());
            cycles.push(steps.join(", "));
        }
    }
    cycles
}

/// One crate's sources: (path relative to its `src`, text).
fn library_sources(src: &str) -> Vec<(PathBuf, String)> {
    let src = root().join(src);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap();
            (p.strip_prefix(&src).unwrap().to_path_buf(), text)
        })
        .collect()
}

/// Every crate is layered at every level: no two modules of one directory (the crate root
/// included) refer to each other, directly or around a ring. Between crates the compiler already
/// refuses a cycle.
#[test]
fn no_crate_has_an_import_cycle_at_any_level() {
    let mut cycles = Vec::new();
    for src in CRATE_SOURCES {
        let edges = module_edges(&library_sources(src));
        // The reading works: each crate's modules do refer to one another.
        assert!(
            edges.len() > 3,
            "the module reader found almost no references in {src}"
        );
        cycles.extend(
            sibling_cycles(&edges, &Vec::new())
                .into_iter()
                .map(|c| format!("{src}: {c}")),
        );
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The crates that must stay free of I/O, as `cargo tree` sees them: none of the core's crates
/// depends, even indirectly, on a crate that does I/O, runs tasks or talks to the system.
const IO_CRATES: [&str; 16] = [
    "tokio",
    "tokio-serial",
    "serialport",
    "mio",
    "rusqlite",
    "axum",
    "hyper",
    "tts",
    "lettre",
    "mail-parser",
    "nix",
    "libc",
    "getrandom",
    "tracing",
    "tracing-subscriber",
    "socket2",
];

#[test]
fn the_core_crates_depend_on_no_io_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    for core in [
        "annabella-chess",
        "annabella-boards",
        "annabella-correspondence",
        "annabella-table",
    ] {
        let out = std::process::Command::new(&cargo)
            .args([
                "tree",
                "--offline",
                "--edges",
                "normal,build",
                "--prefix",
                "none",
            ])
            .args(["--format", "{p}", "--package", core])
            .current_dir(root())
            .output()
            .expect("cargo tree runs");
        assert!(
            out.status.success(),
            "cargo tree -p {core}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tree = String::from_utf8_lossy(&out.stdout);
        let names: BTreeSet<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(names.contains(core), "{core}: {tree}");
        let io: Vec<_> = IO_CRATES.iter().filter(|c| names.contains(*c)).collect();
        assert!(
            io.is_empty(),
            "{core} depends on I/O crates {io:?}:\n{tree}"
        );
    }
}

/// The checker itself: a ring through a `use` group, a `super::super` path and a re-export is
/// found; a parent and its child, or text in comments and strings, are no cycle.
#[test]
fn the_cycle_check_finds_a_ring_and_nothing_else() {
    let file = |path: &str, text: &str| (PathBuf::from(path), text.to_owned());
    let ring = [
        file("lib.rs", "//! root\npub mod a;\npub mod b;\n"),
        file("a/mod.rs", "pub mod x;\npub use x::Thing;\n"),
        file(
            "a/x.rs",
            "use crate::b::{self, y::Other};\npub struct Thing;\n",
        ),
        file("b/mod.rs", "pub mod y;\n"),
        file(
            "b/y.rs",
            "pub struct Other;\n#[cfg(test)]\nmod tests {\n    fn f() { let _ = super::super::super::a::Thing; }\n}\n",
        ),
    ];
    let cycles = sibling_cycles(&module_edges(&ring), &Vec::new());
    assert_eq!(
        cycles,
        ["a -> b (src/a/x.rs:1), b -> a (src/b/y.rs:4)"],
        "{cycles:?}"
    );

    let layered = [
        file("lib.rs", "pub mod a;\npub mod b;\n"),
        // A parent and its child use each other: one unit, no cycle.
        file(
            "a/mod.rs",
            "pub mod x;\npub struct Shared;\nfn f() { x::g() }\n",
        ),
        file("a/x.rs", "use super::Shared;\npub fn g() {}\n"),
        // Paths in comments, strings and characters are not references.
        file(
            "b.rs",
            "use crate::a::x::g;\n// crate::b\n/* use crate::a; */\nconst S: &str = \"crate::b\";\nconst C: char = '\"';\nconst R: &str = r#\"crate::b\"#;\n",
        ),
        file("a/y.rs", "fn f<'a>(s: &'a str) -> &'a str { s }\n"),
    ];
    let edges = module_edges(&layered);
    assert!(edges.iter().any(|e| e.from == ["b"] && e.to == ["a", "x"]));
    assert!(!edges.iter().any(|e| e.to == ["b"]), "{edges:?}");
    assert_eq!(sibling_cycles(&edges, &Vec::new()), Vec::<String>::new());
}

/// One idea a file: a source file past 900 lines is usually two (docs/ARCHITECTURE.md).
#[test]
fn no_source_file_is_over_900_lines() {
    let mut files = Vec::new();
    for dir in CRATE_SOURCES {
        rust_files(&root().join(dir), &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let lines = fs::read_to_string(p).unwrap().lines().count();
            (lines > 900).then(|| format!("{} ({lines} lines)", p.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over 900 lines:\n{}",
        long.join("\n")
    );
}

/// The lines of each function with a body in `text`: (name, first line, length). A function
/// ends at the first line that closes it at its own indentation, as rustfmt writes it.
fn function_lengths(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let head = [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "async ",
            "const ",
            "unsafe ",
        ]
        .iter()
        .fold(trimmed, |t, p| t.strip_prefix(p).unwrap_or(t));
        let head = head.strip_prefix("async ").unwrap_or(head);
        let Some(rest) = head.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // A declaration without a body (a trait's) ends with `;` before any `{`.
        let mut j = i;
        while j < lines.len() && !lines[j].contains('{') && !lines[j].trim_end().ends_with(';') {
            j += 1;
        }
        if j >= lines.len() || !lines[j].contains('{') {
            continue;
        }
        if lines[j].trim_end().ends_with('}') && lines[j].matches('{').count() == 1 {
            continue; // a one-line body
        }
        let close = format!("{indent}}}");
        if let Some(end) = (j + 1..lines.len()).find(|&k| lines[k] == close) {
            out.push((name, i + 1, end - i + 1));
        }
    }
    out
}

/// The daemon's wiring reads as steps: no function in `src/app` over 100 lines.
#[test]
fn no_function_in_the_daemons_wiring_is_over_100_lines() {
    let mut files = Vec::new();
    rust_files(&root().join("src/app"), &mut files);
    let (mut long, mut measured) = (Vec::new(), 0);
    for path in &files {
        let text = fs::read_to_string(path).unwrap();
        for (name, line, length) in function_lengths(&text) {
            measured += 1;
            if length > 100 {
                long.push(format!(
                    "{}:{line}: {name} ({length} lines)",
                    path.display()
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over 100 lines:\n{}",
        long.join("\n")
    );
    // The reader finds functions and measures them.
    assert!(measured > 50, "only {measured} functions found in src/app");
    let sample = "trait T {\n    fn f(&self);\n}\nfn g() {\n    let x = 1;\n}\n";
    assert_eq!(function_lengths(sample), [("g".to_owned(), 4, 3)]);
}
