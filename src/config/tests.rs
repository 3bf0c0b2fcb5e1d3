//! The configuration's tests: the example file against the code, and errors that name their
//! key.

use std::path::Path;

use crate::boards::Protocol;
use crate::io::link::Endpoint;
use crate::table::control::GameTag;

use super::*;

const EXAMPLE: &str = include_str!("../../config/annabella.example.toml");

/// The keys of a TOML value, as dotted paths (tables of arrays by their first element).
fn keys(value: &toml::Value, prefix: &str, out: &mut Vec<String>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.push(path.clone());
                keys(v, &path, out);
            }
        }
        toml::Value::Array(items) => {
            if let Some(first) = items.first() {
                keys(first, prefix, out);
            }
        }
        _ => {}
    }
}

#[test]
fn the_example_documents_every_key_with_its_default() {
    let example =
        RawConfig::from_toml(EXAMPLE, Path::new("config/annabella.example.toml")).unwrap();
    #[cfg_attr(not(windows), allow(unused_mut))]
    let mut expected = RawConfig {
        tables: vec![RawTable::default()],
        ..RawConfig::default()
    };
    // Windows' default state folder is in the user's profile (`raw::default_state_dir`); the
    // example shows the service's, which the Windows package's copy replaces with a comment.
    #[cfg(windows)]
    {
        expected.state_dir = "/var/lib/annabella".into();
    }
    assert_eq!(
        example, expected,
        "the example's values differ from the defaults in the code"
    );
    let mut documented = Vec::new();
    keys(
        &toml::from_str::<toml::Value>(EXAMPLE).unwrap(),
        "",
        &mut documented,
    );
    let mut known = Vec::new();
    keys(&toml::Value::try_from(&expected).unwrap(), "", &mut known);
    documented.sort();
    known.sort();
    assert_eq!(
        documented, known,
        "keys in the example and in the code differ"
    );
    example.validate().unwrap();
}

#[test]
fn speech_outputs_serve_listeners_and_the_rate_is_kept() {
    use crate::io::speech::{BackendSpec, Listeners};
    let text = "[speech]\nbackends = \"blind=espeak-ng@plughw:1,opponent+arbiter=tts,wav:/srv/rec\"\nrate = 220";
    let config = RawConfig::from_toml(text, Path::new("x.toml"))
        .and_then(|c| c.validate())
        .unwrap();
    assert_eq!(config.speech_rate, Some(220));
    let outputs: Vec<String> = config.speech.iter().map(ToString::to_string).collect();
    assert_eq!(
        outputs,
        [
            "blind=espeak-ng@plughw:1",
            "opponent+arbiter=tts",
            "wav:/srv/rec"
        ]
    );
    assert_eq!(config.speech[2].listeners, Listeners::ALL);
    assert_eq!(
        config.speech[0].backend,
        BackendSpec::EspeakNgOn("plughw:1".into())
    );
}

#[test]
fn errors_name_the_key() {
    let check = |text: &str, key: &str| {
        let err = RawConfig::from_toml(text, Path::new("x.toml"))
            .and_then(|c| c.validate())
            .unwrap_err();
        assert!(err.to_string().starts_with(key), "{err} (want {key})");
    };
    check("listen = \"nowhere\"", "listen");
    check("web_listen = \"nowhere\"", "web_listen");
    check("log_format = \"xml\"", "log_format");
    check("[speech]\nbackends = \"radio\"", "speech.backends");
    check("[speech]\nlang = \"xx\"", "speech.lang");
    check("[speech]\nrate = 20", "speech.rate");
    check("[speech]\nbackends = \"player=tts\"", "speech.backends");
    check(
        &format!("[[table]]\nname = \"{}\"", "t".repeat(65)),
        "table[0].name",
    );
    check("[[table]]\nname = \"table one\"", "table[0].name");
    check("[clock]\ntime_control = \"40/\"", "clock.time_control");
    check("[clock]\nannounce = \"often\"", "clock.announce");
    check("[[table]]\npeg_side = \"green\"", "table[0].peg_side");
    check("[[table]]\nnormal = \"chessbase\"", "table[0].normal");
    check("[[table]]\ntouch_move = \"maybe\"", "table[0].touch_move");
    check("[[table]]\npeg = \"tcp:nohost\"", "table[0].peg");
    check(
        "[[table]]\nname = \"a\"\npeg = \"/dev/ttyUSB0\"\n\
         [[table]]\nname = \"b\"\npeg = \"/dev/ttyUSB0\"",
        "table[1].peg",
    );
    check(
        "[desk]\npeg = \"/dev/ttyACM0\"\n[[table]]\nnormal = \"dgt:/dev/ttyACM0\"",
        "desk.peg",
    );
    check(
        "[[table]]\nkind = \"correspondence\"\nopponent_email = \"not mail\"",
        "table[0].opponent_email",
    );
    check(
        "[[table]]\nkind = \"correspondence\"\nopponent_email = \"b@example.org\"\n\
         day_rules = \"fide\"",
        "table[0].day_rules",
    );
    check(
        "[[table]]\nopponent_email = \"b@example.org\"",
        "table[0].opponent_email",
    );
    check(
        "[[table]]\nkind = \"correspondence\"\nopponent_email = [\"b@example.org\", \"b at home\"]",
        "table[0].opponent_email",
    );
    check(
        "[[table]]\nkind = \"correspondence\"\nopponent_email = []",
        "table[0].opponent_email",
    );
    check(
        "[[table]]\naudio_record = \"tape\"",
        "table[0].audio_record",
    );
    // A server's game: its id is needed, an opponent's address is not; a board has no source.
    check(
        "[[table]]\nkind = \"correspondence\"\nsource = \"xfcc\"",
        "table[0].game_id",
    );
    check(
        "[[table]]\nkind = \"correspondence\"\nsource = \"pigeon\"\ngame_id = \"1\"",
        "table[0].source",
    );
    // `source` alone makes a desk game (the kind need not be written), which needs its id;
    // a live lichess table has no source.
    check("[[table]]\nsource = \"xfcc\"", "table[0].game_id");
    check(
        "[[table]]\nkind = \"lichess\"\nsource = \"xfcc\"",
        "table[0].source",
    );
    check("[[table]]\n[[table]]", "table[1].name");
    check("[control]\nmax_connections = 0", "control.max_connections");
    check("[control]\nburst = 0", "control.burst");
    check(
        "[[token]]\ntoken = \"abcdefghijklmnopq\"\nrole = \"referee\"",
        "token[0]",
    );
    check(
        "[[token]]\ntoken = \"abcdefghijklmnopq\"\nrole = \"white\"\ntables = [\"t2\"]",
        "token[0]",
    );
    check("[[token]]\ntoken = \"abc\"\nrole = \"white\"", "token[0]");
    check("colour = \"blue\"", "x.toml");
    check("listen = 3", "x.toml");
    let broken = RawConfig::from_toml("\n\nlisten = [", Path::new("x.toml"))
        .unwrap_err()
        .to_string();
    assert!(broken.contains("line 3"), "{broken}");
}

/// The example's `[[token]]` is commented out (a token copied from an example is no
/// secret); uncommented, it must be valid and name every key a token has.
#[test]
fn the_commented_token_example_is_valid() {
    let block: Vec<&str> = EXAMPLE
        .lines()
        .skip_while(|l| *l != "# [[token]]")
        .take_while(|l| l.starts_with("# "))
        .map(|l| &l[2..])
        .collect();
    assert!(
        !block.is_empty(),
        "the example has no \"# [[token]]\" block"
    );
    let text = block.join("\n");
    let raw = RawConfig::from_toml(&text, Path::new("example token")).unwrap();
    let config = raw.validate().unwrap();
    assert_eq!(config.tokens.len(), 1);
    let mut documented = Vec::new();
    keys(
        &toml::from_str::<toml::Value>(&text).unwrap(),
        "",
        &mut documented,
    );
    let mut known = Vec::new();
    keys(&toml::Value::try_from(&raw).unwrap(), "", &mut known);
    known.retain(|k| k.starts_with("token"));
    documented.sort();
    known.sort();
    assert_eq!(
        documented, known,
        "the example's token keys and the code's differ"
    );
}

#[test]
fn the_normal_board_is_virtual_or_one_of_three_e_board_families() {
    let normal = |text: &str| {
        RawConfig::from_toml(
            &format!("[[table]]\nnormal = \"{text}\""),
            Path::new("x.toml"),
        )
        .and_then(|c| c.validate())
        .map(|c| c.tables[0].normal.clone())
    };
    let serial = |baud| Endpoint::Serial {
        path: "/dev/ttyUSB0".into(),
        baud,
    };
    assert_eq!(
        normal("dgt:/dev/ttyUSB0").unwrap(),
        NormalBoard::Dgt(serial(9600))
    );
    assert_eq!(
        normal("millennium:/dev/ttyUSB0").unwrap(),
        NormalBoard::Millennium(serial(38_400))
    );
    assert_eq!(
        normal("certabo:tcp:127.0.0.1:7000").unwrap(),
        NormalBoard::Certabo(Endpoint::Tcp("127.0.0.1:7000".into()))
    );
    assert_eq!(
        normal("certabo:/dev/ttyUSB0")
            .unwrap()
            .link()
            .map(|(p, _)| p),
        Some(Protocol::Certabo)
    );
    for bad in ["certabo:", "millennium", "square:/dev/ttyUSB0"] {
        let e = format!("{:#}", normal(bad).unwrap_err());
        assert!(e.contains("table[0].normal"), "{bad}: {e}");
    }
}

#[test]
fn no_tables_means_one_simulated_table() {
    let c = RawConfig::default().validate().unwrap();
    assert_eq!(c.tables.len(), 1);
    assert_eq!(c.tables[0].peg, PegSource::Simulated);
    assert_eq!(c.tables[0].normal, NormalBoard::Virtual);
}

/// A player with only a server's games has no board table: his games are the desk's.
#[test]
fn with_a_server_and_no_table_there_is_no_board_table() {
    let raw: RawConfig =
        toml::from_str("[xfcc]\nuser = \"anna\"\npassword_env = \"ANNABELLA_XFCC_PASSWORD\"\n")
            .unwrap();
    let c = raw.validate().unwrap();
    assert!(c.tables.is_empty());
    assert_eq!(c.xfcc.unwrap().poll, std::time::Duration::from_secs(900));
}

#[test]
fn each_table_may_have_its_own_position_language_time_control_and_players() {
    let text = "[[table]]\nname = \"a\"\nlang = \"en\"\ntime_control = \"90m+30s\"\n\
                white = \"Anna  Müller\"\nround = \"3\"\n\
                fen = \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"\n\
                [[table]]\nname = \"b\"\n";
    let c = RawConfig::from_toml(text, Path::new("x.toml"))
        .unwrap()
        .validate()
        .unwrap();
    let (a, b) = (&c.tables[0], &c.tables[1]);
    assert_eq!(a.lang.as_ref().map(Language::code), Some("en"));
    assert_eq!(
        a.time_control.as_ref().map(ToString::to_string).as_deref(),
        Some("5400+30")
    );
    assert_eq!(a.fen.as_deref(), Some("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"));
    assert_eq!(
        a.tags,
        [
            (GameTag::White, "Anna Müller".to_owned()),
            (GameTag::Round, "3".to_owned())
        ]
    );
    assert!(b.lang.is_none() && b.time_control.is_none() && b.fen.is_none() && b.tags.is_empty());
    for (table, key, want) in [
        (
            "time_control = \"90+30\"",
            "table[0].time_control",
            "looks like minutes",
        ),
        ("fen = \"8/8 w\"", "table[0].fen", "\"8/8 w\""),
        ("lang = \"xx\"", "table[0].lang", "xx"),
    ] {
        let text = format!("[[table]]\nname = \"a\"\n{table}\n");
        let e = RawConfig::from_toml(&text, Path::new("x.toml"))
            .unwrap()
            .validate()
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(key) && e.contains(want), "{e}");
    }
}

/// The example's `[mail]` is commented out (no mail by default); uncommented, it is valid
/// and names every key of the section.
#[test]
fn the_commented_mail_example_is_valid() {
    let block: Vec<&str> = EXAMPLE
        .lines()
        .skip_while(|l| *l != "# [mail]")
        .take_while(|l| l.starts_with("# "))
        .map(|l| l[2..].split(" #").next().unwrap_or(""))
        .collect();
    let text = block.join("\n");
    let raw = RawConfig::from_toml(&text, Path::new("example mail")).unwrap();
    let mail = raw.mail.as_ref().unwrap();
    let documented = toml::from_str::<toml::Value>(&text).unwrap()["mail"]
        .as_table()
        .unwrap()
        .len();
    assert_eq!(documented, 6);
    let settings = raw.validate().unwrap().mail.unwrap();
    assert_eq!(settings.maildir, mail.maildir);
    assert_eq!(settings.from, "anna@example.org");
    let smtp = settings.smtp.unwrap();
    assert_eq!((smtp.host.as_str(), smtp.port), ("127.0.0.1", 2525));
    assert_eq!(smtp.security, crate::io::mail_out::Security::Plain);
    assert_eq!(
        settings.login,
        Some(("anna".to_owned(), "ANNABELLA_SMTP_PASSWORD".to_owned()))
    );
}

#[test]
fn mail_settings_are_checked() {
    use crate::io::mail_out::Security;
    let read =
        |text: &str| RawConfig::from_toml(text, Path::new("x.toml")).and_then(|c| c.validate());
    let ok = read("[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"").unwrap();
    let mail = ok.mail.unwrap();
    assert_eq!(mail.smtp, None);
    match mail.destination(Path::new("/state")).unwrap() {
        crate::io::mail_out::Destination::Outbox(dir) => {
            assert_eq!(dir, Path::new("/state/outbox"))
        }
        other => panic!("{other:?}"),
    }
    let remote =
        read("[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"\nsmtp = \"mail.example.org:587\"")
            .unwrap();
    assert_eq!(
        remote.mail.unwrap().smtp.unwrap().security,
        Security::StartTls
    );
    for (text, key, want) in [
        (
            "smtp = \"mail.example.org:25\"\nsmtp_security = \"plain\"",
            "mail.smtp",
            "loopback",
        ),
        ("smtp = \"127.0.0.1\"", "mail.smtp", "HOST:PORT"),
        ("smtp = \"127.0.0.1:0\"", "mail.smtp", "port"),
        (
            "smtp = \"127.0.0.1:25\"\nsmtp_security = \"ssl\"",
            "mail.smtp_security",
            "starttls",
        ),
        ("smtp_user = \"anna\"", "mail.smtp", "missing"),
        (
            "smtp = \"[::1]:25\"\nsmtp_user = \"anna\"",
            "mail.smtp_user",
            "together",
        ),
    ] {
        let e = read(&format!(
            "[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"\n{text}"
        ))
        .unwrap_err()
        .to_string();
        assert!(e.starts_with(key) && e.contains(want), "{e}");
    }
    let e = read("[mail]\nmaildir = \"/m\"\nfrom = \"nobody\"")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("mail.from"), "{e}");
    let e = read("[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"\nsmpt = \"x:1\"")
        .unwrap_err()
        .to_string();
    assert!(e.contains("smpt"), "{e}");
    let login = read("[mail]\nmaildir = \"/m\"\nfrom = \"a@b.org\"\nsmtp = \"localhost:25\"\nsmtp_user = \"u\"\nsmtp_password_env = \"ANNABELLA_TEST_SURELY_UNSET_VAR\"")
        .unwrap()
        .mail
        .unwrap();
    let e = login.destination(Path::new("/s")).unwrap_err().to_string();
    assert!(e.contains("ANNABELLA_TEST_SURELY_UNSET_VAR"), "{e}");
}

#[test]
fn a_lichess_table_needs_the_account_and_no_board_of_the_opponent() {
    let read =
        |text: &str| RawConfig::from_toml(text, Path::new("x.toml")).and_then(|c| c.validate());
    let account = "[lichess]\nurl = \"http://127.0.0.1:9\"\ntoken_env = \"T\"\n";
    let table = "[[table]]\nname = \"live\"\nkind = \"lichess\"\npeg = \"none\"\n";
    let err = read(table).unwrap_err().to_string();
    assert!(
        err.starts_with("table[0].kind") && err.contains("[lichess]"),
        "{err}"
    );
    let config = read(&format!("{account}{table}")).unwrap();
    assert_eq!(config.tables[0].kind, TableKind::Lichess);
    let err = read(&format!("{account}{table}normal = \"dgt:/dev/ttyUSB0\"\n"))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("table[0].normal"), "{err}");
    let second = "[[table]]\nname = \"live2\"\nkind = \"lichess\"\npeg = \"none\"\n";
    let err = read(&format!("{account}{table}{second}"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("table[1].kind") && err.contains("one lichess table"),
        "{err}"
    );
}

#[test]
fn a_server_game_is_named_by_its_source_and_id_alone() {
    let config = RawConfig::from_toml(
        "[xfcc]\nuser = \"anna\"\npassword_env = \"P\"\n\
         [[table]]\nname = \"anna-bob\"\nsource = \"xfcc\"\ngame_id = \"12345\"\n",
        Path::new("x.toml"),
    )
    .unwrap()
    .validate()
    .unwrap();
    let table = &config.tables[0];
    assert_eq!(table.name.as_str(), "anna-bob");
    assert!(
        matches!(&table.kind, TableKind::Correspondence { game_id, .. } if game_id.as_str() == "12345"),
        "{:?}",
        table.kind
    );
}
