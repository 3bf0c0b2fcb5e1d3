//! The real game collection both benchmarks read: the TWIC and lichess samples that the
//! pgn-reader crate ships in its package (cargo has them on disk because annabella depends on
//! pgn-reader), or `ANNABELLA_BENCH_PGN=file.pgn`.

use std::path::PathBuf;

use annabella::chess::game::Game;
use annabella::chess::pgn;

fn corpus_files() -> Vec<PathBuf> {
    if let Ok(path) = std::env::var("ANNABELLA_BENCH_PGN") {
        return vec![PathBuf::from(path)];
    }
    let cargo_home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cargo")
        });
    let mut files = Vec::new();
    if let Ok(registries) = std::fs::read_dir(cargo_home.join("registry/src")) {
        for registry in registries.flatten() {
            for name in ["twic1599_1000k.pgn", "lichess_db_1000k.pgn"] {
                let path = registry.path().join("pgn-reader-0.29.0/benches").join(name);
                if path.exists() {
                    files.push(path);
                }
            }
        }
    }
    files.truncate(2);
    assert!(
        !files.is_empty(),
        "no game collection found: set ANNABELLA_BENCH_PGN=path.pgn"
    );
    files
}

/// Up to `limit` games with at least one move, in file order.
pub fn games(limit: usize) -> Vec<Game> {
    let mut out = Vec::new();
    for path in corpus_files() {
        let text = std::fs::read_to_string(&path).expect("game collection is readable");
        for game in pgn::read_games(&text).into_iter().flatten() {
            if out.len() >= limit {
                return out;
            }
            // A score that goes on past a dead position (four games of the TWIC sample) is no
            // game a live table plays: the table ends it there.
            if game.game.ply_count() > 0 && game.played_past.is_none() {
                out.push(game.game);
            }
        }
    }
    out
}
