//! The page's JSON: the `view` reply's object and each event's object (`docs/web.md`). The core
//! hands over typed values; this is the one place their JSON is written.

use crate::table::reply::{PageBoard, PageView};

/// The `view` reply's JSON object (`docs/control-protocol.md`, `view`).
pub fn view_json(view: &PageView) -> serde_json::Value {
    use serde_json::json;
    let board = |b: &PageBoard| json!({"connected": b.connected, "sync": b.sync, "guide": b.guide});
    json!({
        "table": view.table, "lang": view.lang, "fen": view.fen, "ply": view.ply,
        "turn": view.turn, "peg_side": view.peg_side, "time_control": view.time_control,
        "white": view.white, "black": view.black,
        "last_move": view.last_move.as_ref().map(|m| json!({
            "uci": m.uci, "san_local": m.san_local, "words": m.words,
            "number": m.number, "color": m.color
        })),
        "result": view.result,
        "end": view.end.as_ref().map(|e| json!({"result": e.result, "words": e.words})),
        "peg": board(&view.peg),
        "normal": view.normal.as_ref().map(board),
        "procedure": view.procedure.as_ref().map(|p| json!({
            "proposal_plies": p.proposal_plies, "explain": p.explain, "lagging": p.lagging
        })),
        "draw_offer": view.draw_offer,
        "promotion": view.promotion,
    })
}
