//! What a message says besides its move, in words and in the form's fields: the phrases people
//! write in the project's languages ("I offer a draw", "Remis?", "ich gebe auf", "draw
//! accepted"), and the field line and sentence a composed message writes for each intent.
//!
//! Conservative by design: a negated sentence ("I don't offer a draw yet") and a question
//! ("Should I offer a draw?") count for nothing, except the short questions that are offers
//! ("Remis?", "draw?"); a decline is recognised before the negation test, as it is one.

use super::intent::Intent;
use super::parts::Date;

/// What a phrase means; leave is read with its dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Offer,
    Accept,
    Resign,
    Claim,
}

impl Kind {
    fn intent(self) -> Intent {
        match self {
            Kind::Offer => Intent::OfferDraw,
            Kind::Accept => Intent::AcceptDraw,
            Kind::Resign => Intent::Resign,
            Kind::Claim => Intent::ClaimWinOnTime,
        }
    }
}

/// Declines, looked for first: they are negations themselves.
const DECLINE: &[&str] = &[
    // en
    "i decline",
    "draw declined",
    "offer declined",
    "i do not accept the draw",
    "i don t accept the draw",
    "i do not accept your draw offer",
    "i don t accept your draw offer",
    // de
    "ich lehne ab",
    "ich lehne das remis ab",
    "ich lehne remis ab",
    "remis abgelehnt",
    "ich nehme das remis nicht an",
    // es
    "rechazo las tablas",
    "rechazo el empate",
    "tablas rechazadas",
    "no acepto las tablas",
    // fr
    "je refuse la nulle",
    "je refuse la partie nulle",
    "nulle refusée",
    // it
    "rifiuto la patta",
    "patta rifiutata",
    // nl
    "ik weiger remise",
    "remise geweigerd",
    "ik sla remise af",
    // pt
    "recuso o empate",
    "empate recusado",
    "não aceito o empate",
];

/// Declines that open the sentence ("No draw, thanks"; not "I offer no draw yet").
const DECLINE_OPENING: &[&str] = &[
    "no draw",
    "no thanks to the draw",
    "kein remis",
    "pas de nulle",
    "niente patta",
    "geen remise",
    "sin tablas",
];

/// Statements (not questions), looked for in a sentence that negates nothing.
const STATEMENTS: &[(Kind, &str)] = &[
    // en
    (Kind::Accept, "i accept the draw"),
    (Kind::Accept, "i accept your draw offer"),
    (Kind::Accept, "i accept your offer of a draw"),
    (Kind::Accept, "i accept your draw"),
    (Kind::Accept, "draw accepted"),
    (Kind::Accept, "draw agreed"),
    (Kind::Offer, "i offer a draw"),
    (Kind::Offer, "i offer you a draw"),
    (Kind::Offer, "i propose a draw"),
    (Kind::Offer, "draw offered"),
    (Kind::Offer, "offer draw"),
    (Kind::Resign, "i resign"),
    (Kind::Resign, "i hereby resign"),
    (Kind::Claim, "i claim the game on time"),
    (Kind::Claim, "i claim a win on time"),
    (Kind::Claim, "i claim the win on time"),
    // de
    (Kind::Accept, "remis angenommen"),
    (Kind::Accept, "ich nehme das remis an"),
    (Kind::Accept, "ich nehme remis an"),
    (Kind::Accept, "ich nehme ihr remisangebot an"),
    (Kind::Accept, "ich nehme dein remisangebot an"),
    (Kind::Accept, "remis einverstanden"),
    (Kind::Offer, "ich biete remis an"),
    (Kind::Offer, "ich biete ihnen remis an"),
    (Kind::Offer, "ich biete dir remis an"),
    (Kind::Offer, "remis angeboten"),
    (Kind::Offer, "ich schlage remis vor"),
    (Kind::Resign, "ich gebe auf"),
    (Kind::Resign, "ich gebe die partie auf"),
    (Kind::Claim, "ich reklamiere die partie auf zeit"),
    (Kind::Claim, "ich beanspruche den sieg auf zeit"),
    (Kind::Claim, "ich reklamiere den gewinn auf zeit"),
    // es
    (Kind::Accept, "acepto las tablas"),
    (Kind::Accept, "acepto el empate"),
    (Kind::Accept, "tablas aceptadas"),
    (Kind::Offer, "ofrezco tablas"),
    (Kind::Offer, "te ofrezco tablas"),
    (Kind::Offer, "le ofrezco tablas"),
    (Kind::Offer, "propongo tablas"),
    (Kind::Resign, "abandono"),
    (Kind::Resign, "me rindo"),
    (Kind::Claim, "reclamo la partida por tiempo"),
    // fr
    (Kind::Accept, "j accepte la nulle"),
    (Kind::Accept, "j accepte la partie nulle"),
    (Kind::Accept, "nulle acceptée"),
    (Kind::Offer, "je propose la nulle"),
    (Kind::Offer, "je propose nulle"),
    (Kind::Offer, "je vous propose la nulle"),
    (Kind::Offer, "je te propose la nulle"),
    (Kind::Resign, "j abandonne"),
    (Kind::Claim, "je réclame la partie au temps"),
    (Kind::Claim, "je réclame le gain au temps"),
    // it
    (Kind::Accept, "accetto la patta"),
    (Kind::Accept, "patta accettata"),
    (Kind::Offer, "offro la patta"),
    (Kind::Offer, "propongo la patta"),
    (Kind::Offer, "ti offro la patta"),
    (Kind::Resign, "abbandono"),
    (Kind::Resign, "mi arrendo"),
    (Kind::Claim, "reclamo la partita per tempo"),
    // nl
    (Kind::Accept, "ik accepteer remise"),
    (Kind::Accept, "ik neem remise aan"),
    (Kind::Accept, "remise aangenomen"),
    (Kind::Accept, "remise geaccepteerd"),
    (Kind::Offer, "ik bied remise aan"),
    (Kind::Offer, "ik bied je remise aan"),
    (Kind::Offer, "remise aangeboden"),
    (Kind::Resign, "ik geef op"),
    (Kind::Claim, "ik claim de partij op tijd"),
    // pt
    (Kind::Accept, "aceito o empate"),
    (Kind::Accept, "empate aceito"),
    (Kind::Offer, "ofereço empate"),
    (Kind::Offer, "ofereço o empate"),
    (Kind::Offer, "proponho empate"),
    (Kind::Resign, "desisto"),
    (Kind::Claim, "reclamo a partida por tempo"),
];

/// Questions that are offers, and short questions that are the whole sentence.
const QUESTIONS: &[&str] = &[
    "would you accept a draw",
    "shall we agree a draw",
    "shall we call it a draw",
    "nehmen sie remis an",
    "nimmst du remis an",
];
const WHOLE_QUESTIONS: &[&str] = &[
    "draw", "remis", "tablas", "nulle", "patta", "remise", "empate",
];

/// Words that negate a sentence, after apostrophes became spaces ("don t").
const NEGATIONS: &[&str] = &[
    "not", "don t", "doesn t", "won t", "can t", "isn t", "didn t", "wouldn t", "never", "nicht",
    "kein", "keine", "keinen", "nie", "niemals", "noch", "pas", "jamais", "non", "niet", "geen",
    "nooit", "não", "nao", "nunca", "mai", "no", "yet",
];

/// Words that announce leave, with two dates in the same sentence.
const LEAVE_WORDS: &[&str] = &[
    "leave",
    "holiday",
    "holidays",
    "vacation",
    "urlaub",
    "ferien",
    "vacaciones",
    "vacances",
    "congé",
    "ferie",
    "vakantie",
    "férias",
];

/// Lower case, apostrophes and punctuation but `?` as spaces, one space between words.
fn normalize(sentence: &str) -> String {
    let mapped: String = sentence
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '?' || c == '-' || c == '/' || c == '.' {
                c
            } else {
                ' '
            }
        })
        .collect::<String>()
        .to_lowercase();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `hay` contains `phrase` as whole words.
fn has_phrase(hay: &str, phrase: &str) -> bool {
    let padded = format!(" {hay} ");
    padded.contains(&format!(" {phrase} "))
}

/// A date as people write it: 2026-12-20, 20.12.2026, 12/20/2026.
fn date_of(word: &str) -> Option<Date> {
    let w = word.trim_matches(|c: char| !c.is_ascii_digit());
    Date::parse(w).or_else(|| {
        // The American order when the day-first reading is no date.
        let parts: Vec<&str> = w.split('/').collect();
        let [m, d, y] = parts.as_slice() else {
            return None;
        };
        Date::new(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
    })
}

/// The intents one sentence states, at most one.
fn sentence_intent(raw: &str) -> Option<Intent> {
    let question = raw.trim_end().ends_with('?');
    let s = normalize(raw);
    let s = s.trim_end_matches(['?', '.', ' ']);
    if s.is_empty() {
        return None;
    }
    if DECLINE.iter().any(|p| has_phrase(s, p))
        || DECLINE_OPENING
            .iter()
            .any(|p| s == *p || s.starts_with(&format!("{p} ")))
    {
        return Some(Intent::DeclineDraw);
    }
    let words: Vec<&str> = s.split(' ').collect();
    let negated = NEGATIONS.iter().any(|n| has_phrase(s, n));
    if negated {
        return None;
    }
    if question {
        let offer = WHOLE_QUESTIONS.contains(&s) || QUESTIONS.iter().any(|p| has_phrase(s, p));
        return offer.then_some(Intent::OfferDraw);
    }
    if words.iter().any(|w| LEAVE_WORDS.contains(w)) {
        let dates: Vec<Date> = words.iter().filter_map(|w| date_of(w)).take(3).collect();
        if let [from, to] = dates.as_slice()
            && from <= to
        {
            return Some(Intent::Leave {
                from: *from,
                to: *to,
            });
        }
    }
    STATEMENTS
        .iter()
        .find(|(_, p)| has_phrase(s, p))
        .map(|(k, _)| k.intent())
}

/// The intents a line of the sender's own words states, in order.
pub(super) fn intents_in(line: &str, out: &mut Vec<Intent>) {
    let mut start = 0;
    for (i, c) in line.char_indices() {
        // A full stop inside a date (20.12.2026) does not end a sentence.
        let ends = matches!(c, '!' | '?' | ';')
            || (c == '.' && !line[i + 1..].starts_with(|n: char| n.is_ascii_digit()));
        if ends {
            push(sentence_intent(&line[start..i + c.len_utf8()]), out);
            start = i + c.len_utf8();
        }
    }
    push(sentence_intent(&line[start..]), out);
}

fn push(intent: Option<Intent>, out: &mut Vec<Intent>) {
    if let Some(i) = intent
        && !out.contains(&i)
        && out.len() < 16
    {
        out.push(i);
    }
}

/// The form's field line for an intent (`Offer: draw`), what `field_intent` reads back.
pub(super) fn field_line(intent: &Intent) -> String {
    match intent {
        Intent::OfferDraw => "Offer: draw".to_owned(),
        Intent::AcceptDraw => "Draw: accepted".to_owned(),
        Intent::DeclineDraw => "Draw: declined".to_owned(),
        Intent::Resign => "Resign: yes".to_owned(),
        Intent::ClaimWinOnTime => "Claim: win on time".to_owned(),
        Intent::Leave { from, to } => format!("Leave: {from} to {to}"),
    }
}

/// The same in one sentence of plain English for a human reader.
pub(super) fn sentence(intent: &Intent) -> String {
    match intent {
        Intent::OfferDraw => "I offer a draw.".to_owned(),
        Intent::AcceptDraw => "I accept the draw.".to_owned(),
        Intent::DeclineDraw => "I decline the draw.".to_owned(),
        Intent::Resign => "I resign.".to_owned(),
        Intent::ClaimWinOnTime => "I claim the game on time.".to_owned(),
        Intent::Leave { from, to } => format!("I am on leave from {from} to {to}."),
    }
}

/// Whether a line is one of the sentences [`sentence`] writes (not the sender's words).
pub(super) fn is_form_sentence(line: &str) -> bool {
    matches!(
        line,
        "I offer a draw."
            | "I accept the draw."
            | "I decline the draw."
            | "I resign."
            | "I claim the game on time."
    ) || (line.starts_with("I am on leave from ")
        && line.len() == "I am on leave from 2026-12-20 to 2026-12-31.".len())
}

/// The intent of a field line of the form (`key` lower case), if it is one.
pub(super) fn field_intent(key: &str, value: &str) -> Option<Intent> {
    let v = value.trim().to_lowercase();
    match key {
        "offer" if v == "draw" => Some(Intent::OfferDraw),
        "draw" if v == "accepted" => Some(Intent::AcceptDraw),
        "draw" if v == "declined" => Some(Intent::DeclineDraw),
        "draw" if v == "offered" => Some(Intent::OfferDraw),
        "resign" if v == "yes" => Some(Intent::Resign),
        "claim" if v == "win on time" => Some(Intent::ClaimWinOnTime),
        "leave" => {
            let (from, to) = v.split_once(" to ")?;
            let (from, to) = (Date::parse(from)?, Date::parse(to)?);
            (from <= to).then_some(Intent::Leave { from, to })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Intent> {
        let mut out = Vec::new();
        for l in text.lines() {
            intents_in(l, &mut out);
        }
        out
    }

    #[test]
    fn intents_in_words() {
        use Intent::*;
        assert_eq!(read("I offer a draw."), [OfferDraw]);
        assert_eq!(read("Draw?"), [OfferDraw]);
        assert_eq!(read("Remis?"), [OfferDraw]);
        assert_eq!(read("Hallo Bob, ich biete Remis an. Gruß"), [OfferDraw]);
        assert_eq!(read("I accept the draw, thanks!"), [AcceptDraw]);
        assert_eq!(read("Draw accepted."), [AcceptDraw]);
        assert_eq!(read("Remis angenommen"), [AcceptDraw]);
        assert_eq!(read("I decline."), [DeclineDraw]);
        assert_eq!(read("No draw, sorry."), [DeclineDraw]);
        assert_eq!(read("I resign. Congratulations!"), [Resign]);
        assert_eq!(read("Ich gebe auf."), [Resign]);
        assert_eq!(read("I claim the game on time."), [ClaimWinOnTime]);
        assert_eq!(read("J'accepte la nulle."), [AcceptDraw]);
        assert_eq!(read("Ofrezco tablas."), [OfferDraw]);
        assert_eq!(
            read("I am on leave from 2026-12-20 to 2026-12-31."),
            [Leave {
                from: Date::new(2026, 12, 20).unwrap(),
                to: Date::new(2026, 12, 31).unwrap()
            }]
        );
        assert_eq!(
            read("Urlaub vom 20.12.2026 bis 31.12.2026"),
            [Leave {
                from: Date::new(2026, 12, 20).unwrap(),
                to: Date::new(2026, 12, 31).unwrap()
            }]
        );
        assert_eq!(read("I offer a draw. I resign."), [OfferDraw, Resign]);
    }

    #[test]
    fn negations_and_questions_count_for_nothing() {
        for text in [
            "I don't offer a draw yet.",
            "I do not resign.",
            "Ich biete noch kein Remis an.",
            "Should I offer a draw?",
            "I offer a draw? No, not yet.",
            "Do you think I resign?",
            "I will never resign",
            "The draw was offered by Carol in another game last year, not by me",
            "I'm on leave soon",
            "Leave from 2026-12-31 to 2026-12-20",
            "Redraw the map",
        ] {
            assert_eq!(read(text), [], "{text}");
        }
    }

    #[test]
    fn the_forms_fields_read_back() {
        for i in [
            Intent::OfferDraw,
            Intent::AcceptDraw,
            Intent::DeclineDraw,
            Intent::Resign,
            Intent::ClaimWinOnTime,
            Intent::Leave {
                from: Date::new(2026, 12, 20).unwrap(),
                to: Date::new(2027, 1, 3).unwrap(),
            },
        ] {
            let line = field_line(&i);
            let (k, v) = line.split_once(':').unwrap();
            assert_eq!(field_intent(&k.to_lowercase(), v), Some(i), "{line}");
            assert!(is_form_sentence(&sentence(&i)));
            assert_eq!(read(&sentence(&i)), [i], "{}", sentence(&i));
        }
    }
}
