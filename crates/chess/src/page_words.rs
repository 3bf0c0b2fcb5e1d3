//! The web page's own labels in a language: the `[words.page]` table of a language file
//! (headings, buttons, the page's notices), served with the table's words (`/words.json`) so
//! that the page of a German table reads German. Optional in a language file of one's own (the
//! page then keeps its English labels); every built-in language has all of them.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The `[words.page]` table of a language file (a field of the vocabulary): label by key.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub struct PageWords(BTreeMap<String, String>);

impl PageWords {
    /// The labels by key ([`PAGE_KEYS`]); empty when the language file has none.
    pub fn labels(&self) -> &BTreeMap<String, String> {
        &self.0
    }

    /// Adds the table's problems to `problems` ([`check_page_words`]); the language's loading
    /// calls it with the vocabulary's own check.
    pub fn check(&self, problems: &mut Vec<String>) {
        check_page_words(&self.0, problems);
    }
}

/// Every label of `[words.page]` and the placeholders it may have.
pub const PAGE_KEYS: &[(&str, &[&str])] = &[
    ("board", &[]),
    ("clocks", &[]),
    ("move_entry", &[]),
    ("game", &[]),
    ("physical_boards", &[]),
    ("scoresheets", &[]),
    ("said", &[]),
    ("arbiter", &[]),
    ("export", &[]),
    ("flip", &[]),
    ("keys", &[]),
    ("send_move", &[]),
    ("tell_clock", &[]),
    ("offer_draw", &[]),
    ("claim_draw", &[]),
    ("undo", &[]),
    ("resign", &[]),
    ("log_out", &[]),
    ("tables", &[]),
    ("claim_question", &[]),
    ("claim_explain", &[]),
    ("claim_yes", &[]),
    ("keep_playing", &[]),
    ("resign_question", &[]),
    ("resign_yes", &[]),
    ("to_move", &["color"]),
    ("game_over", &[]),
    ("in_progress", &[]),
    ("running", &[]),
    ("connection_lost", &[]),
    ("reconnected", &[]),
    ("promotion_pending", &["square"]),
    ("undo_own", &[]),
    ("new_game", &[]),
    ("result", &[]),
    ("tag", &[]),
    ("read_out", &[]),
    ("hear_opponent", &[]),
    ("hear_blind", &[]),
    ("hear_moves", &[]),
    ("hear_all", &[]),
    ("draw_offered", &["color"]),
    ("clocks_stopped", &[]),
];

/// The problems of a `[words.page]` table: none when it is empty (not given); otherwise every
/// key of [`PAGE_KEYS`] once, none other, no empty label, known placeholders only.
pub fn check_page_words(page: &BTreeMap<String, String>, problems: &mut Vec<String>) {
    if page.is_empty() {
        return;
    }
    for (key, allowed) in PAGE_KEYS {
        match page.get(*key) {
            None => problems.push(format!("words.page.{key} is missing")),
            Some(label) if label.trim().is_empty() => {
                problems.push(format!("words.page.{key} is empty"));
            }
            Some(label) => match names_in(label) {
                Err(e) => problems.push(format!("words.page.{key}: {e}")),
                Ok(names) => {
                    for name in names.iter().filter(|n| !allowed.contains(n)) {
                        problems.push(format!(
                            "words.page.{key}: unknown placeholder {{{name}}}; {}",
                            if allowed.is_empty() {
                                "it has none".to_owned()
                            } else {
                                format!("it may have {{{}}}", allowed.join("}, {"))
                            }
                        ));
                    }
                }
            },
        }
    }
    for key in page.keys() {
        if !PAGE_KEYS.iter().any(|(k, _)| k == key) {
            problems.push(format!("words.page.{key}: no such label"));
        }
    }
}

/// The `{name}`s of a label, or why its braces do not pair up.
fn names_in(label: &str) -> Result<Vec<&str>, String> {
    let mut names = Vec::new();
    let mut rest = label;
    while let Some(open) = rest.find(['{', '}']) {
        let after = &rest[open + 1..];
        let close = after.find('}').filter(|_| rest[open..].starts_with('{'));
        let Some(close) = close.filter(|&c| !after[..c].contains('{')) else {
            return Err("a brace without its pair".to_owned());
        };
        names.push(&after[..close]);
        rest = &after[close + 1..];
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_page_table_is_refused_with_its_key() {
        let mut page: BTreeMap<String, String> = PAGE_KEYS
            .iter()
            .map(|(k, _)| ((*k).to_owned(), "x".to_owned()))
            .collect();
        page.insert("to_move".into(), "{colour} to move".into());
        page.insert("boards".into(), "Boards".into());
        page.remove("clocks");
        let mut problems = Vec::new();
        check_page_words(&page, &mut problems);
        let all = problems.join("; ");
        assert!(all.contains("words.page.clocks is missing"), "{all}");
        assert!(
            all.contains("words.page.to_move: unknown placeholder {colour}"),
            "{all}"
        );
        assert!(all.contains("words.page.boards: no such label"), "{all}");
        let mut none = Vec::new();
        check_page_words(&BTreeMap::new(), &mut none);
        assert!(none.is_empty());
        let mut unpaired = Vec::new();
        page.insert("to_move".into(), "{color to move".into());
        check_page_words(&page, &mut unpaired);
        assert!(
            unpaired
                .join("; ")
                .contains("words.page.to_move: a brace without its pair")
        );
    }
}
