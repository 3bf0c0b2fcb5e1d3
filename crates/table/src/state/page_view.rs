//! `view`: the table's whole state for a page — the position and last move in the table's
//! letters and words, the result with its reason in words, each board's agreement and the
//! correction its player is told, the two-sheet procedure while it is open — so that a page
//! opened late, reloaded or reconnected shows what is true without replaying events.

use shakmaty::{Color, Position};

use crate::control::GameTag;
use crate::corrections::spoken;
use crate::reply::{BoardStatus, PageBoard, PageEnd, PageMove, PageProcedure, PageView};
use crate::state::Table;
use crate::state::board_pair::Board;
use annabella_chess::notation::{Notation, Style, format_move};
use annabella_chess::phrases::move_phrase;

fn color_word(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl Table {
    pub(super) fn page_view(&self) -> PageView {
        let game = &self.state.game;
        let status = self.status();
        let last_move = game.ply_count().checked_sub(1).and_then(|ply| {
            let before = game.position_before(ply)?;
            let m = *game.moves().get(ply)?;
            Some(PageMove {
                uci: self.uci(m).to_string(),
                san_local: format_move(
                    &before,
                    game.castling_mode(),
                    m,
                    Notation::San,
                    &Style::new(self.settings.lang),
                ),
                words: move_phrase(&before, m, &self.announcer.style()),
                number: before.fullmoves().get(),
                color: color_word(before.turn()),
            })
        });
        let end = game.outcome().map(|end| {
            let mut words = self.announcer.end_words(&end);
            // A mate is said with its move: the view says it with the result.
            if matches!(end.reason, annabella_chess::game::EndReason::Checkmate)
                && let Some(m) = &last_move
            {
                words = format!("{}. {words}", m.words);
            }
            PageEnd {
                result: end.result.pgn(),
                words,
            }
        });
        let board = |b: &Board, s: &BoardStatus| PageBoard {
            connected: s.connected,
            sync: s.sync.keyword(),
            guide: b.guided.as_ref().map(|c| spoken(c, self.announcer.vocab())),
        };
        let sheets = &self.state.sheets;
        let procedure = sheets.pending().then(|| PageProcedure {
            proposal_plies: sheets.proposal().map(|p| p.plies),
            explain: sheets
                .proposal()
                .map(|p| p.explanation.clone())
                .unwrap_or_default(),
            lagging: sheets.lagging().map(|side| side.letter()),
        });
        let tag = |t: GameTag| self.state.tags.get(&t).cloned();
        PageView {
            table: self.settings.name.to_string(),
            lang: self.settings.lang.code().to_owned(),
            fen: game.fen(),
            ply: game.ply_count(),
            turn: color_word(game.turn()),
            peg_side: color_word(self.settings.peg_side),
            time_control: self.settings.time_control.to_string(),
            white: tag(GameTag::White),
            black: tag(GameTag::Black),
            last_move,
            result: status.result,
            end,
            peg: board(&self.boards.peg, &status.peg),
            normal: match (&self.boards.normal, &status.normal) {
                (Some(b), Some(s)) => Some(board(b, s)),
                _ => None,
            },
            procedure,
            draw_offer: status.draw_offer.map(color_word),
            promotion: status.promotion.map(|(from, to)| format!("{from}{to}")),
            moves: game
                .moves()
                .iter()
                .map(|m| self.uci(*m).to_string())
                .collect(),
            game_id: tag(GameTag::GameId),
        }
    }
}
