//! A finished game whose PGN a crash kept from the archive is archived again at start, from the
//! journal: the resignation (or mate, or flag) is journaled before the archive is written, so a
//! `kill -9` between the two leaves a game over in the journal and no file in `games/`.

use std::path::Path;

use crate::io::store::{StoreHandle, archive_path};
use crate::table::state::{Table, TableSettings};

/// Archives every finished game of the table (`settings.name`) whose PGN is not in
/// `<state_dir>/games/`, replaying it from the journal. Returns how many were archived. A
/// failure is logged and the start goes on: the journal still holds the game, and the next
/// start tries again.
pub async fn archive_missing(
    store: &StoreHandle,
    state_dir: &Path,
    settings: &TableSettings,
) -> usize {
    let name = settings.name.as_str();
    let last = match store.current_game(name).await {
        Ok(Some(game)) => game,
        Ok(None) => return 0,
        Err(e) => {
            tracing::error!(table = name, error = %e, "cannot tell whether the finished games were archived");
            return 0;
        }
    };
    let mut archived = 0;
    for game in 1..=last {
        if archive_path(state_dir, name, game).exists() {
            continue;
        }
        let entries = match store.load_game(name, game).await {
            Ok(entries) if entries.is_empty() => continue,
            Ok(entries) => entries,
            Err(e) => {
                tracing::error!(table = name, game, error = %e, "reading a game to archive it failed");
                continue;
            }
        };
        let journal: Vec<(u64, String)> = entries
            .into_iter()
            .map(|e| (e.at_unix_ms, e.line))
            .collect();
        let table = match Table::restore(settings.clone(), &journal) {
            Ok(table) if table.game().is_over() => table,
            // A game left unfinished (the table's current one, going on) has no archive yet.
            Ok(_) => continue,
            Err(e) => {
                tracing::error!(table = name, game, error = %e, "a game to archive does not replay");
                continue;
            }
        };
        match store.archive_pgn(name, game, &table.pgn()).await {
            Ok(path) => {
                archived += 1;
                tracing::warn!(
                    table = name,
                    path = %path.display(),
                    "a finished game had not been archived (the daemon stopped first); archived now"
                );
            }
            Err(e) => {
                tracing::error!(table = name, game, error = %e, "archiving a finished game failed")
            }
        }
    }
    archived
}
