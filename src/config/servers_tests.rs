//! The servers' sections (`config::servers`) read from whole configuration files.

use std::time::Duration;

use super::servers::{LICHESS_URL, LichessSettings, XFCC_URL};
use super::{ConfigError, RawConfig};

fn read(text: &str) -> Result<crate::config::Config, ConfigError> {
    RawConfig::from_toml(text, std::path::Path::new("t.toml"))?.validate()
}

#[test]
fn the_sections_as_the_issue_writes_them() {
    let c = read(
        r#"
[xfcc]
url = "https://www.iccf.com/XfccBasic.asmx"
user = "anna"
password_env = "ANNABELLA_XFCC_PASSWORD"
poll_s = 900

[lichess]
url = "https://lichess.org"
token_env = "ANNABELLA_LICHESS_TOKEN"
poll_s = 60

[broadcast]
pgn_dir = "/srv/broadcast"
round_id = "aBcD1234"
token_env = "ANNABELLA_BROADCAST_TOKEN"
"#,
    )
    .unwrap();
    let x = c.xfcc.unwrap();
    assert_eq!(x.url, XFCC_URL);
    assert_eq!(x.user, "anna");
    assert_eq!(x.poll, Duration::from_secs(900));
    let l = c.lichess.unwrap();
    assert_eq!(l.poll, Duration::from_secs(60));
    assert_eq!(l.token_env, "ANNABELLA_LICHESS_TOKEN");
    let b = c.broadcast.unwrap();
    assert_eq!(b.url, LICHESS_URL);
    assert_eq!(b.round_id.as_deref(), Some("aBcD1234"));
}

#[test]
fn defaults_and_none() {
    let c = read("[xfcc]\nuser = \"anna\"\npassword_env = \"P\"\n[lichess]\ntoken_env = \"T\"\n")
        .unwrap();
    assert_eq!(c.xfcc.unwrap().poll, Duration::from_secs(900));
    assert_eq!(c.lichess.unwrap().url, LICHESS_URL);
    let c = read("").unwrap();
    assert!(c.xfcc.is_none() && c.lichess.is_none() && c.broadcast.is_none());
}

#[test]
fn errors_name_the_key_and_what_would_be_right() {
    for (text, key) in [
        ("[xfcc]\nuser = \"\"\npassword_env = \"P\"", "xfcc.user"),
        (
            "[xfcc]\nuser = \"a\"\npassword_env = \"hunter2 secret\"",
            "xfcc.password_env",
        ),
        (
            "[xfcc]\nuser = \"a\"\npassword_env = \"P\"\npoll_s = 0",
            "xfcc.poll_s",
        ),
        (
            "[xfcc]\nuser = \"a\"\npassword_env = \"P\"\nurl = \"http://iccf.com/x\"",
            "xfcc.url",
        ),
        (
            "[lichess]\ntoken_env = \"T\"\nurl = \"lichess.org\"",
            "lichess.url",
        ),
        ("[broadcast]\nround_id = \"abc\"", "broadcast.token_env"),
        (
            "[broadcast]\ntoken_env = \"T\"\npgn_dir = \"/x\"",
            "broadcast.round_id",
        ),
        (
            "[broadcast]\nround_id = \"../x\"\ntoken_env = \"T\"",
            "broadcast.round_id",
        ),
        ("[broadcast]\n", "broadcast"),
    ] {
        let e = read(text).unwrap_err();
        assert_eq!(e.key, key, "{text}: {e}");
    }
    // A secret written where its variable's name belongs is not echoed back in full... but
    // it is named so the user sees what was wrong; the message says never the secret.
    let e = read("[lichess]\ntoken_env = \"lip_abc def\"").unwrap_err();
    assert!(e.message.contains("never the secret"), "{e}");
}

#[test]
fn a_missing_secret_says_which_variable() {
    let s = LichessSettings {
        url: LICHESS_URL.into(),
        token_env: "ANNABELLA_TEST_SURELY_UNSET_TOKEN".into(),
        poll: Duration::from_secs(60),
    };
    let e = s.token().unwrap_err();
    assert_eq!(e.key, "lichess.token_env");
    assert!(e.message.contains("ANNABELLA_TEST_SURELY_UNSET_TOKEN"));
}

#[test]
fn a_windows_path_written_as_windows_shows_it_is_explained() {
    // An escape TOML refuses: the error says why and how to write the path.
    let e = read("state_dir = \"C:\\Users\\anna\\chess\"\n").unwrap_err();
    assert!(
        e.message.contains("line 1") && e.message.contains("forward slashes"),
        "{e}"
    );
    // An escape TOML accepts (\n, \t, \b…) would put the games somewhere no one looks.
    for (text, key) in [
        ("state_dir = \"D:\\new\"\n", "state_dir"),
        ("log_file = \"D:\\tmp\\new.log\"\n", "log_file"),
        (
            "[broadcast]\npgn_dir = \"D:\\broadcast\"\n",
            "broadcast.pgn_dir",
        ),
        (
            "[mail]\nmaildir = \"D:\\new\"\nfrom = \"a@b.org\"\n",
            "mail.maildir",
        ),
    ] {
        let e = read(text).unwrap_err();
        assert_eq!(e.key, key, "{text}: {e}");
        assert!(e.message.contains("control character"), "{e}");
    }
    // Written any of the three right ways, it is taken.
    for text in [
        "state_dir = \"D:/chess\"\n",
        "state_dir = \"D:\\\\chess\"\n",
        "state_dir = 'D:\\chess'\n",
    ] {
        assert!(read(text).is_ok(), "{text}");
    }
}
