//! A finished game whose PGN a crash kept from the archive is archived again at start, from the
//! journal: the resignation (or mate, or flag) is journaled before the archive is written, so a
//! `kill -9` between the two leaves a game over in the journal and no file in `games/`.

use std::path::Path;

use crate::io::store::{StoreHandle, archive_path};
use crate::table::state::Table;

/// Archives `table`'s current game (restored from the journal, and over) if its PGN is not in
/// `<state_dir>/games/`. A failure is logged: the journal still holds the game, and the next
/// start tries again while it is the table's current game.
pub async fn archive_if_missing(store: &StoreHandle, state_dir: &Path, table: &Table) {
    let name = table.name();
    let game = match store.current_game(name).await {
        Ok(Some(game)) => game,
        Ok(None) => return,
        Err(e) => {
            tracing::error!(table = name, error = %e, "cannot tell whether the finished game was archived");
            return;
        }
    };
    let path = archive_path(state_dir, name, game);
    if path.exists() {
        return;
    }
    match store.archive_pgn(name, game, &table.pgn()).await {
        Ok(path) => tracing::warn!(
            table = name,
            path = %path.display(),
            "the finished game had not been archived (the daemon stopped first); archived now"
        ),
        Err(e) => tracing::error!(table = name, error = %e, "archiving the finished game failed"),
    }
}
