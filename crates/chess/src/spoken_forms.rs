//! Replacing written words by the forms a voice should get, whole words only: "Cesar" becomes
//! "Zäsar" but "Cesare" stays, and a longer phrase wins over a shorter one it contains
//! (`Vocabulary::pronounce`, and `Vocabulary::pronounce_for_espeak` with espeak-ng's phonemes).

use crate::vocabulary::Vocabulary;

impl Vocabulary {
    /// The text as the voice should say it: every written word or phrase of `[words.spoken]`
    /// replaced by its spoken form where it stands as a whole word (so "Cesar" becomes "Zäsar"
    /// but "Cesare" is left alone). Longer phrases win over shorter ones they contain. Only the
    /// speech adapter calls this, just before synthesis: transcripts, events, the page and
    /// Braille keep the written words.
    pub fn pronounce(&self, text: &str) -> String {
        let pairs: Vec<(&str, String)> = self
            .spoken
            .iter()
            .map(|(w, s)| (w.as_str(), s.clone()))
            .collect();
        replace_whole_words(text, pairs)
    }

    /// The text as espeak-ng should get it: like [`Vocabulary::pronounce`], but a word of
    /// `[words.phonemes]` is given as espeak-ng's own phonemes (`[[rOS'A:d@]]`), for the
    /// stress no spelling gets from it ("Rochade" on its second syllable).
    pub fn pronounce_for_espeak(&self, text: &str) -> String {
        let mut pairs: Vec<(&str, String)> = self
            .spoken
            .iter()
            .filter(|(w, _)| !self.phonemes.contains_key(*w))
            .map(|(w, s)| (w.as_str(), s.clone()))
            .collect();
        pairs.extend(
            self.phonemes
                .iter()
                .map(|(w, p)| (w.as_str(), format!("[[{p}]]"))),
        );
        // Brackets in the words themselves (an opponent's message read aloud) must not become
        // phonemes: only the language file's are given as such.
        let text = text.replace("[[", "[ [").replace("]]", "] ]");
        replace_whole_words(&text, pairs)
    }
}

/// `text` with each `(written, spoken)` pair's written word or phrase replaced where it stands
/// as a whole word (no letter or digit on either side).
pub(crate) fn replace_whole_words(text: &str, mut pairs: Vec<(&str, String)>) -> String {
    if pairs.is_empty() {
        return text.to_owned();
    }
    pairs.sort_by_key(|(w, _)| std::cmp::Reverse(w.chars().count()));
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    let mut prev: Option<char> = None;
    'scan: while let Some(c) = rest.chars().next() {
        if !prev.is_some_and(char::is_alphanumeric) {
            for (written, spoken) in &pairs {
                if let Some(after) = rest.strip_prefix(written)
                    && !after.chars().next().is_some_and(char::is_alphanumeric)
                {
                    out.push_str(spoken);
                    prev = written.chars().last();
                    rest = after;
                    continue 'scan;
                }
            }
        }
        out.push(c);
        prev = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}
