//! Which call a server correspondence game (ICCF's XFCC, lichess) owes the server, and what the
//! server's next list of the game says about a call already made: pure, shared by both server
//! desks (`app::server_desk`), which make the calls, mark them on disk before each and tell him
//! the answers.
//!
//! Level-triggered: a call is due when the table holds something he did that the server, as its
//! last list shows, has not got: his released move (with his draw offer), his resignation (on
//! either turn), his acceptance of the opponent's standing offer (on his turn). A call already
//! marked for that half-move or later is never due again; the next list decides it
//! ([`decide`]): landed, sent again (still his turn there, no answer was read), or left.
//! A draw claim is his key's, not the table's state: [`claim`] checks it when he asks.

use annabella_chess::game::{ClaimRefused, DrawReason, EndReason, Game};
use shakmaty::{Color, Move, Position};

/// One call to the server: his move at half-move `ply` (0-based), or none at `ply` (the
/// half-move the game stands at: a resignation, an acceptance, a claim on the position as it
/// stands), with what goes with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub ply: usize,
    pub his_move: Option<Move>,
    pub offer_draw: bool,
    pub accept_draw: bool,
    pub claim_draw: bool,
    pub resign: bool,
}

impl Call {
    fn bare(ply: usize) -> Call {
        Call {
            ply,
            his_move: None,
            offer_draw: false,
            accept_draw: false,
            claim_draw: false,
            resign: false,
        }
    }
}

/// The table's side of a server game: its game, his colour, the half-moves he has released
/// (`KS`) and the draw offer standing.
#[derive(Debug, Clone, Copy)]
pub struct AtTable<'a> {
    pub game: &'a Game,
    pub me: Color,
    pub released_plies: usize,
    pub draw_offer: Option<Color>,
}

/// The server's side, as its last list of the game shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtServer {
    /// The half-moves it has.
    pub plies: usize,
    /// It waits for his move.
    pub my_turn: bool,
    /// It has a result.
    pub over: bool,
    /// The opponent's draw offer stands there.
    pub opponent_offers_draw: bool,
    /// It has passed the game to its tournament director (ICCF's `AdjudicationPending`).
    pub adjudicating: bool,
}

/// What is known of the call marked for a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marked {
    pub ply: usize,
    /// It carries his move.
    pub with_move: bool,
    pub resign: bool,
    pub claim_draw: bool,
    /// Whether an answer to it was read: `None` not yet (it may or may not have reached the
    /// server), `Some(true)` taken, `Some(false)` refused.
    pub answered: Option<bool>,
}

/// The call due, if any.
pub fn due(table: AtTable<'_>, server: AtServer, marked: Option<Marked>) -> Option<Call> {
    if server.over {
        return None;
    }
    let game = table.game;
    let me = table.me;
    let ended_by_him = match game.outcome().map(|e| e.reason) {
        Some(EndReason::Resignation { by }) if by == me => Some(false),
        // A draw agreed while the opponent's offer stood is his acceptance; on his own offer
        // it was the opponent's: nothing to send.
        Some(EndReason::Agreement) if server.opponent_offers_draw => Some(true),
        _ => None,
    };
    if let Some(accept) = ended_by_him {
        let ply = game.ply_count();
        let already = marked.is_some_and(|m| m.ply >= ply && !m.with_move);
        // He may resign on either side's turn; a draw is accepted on his.
        if already || (accept && !server.my_turn) || server.plies != ply {
            return None;
        }
        return Some(Call {
            accept_draw: accept,
            resign: !accept,
            ..Call::bare(ply)
        });
    }
    let ply = table.released_plies.min(game.ply_count()).checked_sub(1)?;
    let mover = game.position_before(ply)?.turn();
    let marked_already = marked.is_some_and(|m| m.ply >= ply);
    if mover != me || marked_already || !server.my_turn || server.plies != ply {
        return None;
    }
    Some(Call {
        his_move: game.moves().get(ply).copied(),
        offer_draw: table.draw_offer == Some(me),
        ..Call::bare(ply)
    })
}

/// Why his draw claim is not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoClaim {
    /// The game is over (at the table or on the server).
    Over,
    /// Neither the table nor the server waits for his move.
    NotHisTurn,
    /// A call of his is still on its way: the claim waits for its answer.
    CallPending,
    /// The position gives no grounds (FIDE 9.2, 9.3): the occurrences and the half-moves
    /// without capture or pawn move.
    NoGrounds { repetitions: usize, halfmoves: u32 },
}

/// His draw claim (`KC`), checked as the arbiter would before it goes to the server: on the
/// position as it stands when it is his turn, or with his move played and not yet released
/// (FIDE 9.2.1.1: the move written and the claim made together; the server gets both in one
/// call). The grounds and the call.
pub fn claim(
    table: AtTable<'_>,
    server: AtServer,
    marked: Option<Marked>,
) -> Result<(DrawReason, Call), NoClaim> {
    let game = table.game;
    if game.is_over() || server.over {
        return Err(NoClaim::Over);
    }
    let plies = game.ply_count();
    let unreleased_move = plies >= 1
        && table.released_plies < plies
        && game
            .position_before(plies - 1)
            .is_some_and(|p| p.turn() == table.me);
    let call = if unreleased_move {
        Call {
            his_move: game.moves().last().copied(),
            claim_draw: true,
            ..Call::bare(plies - 1)
        }
    } else {
        Call {
            claim_draw: true,
            ..Call::bare(plies)
        }
    };
    if game.turn() != table.me && !unreleased_move {
        return Err(NoClaim::NotHisTurn);
    }
    if marked.is_some_and(|m| m.ply >= call.ply) {
        return Err(NoClaim::CallPending);
    }
    if !server.my_turn || server.plies != call.ply {
        return Err(NoClaim::NotHisTurn);
    }
    match game.claim_draw(None) {
        Ok(reason) => Ok((reason, call)),
        Err(ClaimRefused::NoGrounds {
            repetitions,
            halfmoves,
            ..
        }) => Err(NoClaim::NoGrounds {
            repetitions,
            halfmoves,
        }),
        Err(_) => Err(NoClaim::Over),
    }
}

/// Whether his message, written when `written_at` half-moves were released, goes with the call
/// at half-move `call_ply`: it goes with his first call from there (his next move, or a
/// resignation, an acceptance or a claim before it), and with no later one. `start` is the
/// side to move at the game's start.
pub fn carries_message(written_at: usize, me: Color, start: Color, call_ply: usize) -> bool {
    let mover = if written_at.is_multiple_of(2) {
        start
    } else {
        !start
    };
    let his_next = if mover == me {
        written_at
    } else {
        written_at + 1
    };
    (written_at..=his_next).contains(&call_ply)
}

/// What the server's new list says about the call marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The server has it (his move is in its moves, or the game ended): the mark goes.
    Landed,
    /// No answer was read and the server still waits for it: sent again.
    SendAgain,
    /// His claim was taken, and the server's game goes on without a result: not upheld.
    ClaimNotUpheld,
    /// Nothing to do yet.
    Wait,
}

/// Decides the call `mark` from the server's list: `table_moves` and `server_moves` the two
/// games' moves.
pub fn decide(
    mark: Marked,
    table_moves: &[Move],
    server_moves: &[Move],
    server: AtServer,
) -> Decision {
    if server.over {
        return Decision::Landed;
    }
    let move_there = mark.with_move
        && server_moves.len() > mark.ply
        && table_moves.get(mark.ply) == server_moves.get(mark.ply);
    let waits_for_it = (server.my_turn || mark.resign) && server_moves.len() == mark.ply;
    // A claim the server got (its move played, or the call taken) and no result: the game
    // goes on (FIDE 9.5: a wrong claim's move is played). Unless a director judges it.
    let claim_got = move_there || (mark.answered == Some(true) && waits_for_it);
    if mark.claim_draw && claim_got && !server.adjudicating {
        return Decision::ClaimNotUpheld;
    }
    if move_there {
        return Decision::Landed;
    }
    match mark.answered {
        None if waits_for_it => Decision::SendAgain,
        _ => Decision::Wait,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn game_of(san: &str) -> Game {
        let mut game = Game::new();
        for token in san.split_whitespace() {
            let m = token
                .parse::<San>()
                .unwrap()
                .to_move(game.position())
                .unwrap();
            game.play(m).unwrap();
        }
        game
    }

    fn server(plies: usize, my_turn: bool) -> AtServer {
        AtServer {
            plies,
            my_turn,
            over: false,
            opponent_offers_draw: false,
            adjudicating: false,
        }
    }

    fn at(game: &Game, me: Color, released: usize) -> AtTable<'_> {
        AtTable {
            game,
            me,
            released_plies: released,
            draw_offer: None,
        }
    }

    fn marked(ply: usize, with_move: bool, answered: Option<bool>) -> Marked {
        Marked {
            ply,
            with_move,
            resign: false,
            claim_draw: false,
            answered,
        }
    }

    #[test]
    fn his_released_move_is_due_once_when_the_server_waits_for_it() {
        let game = game_of("e4 e5 Nf3");
        let t = at(&game, Color::White, 3);
        let call = due(t, server(2, true), None).unwrap();
        assert_eq!((call.ply, call.his_move), (2, Some(game.moves()[2])));
        assert!(!call.offer_draw && !call.claim_draw);
        // Marked: never due again; not released: not due; the server not ready: not due.
        assert_eq!(due(t, server(2, true), Some(marked(2, true, None))), None);
        assert_eq!(due(at(&game, Color::White, 2), server(2, true), None), None);
        assert_eq!(due(t, server(1, false), None), None);
        assert_eq!(due(t, server(2, false), None), None);
        let offering = AtTable {
            draw_offer: Some(Color::White),
            ..t
        };
        assert!(due(offering, server(2, true), None).unwrap().offer_draw);
        // The opponent's move released at the table is never his call.
        assert_eq!(due(at(&game, Color::Black, 3), server(2, true), None), None);
    }

    #[test]
    fn a_resignation_goes_on_either_turn_and_an_acceptance_on_his() {
        let mut game = game_of("e4 e5");
        game.resign(Color::White).unwrap();
        let call = due(at(&game, Color::White, 2), server(2, false), None).unwrap();
        assert!(call.resign && call.his_move.is_none() && call.ply == 2);
        assert_eq!(
            due(
                at(&game, Color::White, 2),
                server(2, false),
                Some(marked(2, false, None))
            ),
            None
        );
        let mut agreed = game_of("e4 e5");
        agreed.agree_draw().unwrap();
        let offered = AtServer {
            opponent_offers_draw: true,
            ..server(2, true)
        };
        let call = due(at(&agreed, Color::White, 2), offered, None).unwrap();
        assert!(call.accept_draw && !call.resign);
        // His own offer accepted by the opponent: nothing to send.
        assert_eq!(
            due(at(&agreed, Color::White, 2), server(2, true), None),
            None
        );
    }

    #[test]
    fn a_claim_is_checked_before_it_goes() {
        // Nf3 Nf6 Ng1 Ng8 twice: the start position a third time, White to move.
        let game = game_of("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
        let (reason, call) = claim(at(&game, Color::White, 8), server(8, true), None).unwrap();
        assert_eq!(reason, DrawReason::ThreefoldRepetition);
        assert_eq!((call.ply, call.his_move, call.claim_draw), (8, None, true));
        // Black cannot claim on White's turn; nor with a call of his on its way.
        assert_eq!(
            claim(at(&game, Color::Black, 8), server(8, false), None),
            Err(NoClaim::NotHisTurn)
        );
        assert_eq!(
            claim(
                at(&game, Color::White, 8),
                server(8, true),
                Some(marked(8, false, None))
            ),
            Err(NoClaim::CallPending)
        );
        // One repetition short: no grounds, with the count.
        let short = game_of("Nf3 Nf6 Ng1 Ng8");
        assert_eq!(
            claim(at(&short, Color::White, 4), server(4, true), None),
            Err(NoClaim::NoGrounds {
                repetitions: 2,
                halfmoves: 4
            })
        );
        // Black's move that repeats the position, played and not yet released, goes with it.
        let with_move = game_of("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
        let (_, call) = claim(at(&with_move, Color::Black, 11), server(11, true), None).unwrap();
        assert_eq!(call.ply, 11);
        assert_eq!(call.his_move, Some(with_move.moves()[11]));
        // Released already: it is the server's turn to answer, not his to claim.
        assert_eq!(
            claim(at(&with_move, Color::Black, 12), server(11, true), None),
            Err(NoClaim::NotHisTurn)
        );
    }

    #[test]
    fn his_message_goes_with_his_first_call_after_it_and_no_other() {
        // Written with 4 half-moves released, White (him) to move: his move at 4 carries it.
        assert!(carries_message(4, Color::White, Color::White, 4));
        assert!(!carries_message(4, Color::White, Color::White, 6));
        assert!(!carries_message(4, Color::White, Color::White, 3));
        // Black (him), written on White's turn: a resignation now (4) or his move (5).
        assert!(carries_message(4, Color::Black, Color::White, 4));
        assert!(carries_message(4, Color::Black, Color::White, 5));
        assert!(!carries_message(4, Color::Black, Color::White, 7));
    }

    #[test]
    fn the_next_list_decides_a_call() {
        let game = game_of("e4 e5 Nf3");
        let moves = game.moves();
        let m = marked(2, true, None);
        assert_eq!(decide(m, moves, moves, server(3, false)), Decision::Landed);
        assert_eq!(
            decide(m, moves, &moves[..2], server(2, true)),
            Decision::SendAgain
        );
        // Answered (taken): kept until the list shows it; refused: never sent again.
        assert_eq!(
            decide(
                marked(2, true, Some(true)),
                moves,
                &moves[..2],
                server(2, true)
            ),
            Decision::Wait
        );
        assert_eq!(
            decide(
                marked(2, true, Some(false)),
                moves,
                &moves[..2],
                server(2, true)
            ),
            Decision::Wait
        );
        // A different move at that half-move on the server: not his, not landed.
        let other = game_of("e4 e5 Nc3");
        assert_eq!(
            decide(m, moves, other.moves(), server(3, false)),
            Decision::Wait
        );
        let claim = Marked {
            claim_draw: true,
            ..marked(3, false, Some(true))
        };
        assert_eq!(
            decide(claim, moves, moves, server(3, true)),
            Decision::ClaimNotUpheld
        );
        let adjudicating = AtServer {
            adjudicating: true,
            ..server(3, true)
        };
        assert_eq!(decide(claim, moves, moves, adjudicating), Decision::Wait);
        let over = AtServer {
            over: true,
            ..server(3, true)
        };
        assert_eq!(decide(claim, moves, moves, over), Decision::Landed);
        // A claim with his move: the move played and no result is a claim not upheld.
        let with_move = Marked {
            claim_draw: true,
            ..marked(2, true, None)
        };
        assert_eq!(
            decide(with_move, moves, moves, server(3, false)),
            Decision::ClaimNotUpheld
        );
        assert_eq!(
            decide(with_move, moves, &moves[..2], server(2, true)),
            Decision::SendAgain
        );
    }
}
