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
    ("code_syntax", &[]),
    ("code_auth", &[]),
    ("code_forbidden", &[]),
    ("code_move", &[]),
    ("code_state", &[]),
    ("code_rate", &[]),
    ("code_too_long", &[]),
    ("refused", &["code", "why"]),
    ("login_failed", &["why"]),
    ("enter_token", &[]),
    ("words_failed", &["error"]),
    ("no_room", &["reason"]),
    ("waiting_room", &[]),
    ("connected_as", &["role"]),
    ("role_white", &[]),
    ("role_black", &[]),
    ("role_observer", &[]),
    ("role_arbiter", &[]),
    ("closed_relogin", &[]),
    ("closed", &[]),
    ("not_connected", &[]),
    ("no_room_retry", &["reason", "n"]),
    ("lost_retry", &["n"]),
    ("reconnected_but", &["why"]),
    ("no_tables", &[]),
    ("open_table", &["table"]),
    ("table_title", &["table", "role"]),
    ("sheet_a_blind", &[]),
    ("sheet_b_sighted", &[]),
    ("game_record", &[]),
    ("second_sheet", &[]),
    ("command_preview", &[]),
    ("not_yet_move", &["why"]),
    ("understood", &["san", "uci", "spoken"]),
    ("too_long", &["bytes", "max"]),
    ("played", &["move"]),
    ("not_yours", &[]),
    ("saved_chars", &["name", "n"]),
    ("saved_bytes", &["name", "n"]),
    ("no_audio", &["why"]),
    ("audio_failed", &["error"]),
    ("logged_out", &[]),
    ("seen_white", &[]),
    ("seen_black", &[]),
    ("picture_after", &["move"]),
    ("last_move_framed", &["move"]),
    ("no_move_yet", &[]),
    ("no_moves_yet", &[]),
    ("waiting_table", &[]),
    ("mm_confirmed", &[]),
    ("clock_adjusted", &["color", "delta", "left"]),
    ("command_help", &[]),
    ("not_command", &["text"]),
    ("info_table", &["table"]),
    ("info_players", &["white", "black"]),
    ("info_unnamed", &[]),
    ("info_time", &["tc"]),
    ("info_blind", &["color"]),
    ("info_played", &["n"]),
    ("info_played_one", &[]),
    ("tc_unknown", &[]),
    ("tc_moves_in", &["moves", "time"]),
    ("tc_plus", &["time", "n"]),
    ("tc_plus_one", &["time"]),
    ("tc_then", &[]),
    ("moves_n", &["n"]),
    ("moves_n_one", &[]),
    ("half_moves", &["n"]),
    ("half_moves_one", &[]),
    ("p_needs", &[]),
    ("no_letter", &["letter"]),
    ("s_needs", &[]),
    ("m_needs", &[]),
    ("a_needs", &[]),
    ("from_square", &["square"]),
    ("takeback_done", &["plies", "taken", "white", "black"]),
    ("clocks_put_back", &["white", "black"]),
    ("wrong_claim", &["color", "why"]),
    ("result_shown", &["board", "result", "code"]),
    ("action_failed", &["message"]),
    ("daemon_stopping", &[]),
    ("result_white", &[]),
    ("result_black", &[]),
    ("result_draw", &[]),
    ("result_open", &[]),
    ("uci_words", &["from", "to"]),
    ("uci_promo", &["from", "to", "piece"]),
    ("withdrawn", &["move"]),
    ("taken_back", &["plies", "white", "black"]),
    ("clock_of", &["color", "time"]),
    ("clocks_told", &["white", "black"]),
    ("result_is", &["result"]),
    ("done", &[]),
    ("clocks_again", &[]),
    ("clocks_paused", &[]),
    ("penalty_1", &["color"]),
    ("penalty_2", &["color"]),
    ("penalty_n", &["color", "n"]),
    ("stalled", &["time"]),
    ("restart", &["time", "how", "charged"]),
    ("sheet_lags", &["side", "moves"]),
    ("sheet_lags_behind", &["side"]),
    ("sheets_agree", &[]),
    ("mm_rejected", &[]),
    ("mm_open_takeback", &[]),
    ("mm_resolved", &[]),
    ("mm_nothing", &[]),
    ("mm_none_needed", &[]),
    ("mm_open_board", &[]),
    ("mm_open_sheets", &[]),
    ("token_spaces", &[]),
    ("command_label", &[]),
    ("move_label", &[]),
    ("type_move_first", &[]),
    ("export_unreadable", &["error"]),
    ("type_sheet_first", &[]),
    ("peg_board", &[]),
    ("peg_board_blind", &[]),
    ("opponent_board", &[]),
    ("sq_empty", &["square"]),
    ("sq_has", &["square", "piece"]),
    ("sq_peg", &["square"]),
    ("board_differs", &["board", "link", "n", "squares"]),
    ("board_differs_one", &["board", "link", "squares"]),
    ("board_agrees", &["board", "link"]),
    ("recorded", &[]),
    ("game_over_result", &["result"]),
    ("game_over_why", &["result", "why"]),
    ("sheets_differ", &[]),
    ("proposal_takeback", &["plies"]),
    ("proposal_detail", &["a", "b", "white", "black"]),
    ("see_below", &[]),
    ("board_virtual", &["board"]),
    ("board_line", &["board", "link", "sync"]),
    ("sync_in", &[]),
    ("sync_differs", &[]),
    ("sync_owes", &[]),
    ("needs", &["guide"]),
    ("the_peg_board", &[]),
    ("the_opponent_board", &[]),
    ("board_differs_after", &["board", "plies"]),
    ("record_stands_correct", &["board", "guide"]),
    ("squares_marked", &[]),
    ("record_stands_guided", &[]),
    ("moves_played", &["moves"]),
    ("no_clock_yet", &[]),
    ("clocks_line", &["white", "black", "moves", "running"]),
    ("clocks_stopped_lower", &[]),
    ("white_running", &[]),
    ("black_running", &[]),
    ("one_record_note", &[]),
    ("first_diff", &["n", "color", "a", "b"]),
    ("nothing", &[]),
    ("first_diff_cell", &["move"]),
    ("one_record", &[]),
    ("sheet_no", &[]),
    ("to_blind", &[]),
    ("to_opponent", &[]),
    ("to_arbiter", &[]),
    ("to_everyone", &[]),
    ("promotion_chosen", &["piece"]),
    ("white_no_piece", &[]),
    ("black_no_piece", &[]),
    ("cleared", &[]),
    ("skip_link", &[]),
    ("login_title", &[]),
    ("login_text", &[]),
    ("token", &[]),
    ("log_in", &[]),
    ("tables_text", &[]),
    ("board_help", &[]),
    ("white", &[]),
    ("black", &[]),
    ("lang_label", &[]),
    ("promotion_title", &[]),
    ("mismatch_title", &[]),
    ("mm_step_what", &[]),
    ("mm_step_boards", &[]),
    ("mm_boards_text", &[]),
    ("mm_step_sheets", &[]),
    ("mm_sheets_text", &[]),
    ("mm_step_proposal", &[]),
    ("mm_step_decides", &[]),
    ("mm_confirm", &[]),
    ("mm_reject", &[]),
    ("mm_override_label", &[]),
    ("mm_override", &[]),
    ("mm_undo", &[]),
    ("mm_step_clocks", &[]),
    ("mm_clocks_text", &[]),
    ("record_label", &[]),
    ("record_a", &[]),
    ("record_b", &[]),
    ("record_moves_label", &[]),
    ("record_button", &[]),
    ("lag_confirm", &[]),
    ("lag_dispute", &[]),
    ("transcript_note", &[]),
    ("adjust_clock_label", &[]),
    ("adjust_seconds_label", &[]),
    ("adjust_button", &[]),
    ("penalty_label", &[]),
    ("penalty_button", &[]),
    ("new_game_label", &[]),
    ("result_label", &[]),
    ("tag_label", &[]),
    ("tag_event", &[]),
    ("tag_site", &[]),
    ("tag_round", &[]),
    ("tag_value_label", &[]),
    ("pause", &[]),
    ("resume", &[]),
    ("export_iccf", &[]),
    ("export_braille", &[]),
    ("export_brf", &[]),
    ("export_audio", &[]),
    ("resign_explain", &[]),
    ("keys_title", &[]),
    ("key_arrows", &[]),
    ("key_arrows_do", &[]),
    ("key_files", &[]),
    ("key_files_do", &[]),
    ("key_ranks", &[]),
    ("key_ranks_do", &[]),
    ("key_jump", &[]),
    ("key_jump_do", &[]),
    ("key_moves_do", &[]),
    ("key_attackers_do", &[]),
    ("key_list_do", &[]),
    ("key_line_do", &[]),
    ("key_last_do", &[]),
    ("key_clocks_do", &[]),
    ("key_state_do", &[]),
    ("key_enter", &[]),
    ("key_enter_do", &[]),
    ("key_escape", &[]),
    ("key_escape_do", &[]),
    ("key_undo", &[]),
    ("key_undo_do", &[]),
    ("close", &[]),
    ("fetching_audio", &[]),
    ("nav_label", &[]),
    ("link_connected", &[]),
    ("link_disconnected", &[]),
    ("draw_agreed", &[]),
    ("resigns", &["color"]),
    ("lang_set", &["code"]),
    ("new_game_started", &[]),
    ("tag_set", &["tag", "text"]),
    ("sheet_recorded", &["side", "plies"]),
    ("sheet_confirmed", &["side"]),
    ("sheet_disputed", &["side"]),
    ("sheet_lags_by", &["side", "plies"]),
    ("sheets_differ_after", &["plies"]),
    ("penalty_time", &["color", "left"]),
    ("second_illegal", &["color"]),
    ("ws_failed", &[]),
    ("is_it_running", &["why"]),
    ("ws_closed", &[]),
    ("entry_bytes", &["bytes", "max"]),
    ("not_connected_daemon", &[]),
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
