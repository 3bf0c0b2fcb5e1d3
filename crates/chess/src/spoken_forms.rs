//! Replacing written words by the forms a voice should get, whole words only: "Cesar" becomes
//! "Zäsar" but "Cesare" stays, and a longer phrase wins over a shorter one it contains.

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
