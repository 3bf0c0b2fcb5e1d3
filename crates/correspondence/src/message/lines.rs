//! A message body sorted line by line before anything is read from it: how deep each line is
//! quoted, which lines are the mail client's quote headers, forwarded or "Original Message"
//! blocks (everything below them is the earlier mail even without `>`), and which are the
//! signature ("-- ", "Sent from my iPhone"). Only what is left at depth 0 is the sender's own.

/// The most lines looked at.
pub(super) const MAX_LINES: usize = 20_000;
/// Lines longer than this are skipped (no move line is; a pasted blob may be).
pub(super) const MAX_LINE_CHARS: usize = 2000;

/// One line of the body, sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Line<'a> {
    /// 0: the sender's own text; 1 and more: quoted (by `>` or below a quote block).
    pub depth: usize,
    /// The line without its quote marks, trimmed.
    pub text: &'a str,
    /// A quote header, a block marker or a signature line: neither moves nor words.
    pub skip: bool,
}

/// Words that end a mail client's quote header ("On … Anna wrote:", "Am … schrieb Anna:").
const QUOTE_WORDS: &[&str] = &[
    "wrote",
    "writes",
    "schrieb",
    "geschrieben",
    "écrit",
    "escribió",
    "scritto",
    "scrisse",
    "schreef",
    "escreveu",
];

/// How such a header starts when a client wraps it over two lines.
const HEADER_STARTS: &[&str] = &["on ", "am ", "le ", "el ", "il ", "op ", "em ", "den "];

/// Lines after which everything is the earlier mail, quoted or not (forwards, Apple Mail).
const BLOCK_LINES: &[&str] = &[
    "begin forwarded message:",
    "anfang der weitergeleiteten nachricht:",
    "début du message réexpédié :",
    "début du message réexpédié:",
    "inicio del mensaje reenviado:",
    "inizio messaggio inoltrato:",
    "begin doorgestuurd bericht:",
    "início da mensagem reencaminhada:",
];

/// The first field of an Outlook header block ("From: …" then "Sent: …").
const BLOCK_FROM: &[&str] = &["from:", "von:", "de:", "da:", "van:", "de :"];
/// Its date field, one of the next three lines.
const BLOCK_SENT: &[&str] = &[
    "sent:",
    "gesendet:",
    "date:",
    "datum:",
    "envoyé :",
    "envoyé:",
    "enviado:",
    "inviato:",
    "verzonden:",
    "data:",
];

/// Lines that start a signature besides "-- ".
const SIGNATURE_STARTS: &[&str] = &[
    "sent from my ",
    "sent from mail for ",
    "sent from outlook",
    "get outlook for ",
    "von meinem ",
    "gesendet von meinem ",
    "gesendet von ",
    "envoyé de mon ",
    "enviado desde mi ",
    "enviado do meu ",
    "inviato da ",
    "verzonden vanaf ",
    "verstuurd vanaf ",
];

/// The quoting depth of a line (`> > text` is 2) and the line without its marks.
pub(super) fn unquote(line: &str) -> (usize, &str) {
    let mut depth = 0;
    let mut rest = line.trim_start();
    while let Some(r) = rest.strip_prefix('>') {
        depth += 1;
        rest = r.trim_start();
    }
    (depth.min(64), rest.trim_end())
}

fn has_word(lower: &str, word: &str) -> bool {
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w == word)
}

fn has_quote_word(lower: &str) -> bool {
    QUOTE_WORDS.iter().any(|w| has_word(lower, w))
}

/// A line of dashes around words ("-----Original Message-----", "---------- Forwarded
/// message ---------", "-------- Weitergeleitete Nachricht --------") or of underscores.
fn is_block_marker(lower: &str) -> bool {
    if lower.len() >= 10 && lower.chars().all(|c| c == '_') {
        return true;
    }
    let dashes =
        |s: &str| s.starts_with("---") && s.ends_with("---") && s.chars().any(char::is_alphabetic);
    dashes(lower) || BLOCK_LINES.contains(&lower)
}

fn starts_with_any(lower: &str, list: &[&str]) -> bool {
    list.iter().any(|p| lower.starts_with(p))
}

/// Sorts a body's lines (already bounded in bytes by the caller).
pub(super) fn sort(body: &str) -> Vec<Line<'_>> {
    let raw: Vec<(usize, &str)> = body
        .lines()
        .take(MAX_LINES)
        .map(|l| {
            if l.chars().count() > MAX_LINE_CHARS {
                (0, "")
            } else {
                unquote(l)
            }
        })
        .collect();
    let lower: Vec<String> = raw.iter().map(|(_, t)| t.to_lowercase()).collect();
    let mut out = Vec::with_capacity(raw.len());
    // Added to every line's depth below a block marker: the earlier mail.
    let mut below = 0;
    // The depth whose signature is being skipped.
    let mut signature: Option<usize> = None;
    let mut i = 0;
    while i < raw.len() {
        let (d, text) = raw[i];
        let l = &lower[i];
        let next = lower.get(i + 1).map(String::as_str).unwrap_or("");
        let next_same = raw.get(i + 1).is_some_and(|(nd, _)| *nd == d);
        // A quote header on one line, or wrapped over two.
        // mutt's attribution: "* Anna Schmidt <anna@example.net> [2026-11-23 10:15]:".
        let mutt = l.starts_with("* ") && l.ends_with("]:") && l.contains('@');
        let header_one = (has_quote_word(l) && l.ends_with(':')) || mutt;
        let header_two = next_same
            && next.ends_with(':')
            && next.chars().count() < 80
            && (starts_with_any(l, HEADER_STARTS) || has_quote_word(l))
            && has_quote_word(&format!("{l} {next}"));
        // A header block right below a marker ("-----Original Message-----") is the same block.
        let after_marker = i.checked_sub(1).is_some_and(|p| is_block_marker(&lower[p]))
            || i.checked_sub(2)
                .is_some_and(|p| is_block_marker(&lower[p]) && lower[p + 1].is_empty());
        let outlook = !after_marker
            && starts_with_any(l, BLOCK_FROM)
            && (1..=3).any(|k| {
                lower
                    .get(i + k)
                    .is_some_and(|n| starts_with_any(n, BLOCK_SENT))
            });
        if is_block_marker(l) || outlook {
            below += 1;
            signature = None;
            out.push(Line {
                depth: d + below,
                text,
                skip: true,
            });
            i += 1;
            continue;
        }
        let depth = d + below;
        if header_one || header_two {
            signature = None;
            out.push(Line {
                depth,
                text,
                skip: true,
            });
            let mut dated = l.contains(|c: char| c.is_ascii_digit());
            if header_two && !header_one {
                dated |= next.contains(|c: char| c.is_ascii_digit());
                out.push(Line {
                    depth,
                    text: raw[i + 1].1,
                    skip: true,
                });
                i += 1;
            }
            i += 1;
            // A client's dated header of the sender's own text with the earlier mail below it
            // unquoted (an HTML reply's blockquote read as text): all below is the earlier mail.
            // ("As you wrote:" has no date and only its own line is skipped.)
            let below_unquoted = raw[i..]
                .iter()
                .find(|(_, t)| !t.is_empty())
                .is_some_and(|(nd, _)| *nd == 0);
            if d == 0 && dated && below_unquoted {
                below += 1;
            }
            continue;
        }
        if l == "--" || starts_with_any(l, SIGNATURE_STARTS) {
            signature = Some(depth);
        } else if signature.is_some_and(|s| s != depth) {
            signature = None;
        }
        out.push(Line {
            depth,
            text,
            skip: signature.is_some(),
        });
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(body: &str) -> Vec<&str> {
        sort(body)
            .into_iter()
            .filter(|l| l.depth == 0 && !l.skip)
            .map(|l| l.text)
            .collect()
    }

    #[test]
    fn quote_headers_and_blocks_are_not_the_senders_own() {
        let body = "5878\n\nOn Mon, 23 Nov 2026 at 10:15, Anna <a@example.org> wrote:\n> 8. 3233\n";
        assert_eq!(own(body), ["5878", ""]);
        let body = "Mein Zug: 5878\nAm 23.11.2026 um 10:15 schrieb Anna:\n> x\n";
        assert_eq!(own(body), ["Mein Zug: 5878"]);
        // Gmail wraps the header.
        let body =
            "5878\nOn Mon, Nov 23, 2026 at 10:15 AM Anna Schmidt <\nanna@example.org> wrote:\n> x";
        assert_eq!(own(body), ["5878"]);
        // Outlook's top-posting: everything below the block is the earlier mail.
        let body = "5878\n\n-----Original Message-----\nFrom: Anna\nSent: Monday\n8. 3233\n";
        assert_eq!(own(body), ["5878", ""]);
        let lines = sort(body);
        assert!(lines.iter().any(|l| l.text == "8. 3233" && l.depth == 1));
        let body = "5878\nFrom: Anna Schmidt <anna@example.org>\nSent: Monday, 23 November 2026 10:15\nTo: Bob\n\n1. 5254";
        assert_eq!(own(body), ["5878"]);
        // An HTML reply read as text: the blockquote is not marked.
        let body =
            "2. Nf3\nOn Mon, 23 Nov 2026 at 10:15, Anna <a@x> wrote:\nGame: BCA-7\nOffer: draw";
        assert_eq!(own(body), ["2. Nf3"]);
        let body = "As you wrote:\nOffer: draw";
        assert_eq!(own(body), ["Offer: draw"]);
        let body = "see below\n---------- Forwarded message ---------\nFrom: Anna\n1. 5254";
        assert_eq!(own(body), ["see below"]);
        let body = "FYI\n\nBegin forwarded message:\n\nFrom: Anna\n1. 5254";
        assert_eq!(own(body), ["FYI", ""]);
        let body = "Zug 2: 7163\n* Anna Schmidt <anna@example.net> [2026-11-23 10:15]:\n> 1. 5254";
        assert_eq!(own(body), ["Zug 2: 7163"]);
        let body = "7163\nLe 23/11/2026 à 10:15, Anna a écrit :\n> 1. 5254";
        assert_eq!(own(body), ["7163"]);
    }

    #[test]
    fn signatures_are_not_the_senders_own() {
        let body = "5878\n-- \nBob Jones\n+49 30 1234 5678\n";
        assert_eq!(own(body), ["5878"]);
        let body = "5878\n\nSent from my iPhone\n\n> On Mon, Anna wrote:\n> 1. 5254\n";
        assert_eq!(own(body), ["5878", ""]);
        let body = "5878\nVon meinem iPhone gesendet\n1234 5678";
        assert_eq!(own(body), ["5878"]);
        // The signature ends where the quote starts; the reply below it is the sender's again.
        let body = "> 1. 5254\n5755\n-- \nBob\n> more\nthanks";
        assert_eq!(own(body), ["5755", "thanks"]);
    }
}
