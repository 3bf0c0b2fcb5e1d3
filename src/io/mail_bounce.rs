//! Delivery-status notifications (bounces) among the incoming mail: RFC 3464's
//! `multipart/report; report-type=delivery-status` with the original's headers
//! (`text/rfc822-headers` or `message/rfc822`), and the common non-standard ones — Exim's "Mail
//! delivery failed: returning message to sender", Postfix's "Undelivered Mail Returned to
//! Sender", qmail's "failure notice", Gmail's "Delivery Status Notification (Failure)",
//! Exchange's and Outlook's "Undeliverable:" — read for what names the reply that bounced: the
//! original's Message-ID (and, failing that, its subject) and the reason.
//!
//! The original's headers are found in the text after the notification's own headers (every
//! format quotes them, as a part or inline); the notification's own Message-ID is never taken
//! for the original's.

use mail_parser::{Message, MimeHeaders};

/// What a bounce says of the message that was not delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounce {
    /// The Message-IDs quoted from the original's headers (with angle brackets).
    pub original_ids: Vec<String>,
    /// The original's subject, when quoted.
    pub original_subject: Option<String>,
    /// Why, in the reporting server's words (`Diagnostic-Code`, else `Status`, else the first
    /// line of its explanation), on one line.
    pub reason: String,
}

/// Subjects of the common non-standard bounces (compared lower-case, at the subject's start or
/// anywhere for the longer phrases).
const BOUNCE_SUBJECTS: &[&str] = &[
    "mail delivery failed",
    "undelivered mail returned to sender",
    "failure notice",
    "delivery status notification (failure)",
    "undeliverable:",
    "unzustellbar:",
    "returned mail:",
    "delivery failure",
    "mail delivery failure",
    "message not delivered",
];
/// The most Message-IDs taken from one bounce.
const MAX_IDS: usize = 8;
/// The longest reason kept.
const MAX_REASON_CHARS: usize = 300;

/// The bounce `message` is, or `None` for a message that is no bounce. `raw` is its bytes.
pub fn read_bounce(message: &Message<'_>, raw: &[u8]) -> Option<Bounce> {
    let subject = message.subject().unwrap_or_default().to_lowercase();
    let report = message.content_type().is_some_and(|ct| {
        ct.ctype().eq_ignore_ascii_case("multipart")
            && ct
                .subtype()
                .is_some_and(|s| s.eq_ignore_ascii_case("report"))
            && ct
                .attribute("report-type")
                .is_none_or(|r| r.eq_ignore_ascii_case("delivery-status"))
    });
    let from_daemon = message
        .from()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .is_some_and(|a| {
            let a = a.to_lowercase();
            a.starts_with("mailer-daemon@") || a.starts_with("postmaster@")
        })
        || message
            .header_raw("Return-Path")
            .is_some_and(|r| r.trim() == "<>");
    let bounce_subject = BOUNCE_SUBJECTS.iter().any(|s| subject.contains(s));
    if !(report || (bounce_subject && from_daemon) || (bounce_subject && has_quoted_id(raw))) {
        return None;
    }
    let text = String::from_utf8_lossy(raw);
    // The notification's own headers end at the first empty line; the rest quotes the
    // original.
    let body = split_body(&text);
    let mut original_ids = Vec::new();
    let mut original_subject = None;
    let mut reason = None;
    let mut status = None;
    for line in body.lines() {
        let line = line.trim_start_matches('>').trim_start();
        let (name, value) = match line.split_once(':') {
            Some((n, v)) => (n.trim().to_ascii_lowercase(), v.trim()),
            None => continue,
        };
        match name.as_str() {
            "message-id" => {
                if let Some(id) = crate::io::mail_out::bracketed(value)
                    && !original_ids.contains(&id)
                    && original_ids.len() < MAX_IDS
                {
                    original_ids.push(id);
                }
            }
            "subject" if original_subject.is_none() => {
                original_subject = Some(value.to_owned());
            }
            "diagnostic-code" if reason.is_none() => {
                // "smtp; 550 5.1.1 <bob@example.org>: user unknown"
                let code = value.split_once(';').map_or(value, |(_, c)| c.trim());
                reason = Some(code.to_owned());
            }
            "status" if status.is_none() => status = Some(value.to_owned()),
            _ => {}
        }
    }
    let reason = reason
        .or(status.map(|s| format!("status {s}")))
        .or_else(|| first_explanation(message))
        .unwrap_or_else(|| message.subject().unwrap_or("bounced").to_owned());
    let reason: String = reason
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_REASON_CHARS)
        .collect();
    Some(Bounce {
        original_ids,
        original_subject,
        reason,
    })
}

/// Whether the text after the headers quotes a Message-ID (a bounce that quotes the original).
fn has_quoted_id(raw: &[u8]) -> bool {
    let text = String::from_utf8_lossy(raw);
    split_body(&text).lines().any(|l| {
        l.trim_start_matches('>')
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("message-id:")
    })
}

/// The text after the first empty line (the headers' end).
fn split_body(text: &str) -> &str {
    text.find("\r\n\r\n")
        .map(|i| &text[i + 4..])
        .or_else(|| text.find("\n\n").map(|i| &text[i + 2..]))
        .unwrap_or("")
}

/// The line of the notification's explanation that says why: the first with an SMTP reply
/// code (`550`), else the first that says it failed (not the greeting).
fn first_explanation(message: &Message<'_>) -> Option<String> {
    let body = message.body_text(0)?;
    let code = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_ascii_digit());
        w.len() == 3 && (w.starts_with('5') || w.starts_with('4'))
    };
    if let Some(line) = body
        .lines()
        .map(str::trim)
        .find(|l| l.split_whitespace().any(code))
    {
        return Some(line.to_owned());
    }
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .find(|l| {
            let l = l.to_lowercase();
            l.contains("fail")
                || l.contains("could not")
                || l.contains("couldn't")
                || l.contains("undeliver")
                || l.contains("not be delivered")
                || l.contains("wasn't delivered")
                || l.contains("rejected")
                || l.contains("unknown")
                || l.contains("does not exist")
        })
        .map(str::to_owned)
}
