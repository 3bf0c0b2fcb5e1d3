//! The control interface's tokens: `<state-dir>/tokens.toml`, created at first start with one
//! fresh random token per role (mode 0600), read back later, merged with the `[[token]]` entries
//! of the configuration; a presented token is compared in constant time.

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::table::control::{Role, RoleError};

/// The file's name inside the state directory.
pub const TOKENS_FILE: &str = "tokens.toml";
/// Largest tokens file read; a real one is a few hundred bytes.
pub const MAX_TOKENS_FILE_BYTES: u64 = 64 * 1024;
/// Shortest token accepted from a file or the configuration: guessing stays hopeless.
pub const MIN_TOKEN_CHARS: usize = 16;
/// Longest token accepted (a request line is at most 512 bytes).
pub const MAX_TOKEN_CHARS: usize = 128;
/// Random bytes in a generated token (written as twice as many hex digits).
const GENERATED_TOKEN_BYTES: usize = 24;
/// The roles that get a token at first start, in the file's order.
const ROLES: [&str; 5] = ["white", "black", "assistant", "arbiter", "observer"];

/// One token as written in `tokens.toml` or as a `[[token]]` of the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawToken {
    /// The secret: 16 to 128 letters, digits or `-._~+/=`.
    pub token: String,
    /// white, black, assistant, arbiter or observer.
    pub role: String,
    /// The tables the token may use; empty for every table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<String>,
}

/// What a token lets its holder do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub role: Role,
    /// The tables it may use; `None` for every table.
    pub tables: Option<Arc<[Arc<str>]>>,
}

impl Grant {
    pub fn may_use(&self, table: &str) -> bool {
        match &self.tables {
            None => true,
            Some(names) => names.iter().any(|n| &**n == table),
        }
    }
}

/// Where a token was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `<state-dir>/tokens.toml`.
    File,
    /// A `[[token]]` of the configuration.
    Config,
}

struct Entry {
    secret: Box<[u8]>,
    grant: Grant,
    origin: Origin,
}

/// Every token the control interface accepts; cheap to clone. Its `Debug` shows no secret.
#[derive(Clone, Default)]
pub struct Tokens {
    entries: Arc<Vec<Entry>>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.entries
                    .iter()
                    .map(|e| format!("{} ({:?})", e.grant.role, e.origin)),
            )
            .finish()
    }
}

/// A token problem: the place (file, or configuration key) and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{place}: {message}")]
pub struct TokenError {
    pub place: String,
    pub message: String,
}

/// What is wrong with one token; [`TokenError`] adds where it was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    #[error("token of {0} characters; {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS}")]
    Length(usize),
    #[error("token contains {0:?}; letters, digits and -._~+/= only")]
    Character(char),
    #[error(transparent)]
    Role(#[from] RoleError),
    /// `known` are the configured tables.
    #[error("tables: no table {name:?} is configured; tables: {}", .known.join(", "))]
    UnknownTable { name: String, known: Vec<String> },
}

/// Why no fresh token, or no fresh tokens file, could be made.
#[derive(Debug, thiserror::Error)]
pub enum FreshTokenError {
    #[error("no random bytes from the system: {0}")]
    Random(getrandom::Error),
    #[error(transparent)]
    Toml(#[from] toml::ser::Error),
}

/// Whether table `name` is the known table `known`, or one of a server desk's (`xfcc-*`:
/// `xfcc-` and more).
fn table_matches(known: &str, name: &str) -> bool {
    match known.strip_suffix('*') {
        Some(prefix) => name.len() > prefix.len() && name.starts_with(prefix),
        None => known == name,
    }
}

/// The names a token's `tables` may take: `tables`, and the server games' (`xfcc-*`,
/// `lichess-*`, named while the daemon runs) when their desk is configured.
pub fn known_tables<'a>(
    tables: impl Iterator<Item = &'a str>,
    xfcc: bool,
    lichess: bool,
) -> Vec<&'a str> {
    let mut names: Vec<&str> = tables.collect();
    if xfcc {
        names.push("xfcc-*");
    }
    if lichess {
        names.push("lichess-*");
    }
    names
}

fn bad(place: impl Into<String>, message: impl ToString) -> TokenError {
    TokenError {
        place: place.into(),
        message: message.to_string(),
    }
}

impl RawToken {
    /// Checks the secret, the role and the table names (`known_tables`, when given, are the
    /// configured tables a name must be one of; an entry ending in `*`, such as `xfcc-*`, is
    /// the tables a server desk names while the daemon runs, which a name may be one of).
    pub fn validate(&self, known_tables: Option<&[&str]>) -> Result<Grant, GrantError> {
        let chars = self.token.chars().count();
        if !(MIN_TOKEN_CHARS..=MAX_TOKEN_CHARS).contains(&chars) {
            return Err(GrantError::Length(chars));
        }
        if let Some(c) = self
            .token
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || "-._~+/=".contains(*c)))
        {
            return Err(GrantError::Character(c));
        }
        let role: Role = self.role.parse()?;
        let tables = if self.tables.is_empty() {
            None
        } else {
            for name in &self.tables {
                if let Some(known) = known_tables
                    && !known.iter().any(|k| table_matches(k, name))
                {
                    return Err(GrantError::UnknownTable {
                        name: name.clone(),
                        known: known.iter().map(|&k| k.to_owned()).collect(),
                    });
                }
            }
            Some(self.tables.iter().map(|n| Arc::from(n.as_str())).collect())
        };
        Ok(Grant { role, tables })
    }
}

/// Compares a presented token with a secret; the time depends on the presented length only.
fn same_secret(secret: &[u8], presented: &[u8]) -> bool {
    let mut diff = secret.len() ^ presented.len();
    for (i, &b) in presented.iter().enumerate() {
        // An index that exists whatever the lengths, so the loop never branches on the secret.
        let s = secret.get(i).copied().unwrap_or(!b);
        diff |= usize::from(s ^ b);
    }
    std::hint::black_box(diff) == 0
}

impl Tokens {
    /// Tokens from validated grants (the configuration's, or a test's).
    pub fn new(tokens: impl IntoIterator<Item = (String, Grant, Origin)>) -> Tokens {
        Tokens {
            entries: Arc::new(
                tokens
                    .into_iter()
                    .map(|(secret, grant, origin)| Entry {
                        secret: secret.into_bytes().into_boxed_slice(),
                        grant,
                        origin,
                    })
                    .collect(),
            ),
        }
    }

    /// Validates the configuration's `[[token]]` entries; errors name `token[i].…`.
    pub fn from_config(raw: &[RawToken], known_tables: &[&str]) -> Result<Tokens, TokenError> {
        let mut out = Vec::new();
        for (i, t) in raw.iter().enumerate() {
            let grant = t
                .validate(Some(known_tables))
                .map_err(|m| bad(format!("token[{i}]"), m))?;
            out.push((t.token.clone(), grant, Origin::Config));
        }
        let tokens = Tokens::new(out);
        tokens.refuse_duplicates(|i| format!("token[{i}]"))?;
        Ok(tokens)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether any token came from `origin`.
    pub fn any_from(&self, origin: Origin) -> bool {
        self.entries.iter().any(|e| e.origin == origin)
    }

    /// The grant of a presented token, or `None`. Every token is compared, whichever matches,
    /// so the time taken tells nothing about which one nearly matched. Called only through
    /// [`crate::control::session::check_token`], the one place tokens are checked.
    pub(crate) fn authenticate(&self, presented: &str) -> Option<Grant> {
        let mut found = None;
        for entry in self.entries.iter() {
            if same_secret(&entry.secret, presented.as_bytes()) && found.is_none() {
                found = Some(entry.grant.clone());
            }
        }
        found
    }

    /// These tokens and `other`'s; a secret given twice is an error (it would have two roles).
    pub fn merged(&self, other: &Tokens, place: &str) -> Result<Tokens, TokenError> {
        let entries = self
            .entries
            .iter()
            .chain(other.entries.iter())
            .map(|e| Entry {
                secret: e.secret.clone(),
                grant: e.grant.clone(),
                origin: e.origin,
            })
            .collect();
        let tokens = Tokens {
            entries: Arc::new(entries),
        };
        tokens.refuse_duplicates(|_| place.to_owned())?;
        Ok(tokens)
    }

    fn refuse_duplicates(&self, place: impl Fn(usize) -> String) -> Result<(), TokenError> {
        for (i, a) in self.entries.iter().enumerate() {
            if self.entries[..i].iter().any(|b| b.secret == a.secret) {
                return Err(bad(
                    place(i),
                    format!(
                        "the same token is given twice (here for {}); each token needs its own \
                         secret",
                        a.grant.role
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The tokens a start works with, and whether the file was written by this start.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The file's tokens and the configuration's.
    pub tokens: Tokens,
    /// `<state-dir>/tokens.toml`.
    pub path: PathBuf,
    /// The file did not exist and this start created it.
    pub created: bool,
}

/// Reads `<state-dir>/tokens.toml`, creating it (and the state directory, mode 0700) with one
/// fresh token per role when it does not exist, and merges in the configuration's tokens.
/// `known_tables` are the configured tables' names, which a token's `tables` must be among.
pub fn load_or_create(
    state_dir: &Path,
    configured: &Tokens,
    known_tables: &[&str],
) -> Result<Loaded, TokenError> {
    let path = state_dir.join(TOKENS_FILE);
    let created = match std::fs::symlink_metadata(&path) {
        Ok(meta) => {
            ours(&path, &meta)?;
            false
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            create(state_dir, &path)?;
            true
        }
        Err(e) => return Err(bad(path.display().to_string(), e)),
    };
    let raw = read_file(&path)?;
    let mut from_file = Vec::new();
    for (i, t) in raw.iter().enumerate() {
        let grant = t
            .validate(Some(known_tables))
            .map_err(|m| bad(format!("{}: token[{i}]", path.display()), m))?;
        from_file.push((t.token.clone(), grant, Origin::File));
    }
    let from_file = Tokens::new(from_file);
    from_file.refuse_duplicates(|i| format!("{}: token[{i}]", path.display()))?;
    let tokens = from_file.merged(
        configured,
        &format!("{} and the configuration", path.display()),
    )?;
    Ok(Loaded {
        tokens,
        path,
        created,
    })
}

/// A file that grants roles must be the daemon user's own regular file: a link, or a file
/// another user planted, could hand a stranger the arbiter's role.
pub fn ours(path: &Path, meta: &std::fs::Metadata) -> Result<(), TokenError> {
    let name = path.display().to_string();
    if meta.file_type().is_symlink() {
        return Err(bad(
            &name,
            "a symbolic link; the tokens must be a file of the daemon's own: remove the link \
             (a new tokens file is made) or name another state_dir",
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = nix::unistd::geteuid().as_raw();
        if meta.uid() != me {
            return Err(bad(
                &name,
                format!(
                    "it belongs to user {}, not {me}, and could give a stranger a role; remove \
                     it (a new one is made) or chown it to the daemon's user",
                    meta.uid()
                ),
            ));
        }
    }
    Ok(())
}

#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct TokensFile {
    #[serde(rename = "token")]
    tokens: Vec<RawToken>,
}

/// Reads a tokens file as written (for `annabella send --role` too), refusing one that others
/// may read, one larger than [`MAX_TOKENS_FILE_BYTES`], and broken TOML (with its line).
pub fn read_file(path: &Path) -> Result<Vec<RawToken>, TokenError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| bad(&name, e))?;
    // The opened file's metadata, not the path's: nothing can swap the file in between.
    let meta = file.metadata().map_err(|e| bad(&name, e))?;
    if !meta.is_file() {
        return Err(bad(&name, "not a regular file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(bad(
                &name,
                format!(
                    "mode {mode:04o} lets other users read the tokens; chmod 600 {name} \
                     (and hand out new tokens if others may have read them)"
                ),
            ));
        }
    }
    let mut bytes = Vec::new();
    file.take(MAX_TOKENS_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| bad(&name, e))?;
    if bytes.len() as u64 > MAX_TOKENS_FILE_BYTES {
        return Err(bad(
            &name,
            format!("larger than {MAX_TOKENS_FILE_BYTES} bytes"),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        bad(
            &name,
            format!(
                "not UTF-8 text (bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    parse(&text).map_err(|m| bad(&name, m))
}

/// A tokens file that is no TOML list of tokens: what toml says, with the line when it knows it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum TokensTomlError {
    #[error("line {line}: {message}")]
    AtLine { line: usize, message: String },
    #[error("{0}")]
    Whole(String),
}

/// Parses the text of a tokens file; errors carry the line.
fn parse(text: &str) -> Result<Vec<RawToken>, TokensTomlError> {
    toml::from_str::<TokensFile>(text)
        .map(|f| f.tokens)
        .map_err(|e| {
            let message = e.message().to_owned();
            match e.span().and_then(|span| text.get(..span.start)) {
                Some(before) => TokensTomlError::AtLine {
                    line: before.matches('\n').count() + 1,
                    message,
                },
                None => TokensTomlError::Whole(message),
            }
        })
}

/// A fresh token: random bytes from the operating system, as hex digits.
pub fn generate() -> Result<String, FreshTokenError> {
    let mut bytes = [0u8; GENERATED_TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(FreshTokenError::Random)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The text of a fresh tokens file.
fn fresh_file_text() -> Result<String, FreshTokenError> {
    let mut text = String::from(
        "# annabella control tokens, one per role (docs/control-protocol.md).\n\
         # Hand each holder only their own token. Delete this file and restart for new ones.\n\
         # An entry may add `tables = [\"table-1\"]` to limit it to some tables.\n",
    );
    for role in ROLES {
        let entry = toml::to_string(&TokensFile {
            tokens: vec![RawToken {
                token: generate()?,
                role: role.to_owned(),
                tables: Vec::new(),
            }],
        })?;
        text.push('\n');
        text.push_str(&entry);
    }
    Ok(text)
}

/// Writes a fresh tokens file: mode 0600 from its creation (never readable by others, not even
/// for a moment), complete or absent (written aside, then renamed).
fn create(state_dir: &Path, path: &Path) -> Result<(), TokenError> {
    let dir_name = state_dir.display().to_string();
    if !state_dir.exists() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
            .create(state_dir)
            .map_err(|e| bad(&dir_name, format!("cannot create the state directory: {e}")))?;
    }
    let text = fresh_file_text().map_err(|m| bad(path.display().to_string(), m))?;
    let aside = path.with_extension("toml.new");
    let aside_name = aside.display().to_string();
    // A leftover from a start that died while writing holds nothing anyone was given.
    match std::fs::remove_file(&aside) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(bad(&aside_name, e)),
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&aside).map_err(|e| bad(&aside_name, e))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| bad(&aside_name, e))?;
    drop(file);
    std::fs::rename(&aside, path).map_err(|e| bad(path.display().to_string(), e))
}

/// The first token of `role` in a tokens file that may use `table` (any, when `None`).
pub fn token_for(raw: &[RawToken], role: Role, table: Option<&str>) -> Option<String> {
    raw.iter()
        .filter(|t| t.role.parse::<Role>() == Ok(role))
        .find(|t| match table {
            Some(name) => t.tables.is_empty() || t.tables.iter().any(|n| n == name),
            None => true,
        })
        .map(|t| t.token.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("annabella-tokens-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn first_start_creates_one_private_token_per_role_and_later_starts_read_them() {
        let dir = scratch("create").join("state");
        let first = load_or_create(&dir, &Tokens::default(), &["table-1"]).unwrap();
        assert!(first.created);
        assert_eq!(first.tokens.len(), 5);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&first.path), 0o600);
            assert_eq!(mode(&dir), 0o700);
        }
        let raw = read_file(&first.path).unwrap();
        let roles: Vec<_> = raw.iter().map(|t| t.role.as_str()).collect();
        assert_eq!(roles, ROLES);
        let white = token_for(&raw, Role::Player(Color::White), None).unwrap();
        assert_eq!(white.len(), 2 * GENERATED_TOKEN_BYTES);
        assert_eq!(
            first.tokens.authenticate(&white).map(|g| g.role),
            Some(Role::Player(Color::White))
        );
        let again = load_or_create(&dir, &Tokens::default(), &["table-1"]).unwrap();
        assert!(!again.created);
        assert_eq!(
            again.tokens.authenticate(&white).map(|g| g.role),
            Some(Role::Player(Color::White))
        );
        // Fresh tokens differ.
        assert_eq!(
            raw.iter()
                .map(|t| &t.token)
                .collect::<std::collections::HashSet<_>>()
                .len(),
            5
        );
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_file_others_may_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("mode");
        let first = load_or_create(&dir, &Tokens::default(), &[]).unwrap();
        std::fs::set_permissions(&first.path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = load_or_create(&dir, &Tokens::default(), &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("tokens.toml: mode 0644"), "{err}");
        assert!(err.contains("chmod 600"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn broken_files_are_named_with_the_line() {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = scratch("broken");
        std::fs::create_dir_all(&dir).unwrap();
        let write = |text: &str| {
            let path = dir.join(TOKENS_FILE);
            let _ = std::fs::remove_file(&path);
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .unwrap();
            f.write_all(text.as_bytes()).unwrap();
        };
        let err = |known: &[&str]| {
            load_or_create(&dir, &Tokens::default(), known)
                .unwrap_err()
                .to_string()
        };
        write("[[token]]\ntoken = \"abcdefghijklmnopq\"\nrole = \"king\"\n");
        let e = err(&[]);
        assert!(
            e.contains("tokens.toml: token[0]: unknown role \"king\""),
            "{e}"
        );
        write("\n[[token]]\ntoken = \"abc\n");
        let e = err(&[]);
        assert!(e.contains("tokens.toml: line 3"), "{e}");
        write("[[token]]\ntoken = \"short\"\nrole = \"white\"\n");
        assert!(err(&[]).contains("token of 5 characters; 16 to 128"));
        write("[[token]]\ntoken = \"abcdefghijklmnopq\"\nrole = \"white\"\ntables = [\"t9\"]\n");
        let e = err(&["table-1"]);
        assert!(e.contains("no table \"t9\" is configured"), "{e}");
        write(
            "[[token]]\ntoken = \"abcdefghijklmnopq\"\nrole = \"white\"\n\
             [[token]]\ntoken = \"abcdefghijklmnopq\"\nrole = \"black\"\n",
        );
        assert!(err(&[]).contains("token[1]: the same token is given twice"));
        // A file without tokens is allowed: the configuration may hold them all.
        write("");
        let configured = Tokens::from_config(
            &[RawToken {
                token: "c0nfigured-token-1".into(),
                role: "arbiter".into(),
                tables: vec!["table-1".into()],
            }],
            &["table-1"],
        )
        .unwrap();
        let loaded = load_or_create(&dir, &configured, &["table-1"]).unwrap();
        let grant = loaded.tokens.authenticate("c0nfigured-token-1").unwrap();
        assert_eq!(grant.role, Role::Arbiter);
        assert!(grant.may_use("table-1") && !grant.may_use("table-2"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn comparison_and_lookup() {
        assert!(same_secret(b"abcdefghijklmnop", b"abcdefghijklmnop"));
        assert!(!same_secret(b"abcdefghijklmnop", b"abcdefghijklmnoq"));
        assert!(!same_secret(b"abcdefghijklmnop", b"abcdefghijklmno"));
        assert!(!same_secret(b"abcdefghijklmnop", b"abcdefghijklmnopp"));
        assert!(!same_secret(b"abcdefghijklmnop", b""));
        let tokens = Tokens::new([(
            "abcdefghijklmnop".to_owned(),
            Grant {
                role: Role::Observer,
                tables: None,
            },
            Origin::Config,
        )]);
        assert!(tokens.authenticate("abcdefghijklmnop").is_some());
        assert!(tokens.authenticate("").is_none());
        assert!(!format!("{tokens:?}").contains("abcdefghijklmnop"));
        let raw = |token: &str| RawToken {
            token: token.into(),
            role: "white".into(),
            tables: vec![],
        };
        assert!(raw("with space in it!!").validate(None).is_err());
        assert!(raw("base64+/token=====").validate(None).is_ok());
        assert!(raw(&"x".repeat(129)).validate(None).is_err());
    }

    #[test]
    fn grant_errors_read_as_before() {
        let raw = |token: &str, role: &str, tables: &[&str]| RawToken {
            token: token.into(),
            role: role.into(),
            tables: tables.iter().map(|&t| t.to_owned()).collect(),
        };
        let e = |t: RawToken, known: Option<&[&str]>| t.validate(known).unwrap_err().to_string();
        let ok = "abcdefghijklmnop";
        assert_eq!(
            e(raw("short", "white", &[]), None),
            "token of 5 characters; 16 to 128"
        );
        assert_eq!(
            e(raw("with space in it!!", "white", &[]), None),
            "token contains ' '; letters, digits and -._~+/= only"
        );
        assert_eq!(
            e(raw(ok, "king", &[]), None),
            "unknown role \"king\"; white, black, assistant, arbiter or observer"
        );
        assert_eq!(
            e(raw(ok, "white", &["t3"]), Some(&["t1", "t2"])),
            "tables: no table \"t3\" is configured; tables: t1, t2"
        );
    }

    /// A token may be limited to a server game, whose table the desk makes while the daemon
    /// runs: named `xfcc-<id>` when `[xfcc]` is configured, not otherwise.
    #[test]
    fn a_token_may_name_a_server_game_of_a_configured_desk() {
        let raw = RawToken {
            token: "abcdefghijklmnop".into(),
            role: "assistant".into(),
            tables: vec!["xfcc-4711".into()],
        };
        let with_xfcc = known_tables(["t1"].into_iter(), true, false);
        let grant = raw.validate(Some(&with_xfcc)).unwrap();
        assert!(grant.may_use("xfcc-4711") && !grant.may_use("xfcc-4712"));
        let without = known_tables(["t1"].into_iter(), false, true);
        assert_eq!(
            raw.validate(Some(&without)).unwrap_err().to_string(),
            "tables: no table \"xfcc-4711\" is configured; tables: t1, lichess-*"
        );
        assert!(
            !table_matches("xfcc-*", "xfcc-"),
            "a prefix alone is no game"
        );
    }
}
