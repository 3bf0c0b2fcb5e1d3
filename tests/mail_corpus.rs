//! The mail corpus (`tests/data/mail/corpus/`, written by its `generate.py`): raw messages as
//! Thunderbird, Outlook, Gmail, Apple Mail, an iPhone and mutt write them, all replies in one
//! BCA game, read with the real MIME reader (`io::maildir::parse_message`) and then by
//! `message::parse` and `check_against`, each against `expected.toml`. Prints "genuine
//! messages played N/M" and asserts every case; a reply with a photo over 1 MiB is built here.

use std::fs;
use std::path::{Path, PathBuf};

use annabella::chess::game::Game;
use annabella::chess::language::Language;
use annabella::chess::notation::{Notation, Style, format_move, parse_move};
use annabella::correspondence::message::{self, Date, Intent, Verdict};
use annabella::io::maildir;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail/corpus")
}

/// The game after the first `plies` half-moves of the record.
fn game_of(record: &[&str], plies: usize) -> Game {
    let mut g = Game::new();
    for m in &record[..plies] {
        let mv = parse_move(
            g.position(),
            g.castling_mode(),
            m,
            Some(Notation::Iccf),
            Language::english(),
        )
        .unwrap();
        g.play(mv).unwrap();
    }
    g
}

fn intent_name(i: &Intent) -> String {
    match i {
        Intent::OfferDraw => "offer_draw".into(),
        Intent::AcceptDraw => "accept_draw".into(),
        Intent::DeclineDraw => "decline_draw".into(),
        Intent::Resign => "resign".into(),
        Intent::ClaimWinOnTime => "claim_win_on_time".into(),
        Intent::Leave { from, to } => format!("leave {from} {to}"),
    }
}

/// What a message read as, in the manifest's words; `Err` says what is wrong with it.
fn outcome(raw: &[u8], name: &str, record: &[&str], case: &toml::Table) -> Result<(), String> {
    let mail = maildir::parse_message(raw, name).map_err(|e| format!("not mail: {e:?}"))?;
    if mail.from.as_deref() != Some("bob.jones@example.org") {
        return Err(format!("sender {:?}", mail.from));
    }
    let parsed = message::parse(&mail.subject, &mail.body).map_err(|e| e.to_string())?;
    let want_game = case["game"].as_bool().unwrap();
    let got_game = parsed.game.as_ref().map(|g| g.as_str().to_owned());
    if want_game != (got_game.as_deref() == Some("BCA-7")) {
        return Err(format!("game {got_game:?}"));
    }
    let plies = case["plies"].as_integer().unwrap() as usize;
    let lang = Language::builtin(case["lang"].as_str().unwrap()).unwrap();
    let game = game_of(record, plies);
    let verdict = message::check_against(&parsed, &game, lang);
    let intents: Vec<String> = parsed.intents.iter().map(intent_name).collect();
    let want_intents: Vec<String> = case["intents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    if intents != want_intents {
        return Err(format!("intents {intents:?}, text {:?}", parsed.text));
    }
    let ok = match (case["expect"].as_str().unwrap(), &verdict) {
        ("move", Verdict::NewMove { ply, mv }) => {
            let style = Style::new(Language::english());
            let iccf = format_move(
                game.position(),
                game.castling_mode(),
                *mv,
                Notation::Iccf,
                &style,
            );
            *ply == plies && Some(iccf.as_str()) == case.get("move").and_then(|m| m.as_str())
        }
        ("nothing_new", Verdict::NothingNew { .. }) => true,
        ("no_move", Verdict::NoMove) => true,
        ("disagrees", Verdict::Disagrees(d)) => {
            Some(d.new_move_only) == case.get("new_move_only").and_then(|b| b.as_bool())
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("verdict {verdict:?}; text {:?}", parsed.text))
    }
}

/// A reply from an iPhone with a photo of the board attached, the whole file over 1 MiB.
fn reply_with_photo(record: &[&str]) -> Vec<u8> {
    let quoted: String = format!(
        "Game: BCA-7\nWhite: Bob Jones\nBlack: Anna Schmidt\nMove: 7... {}\n\nMoves:\n",
        record[13]
    ) + &record[..14]
        .chunks(2)
        .enumerate()
        .map(|(i, p)| format!("{}. {}\n", i + 1, p.join(" ")))
        .collect::<String>();
    let quoted: String = quoted.lines().map(|l| format!("> {l}\r\n")).collect();
    // A JPEG's bytes do not matter to the reader: 1.2 MiB of pseudo-random data, base64.
    let mut state: u32 = 0x1234_5678;
    let photo: Vec<u8> = (0..1_250_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect();
    let b64 = base64(&photo);
    let mut out = String::new();
    out.push_str(
        "From: Bob Jones <bob.jones@example.org>\r\nTo: Anna Schmidt <anna@example.net>\r\n\
         Subject: Re: BCA-7: 7... 4746 (Bob Jones - Anna Schmidt)\r\n\
         Date: Mon, 23 Nov 2026 18:50:00 +0100\r\nMessage-ID: <iphone.photo@example.org>\r\n\
         X-Mailer: iPhone Mail (21B101)\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"Apple-Mail-photo\"\r\n\r\n\
         --Apple-Mail-photo\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: 7bit\r\n\r\n8. c3\r\n\r\nPhoto of my board attached.\r\n\r\n\
         Sent from my iPhone\r\n\r\n> On 23 Nov 2026, at 10:15, Anna Schmidt <anna@example.net> wrote:\r\n",
    );
    out.push_str(&quoted);
    out.push_str(
        "\r\n--Apple-Mail-photo\r\nContent-Type: image/jpeg; name=\"board.jpeg\"\r\n\
         Content-Disposition: attachment; filename=\"board.jpeg\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n",
    );
    for line in b64.as_bytes().chunks(76) {
        out.push_str(std::str::from_utf8(line).unwrap());
        out.push_str("\r\n");
    }
    out.push_str("--Apple-Mail-photo--\r\n");
    out.into_bytes()
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ABC[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn the_corpus_reads_as_expected() {
    let manifest: toml::Table = fs::read_to_string(corpus().join("expected.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let record: Vec<&str> = manifest["record"].as_str().unwrap().split(' ').collect();
    let cases = manifest["case"].as_array().unwrap();
    let mut files: Vec<String> = fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".eml"))
        .collect();
    files.sort();
    let mut named: Vec<&str> = cases.iter().map(|c| c["file"].as_str().unwrap()).collect();
    named.sort();
    assert_eq!(files, named, "every file has its case, every case its file");
    assert!(cases.len() >= 40, "{} cases", cases.len());

    let mut failures = Vec::new();
    let (mut genuine, mut played) = (0, 0);
    let mut each = |name: &str, raw: &[u8], case: &toml::Table| {
        let is_move = case["expect"].as_str() == Some("move");
        genuine += usize::from(is_move);
        match outcome(raw, name, &record, case) {
            Ok(()) => played += usize::from(is_move),
            Err(why) => failures.push(format!("{name} ({}): {why}", case["note"])),
        }
    };
    for case in cases {
        let case = case.as_table().unwrap();
        let name = case["file"].as_str().unwrap();
        let raw = fs::read(corpus().join(name)).unwrap();
        each(name, &raw, case);
    }
    // The photo reply, over the 1 MiB the Maildir reader takes today (the MIME reader itself
    // reads it: its text part is the move).
    let photo = reply_with_photo(&record);
    assert!(photo.len() > 1024 * 1024, "{}", photo.len());
    let case: toml::Table = format!(
        "file = \"photo\"\nnote = \"a reply with a photo over 1 MiB\"\nplies = 14\nlang = \"de\"\n\
         expect = \"move\"\nmove = \"{}\"\nintents = []\ngame = true\n",
        record[14]
    )
    .parse()
    .unwrap();
    each("generated: reply with a photo over 1 MiB", &photo, &case);

    println!("genuine messages played {played}/{genuine}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(played, genuine);
    // Leave dates are read as dates.
    assert!(cases.iter().any(|c| {
        c["intents"].as_array().unwrap().iter().any(|i| {
            i.as_str()
                == Some(&format!(
                    "leave {} {}",
                    Date::new(2026, 12, 20).unwrap(),
                    Date::new(2026, 12, 31).unwrap()
                ))
        })
    }));
}
