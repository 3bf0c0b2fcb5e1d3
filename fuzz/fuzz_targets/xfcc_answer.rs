//! Fuzz target: arbitrary text read as XFCC answers and calls (`correspondence::xfcc`) and as
//! lichess's playing list and a game stream's first line (`app::server_desk::lichess_api`)
//! never panics; a game read has its SAN moves and result; a `MakeAMove` call written from
//! arbitrary strings reads back as the same call.
#![no_main]

use annabella::app::server_desk::lichess_api;
use annabella::correspondence::xfcc::{self, MoveCall};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &str, &str, u32)| {
    let (text, user, my_move, n) = input;
    if let Ok(games) = xfcc::parse_my_games(text) {
        for g in games {
            let _ = g.san();
            let _ = g.result.as_ref().map(|r| (r.is_over(), r.winner()));
        }
    }
    if let Ok(code) = xfcc::parse_make_a_move(text) {
        assert!(code.voice_key().starts_with("xfcc_result_"));
    }
    let _ = xfcc::parse_move_call(text);
    let _ = xfcc::san_moves(text);
    if let Ok(full) = lichess_api::game_full(text) {
        let _ = (
            full.state.moves(),
            full.state.is_over(),
            full.state.winner(),
        );
    }
    if let Ok(playing) = serde_json::from_str::<lichess_api::Playing>(text) {
        for g in playing.now_playing {
            let _ = (g.is_desk_game(), g.peg_side());
        }
    }
    // Control characters are not XML text; the rest reads back exactly.
    let clean = |s: &str| -> String { s.chars().filter(|c| !c.is_control()).collect() };
    let call = MoveCall {
        game_id: i64::from(n),
        movecount: n,
        my_move: clean(my_move).trim().to_owned(),
        message: clean(text),
        resign: n % 2 == 0,
        ..MoveCall::default()
    };
    let user = clean(user);
    let xml = xfcc::make_a_move(&user, "pw", &call);
    let (u, p, back) = xfcc::parse_move_call(&xml).expect("a call written reads back");
    assert_eq!((u.as_str(), p.as_str()), (user.as_str(), "pw"));
    assert_eq!(back, call);
});
