//! The move detector, case by case: a start position, a compact event script, the conclusions.
//!
//! Script tokens: `Le2` lift, `Pe4` place, `KQ KR KB KN` promotion keys, `S<16 hex>` occupancy
//! snapshot, `e4=P` / `e2=.` field updates, `D:<board FEN>` board dump, `wait` (ten seconds pass,
//! then a poll), `!e7e5` the table enters a move from the other board, `undo` the table takes
//! a move back, `reconnect` the link reports the board back after an unplug. Between events 10 ms pass (less than any settle time), so only `wait` and the
//! end of the script release held conclusions. Like the replay command, the runner plays every
//! `Moved` into the game and accepts every takeback.

use annabella::boards::gestures::{identity_events, peg_events, peg_variants};
use annabella::boards::{BoardKey, SensorEvent, Timed};
use annabella::chess::game::Game;
use annabella::control::wire::conclusion_text;
use annabella::table::corrections::{self, Correction, Observed};
use annabella::table::detector::{
    BoardKind, Conclusion, DetectorSettings, IllegalReason, MoveDetector, TouchMove,
    TouchMoveWarning,
};
use proptest::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Move, Piece, Position, Role, Square};

type Surplus = Vec<(Square, Option<Piece>)>;
type Missing = Vec<(Square, Piece)>;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[derive(Clone)]
struct Opts {
    kind: BoardKind,
    touch: TouchMove,
    mover: Option<Color>,
    chess960: bool,
    moves: Vec<&'static str>,
    accept_takeback: bool,
}

impl Default for Opts {
    fn default() -> Opts {
        Opts {
            kind: BoardKind::Occupancy,
            touch: TouchMove::Off,
            mover: None,
            chess960: false,
            moves: Vec::new(),
            accept_takeback: true,
        }
    }
}

fn peg() -> Opts {
    Opts::default()
}

fn dgt() -> Opts {
    Opts {
        kind: BoardKind::Identity,
        ..Opts::default()
    }
}

fn uci(game: &Game, text: &str) -> Move {
    text.parse::<UciMove>()
        .unwrap()
        .to_move(game.position())
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", game.fen()))
}

fn piece_char(p: Option<Piece>) -> char {
    p.map(|p| p.char()).unwrap_or('?')
}

fn correction_text(c: &[Correction]) -> String {
    c.iter()
        .map(|c| match *c {
            Correction::Move { piece, from, to } => format!("{}{from}-{to}", piece_char(piece)),
            Correction::Remove { piece, square } => format!("x{}{square}", piece_char(piece)),
            Correction::Place { piece, square } => format!("+{}{square}", piece.char()),
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn warning_text(w: TouchMoveWarning) -> String {
    match w {
        TouchMoveWarning::TouchedPieceNotMoved { square, .. } => format!("not-moved:{square}"),
        TouchMoveWarning::TouchedPieceNotCaptured { square, .. } => {
            format!("not-captured:{square}")
        }
        TouchMoveWarning::CastlingRequired { .. } => "castle-required".to_owned(),
        TouchMoveWarning::CastledAfterTouchingRook { .. } => "rook-first".to_owned(),
    }
}

fn reason_text(r: IllegalReason) -> String {
    match r {
        IllegalReason::WrongSide { color } => format!("wrong-side:{color:?}").to_lowercase(),
        IllegalReason::LeavesKingInCheck { piece, from, to } => {
            format!("check:{}{from}-{to}", piece.char())
        }
        IllegalReason::CannotMoveThatWay { piece, from, to } => {
            format!("way:{}{from}-{to}", piece.char())
        }
        IllegalReason::CastlingNotAllowed => "castling".to_owned(),
        IllegalReason::PiecesDisplaced => "displaced".to_owned(),
        IllegalReason::GameOver => "game-over".to_owned(),
        IllegalReason::TouchMove(w) => format!("touch:{}", warning_text(w)),
    }
}

fn line(c: &Conclusion, mode: CastlingMode) -> String {
    match c {
        Conclusion::Touched { square, piece } => format!("touched {square} {}", piece.char()),
        Conclusion::Moved { m, warning } => match warning {
            None => format!("move {}", m.to_uci(mode)),
            Some(w) => format!("move {} warn:{}", m.to_uci(mode), warning_text(*w)),
        },
        Conclusion::Replicated { m } => format!("replicated {}", m.to_uci(mode)),
        Conclusion::PromotionPending { from, to } => format!("promotion-pending {from}{to}"),
        Conclusion::Illegal {
            reason,
            corrections,
        } => format!(
            "illegal {} {}",
            reason_text(*reason),
            correction_text(corrections)
        ),
        Conclusion::Mismatch {
            corrections,
            unverifiable,
        } => format!(
            "mismatch {}{}",
            correction_text(corrections),
            if *unverifiable { " ?" } else { "" }
        ),
        Conclusion::Takeback { plies } => format!("takeback {plies}"),
        Conclusion::InSync => "in-sync".to_owned(),
        Conclusion::Rotated => "rotated".to_owned(),
        Conclusion::ResultOffered { result } => format!("result-offered {}", result.pgn()),
    }
}

fn parse_board(text: &str) -> Board {
    Fen::from_ascii(format!("{text} w - - 0 1").as_bytes())
        .unwrap()
        .into_setup()
        .board
}

struct Run {
    game: Game,
    det: MoveDetector,
    opts: Opts,
    t: u64,
    lines: Vec<String>,
    /// The same conclusions as `Conclusion::describe` words them.
    described: Vec<String>,
}

impl Run {
    fn new(opts: &Opts, fen: &str) -> Run {
        let mut game = Game::from_fen(fen, opts.chess960).unwrap();
        for m in &opts.moves {
            let m = uci(&game, m);
            game.play(m).unwrap();
        }
        let mut settings = DetectorSettings::for_kind(opts.kind);
        settings.touch_move = opts.touch;
        settings.mover = opts.mover;
        let det = MoveDetector::new(opts.kind, settings, &game);
        Run {
            game,
            det,
            opts: opts.clone(),
            t: 0,
            lines: Vec::new(),
            described: Vec::new(),
        }
    }

    fn take(&mut self, out: Vec<Conclusion>) {
        for c in out {
            self.lines.push(line(&c, self.game.castling_mode()));
            self.described
                .push(conclusion_text(&c, self.game.castling_mode()));
            match c {
                Conclusion::Moved { m, .. } => self.game.play(m).unwrap(),
                Conclusion::Takeback { plies } if self.opts.accept_takeback => {
                    for _ in 0..plies {
                        self.game.undo();
                    }
                }
                _ => {}
            }
        }
    }

    fn event(&mut self, event: SensorEvent) {
        self.t += 10;
        let mut out = Vec::new();
        self.det
            .handle(&self.game, &Timed { at: self.t, event }, &mut out);
        self.take(out);
    }

    fn poll(&mut self) {
        let mut out = Vec::new();
        self.det.poll(&self.game, self.t, &mut out);
        self.take(out);
    }

    fn token(&mut self, tok: &str) {
        let sq = |s: &str| s.parse::<Square>().unwrap_or_else(|_| panic!("square {s}"));
        match tok {
            "wait" => {
                self.t += 10_000;
                self.poll();
            }
            "undo" => {
                self.game.undo();
                self.poll();
            }
            "reconnect" => self.det.reconnected(),
            "KQ" | "KR" | "KB" | "KN" => {
                let role = Role::from_char(tok.as_bytes()[1].to_ascii_lowercase() as char).unwrap();
                self.event(SensorEvent::Key(BoardKey::Promote(role)));
            }
            _ if tok.starts_with('!') => {
                let m = uci(&self.game, &tok[1..]);
                self.game.play(m).unwrap();
                self.poll();
            }
            _ if tok.starts_with("D:") => self.event(SensorEvent::Pieces(parse_board(&tok[2..]))),
            _ if tok.starts_with('S') => {
                let bits = u64::from_str_radix(&tok[1..], 16).unwrap();
                self.event(SensorEvent::Occupancy(Bitboard(bits)));
            }
            _ if tok.contains('=') => {
                let (s, p) = tok.split_once('=').unwrap();
                let piece = p.chars().next().and_then(Piece::from_char);
                self.event(SensorEvent::SquareChanged {
                    square: sq(s),
                    piece,
                });
            }
            _ if tok.starts_with('L') => self.event(SensorEvent::Lift(sq(&tok[1..]))),
            _ if tok.starts_with('P') => self.event(SensorEvent::Place(sq(&tok[1..]))),
            _ => panic!("unknown script token {tok}"),
        }
    }

    fn finish(&mut self) {
        self.t = u64::MAX;
        self.poll();
    }
}

#[track_caller]
fn check_with(opts: &Opts, fen: &str, script: &str, expected: &[&str]) {
    let mut run = Run::new(opts, fen);
    for tok in script.split_whitespace() {
        run.token(tok);
    }
    run.finish();
    assert_eq!(run.lines, expected, "\nscript: {script}\nfen: {fen}");
}

#[track_caller]
fn check(fen: &str, script: &str, expected: &[&str]) {
    check_with(&peg(), fen, script, expected);
}

// ---------------------------------------------------------------- touched and made

#[test]
fn lifting_a_piece_is_touching_it() {
    check(START, "Le2", &["touched e2 P"]);
    check(START, "Le2 Pe2", &["touched e2 P"]);
    check(START, "Le2 Pe2 Lg1 Pf3", &["touched e2 P", "move g1f3"]);
}

#[test]
fn an_opponent_piece_lifted_first_is_reported_too() {
    check(
        START,
        "Ld8 Pd8 Le2 Pe4",
        &["touched d8 q", "touched e2 P", "move e2e4"],
    );
}

#[test]
fn a_piece_in_a_different_hole_is_a_move() {
    check(START, "Le2 Pe4", &["touched e2 P", "move e2e4"]);
    check(
        START,
        "Le2 Pe4 Le7 Pe5 Lg1 Pf3",
        &[
            "touched e2 P",
            "move e2e4",
            "touched e7 p",
            "move e7e5",
            "touched g1 N",
            "move g1f3",
        ],
    );
}

#[test]
fn a_changed_mind_in_hand_is_no_move() {
    check(START, "Lg1 Lb1 Pg1 Pc3", &["touched g1 N", "move b1c3"]);
}

const CAPTURE: &str = "4k3/8/8/4p3/8/5N2/8/4K3 w - - 0 1";

#[test]
fn capture_with_the_captured_piece_lifted_first() {
    check(
        CAPTURE,
        "Le5 Lf3 Pe5",
        &["touched e5 p", "touched f3 N", "move f3e5"],
    );
}

#[test]
fn capture_with_the_capturer_lifted_first() {
    check(
        CAPTURE,
        "Lf3 Le5 Pe5",
        &["touched f3 N", "touched e5 p", "move f3e5"],
    );
}

#[test]
fn the_capturer_lifted_alone_is_no_capture_yet() {
    // Occupancy after lifting the knight equals the occupancy after Nxe5: events decide.
    check(CAPTURE, "Lf3", &["touched f3 N"]);
    check(CAPTURE, "Le5 Pe5 Lf3", &["touched e5 p", "touched f3 N"]);
}

const EN_PASSANT: &str = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";

#[test]
fn en_passant_in_all_three_orders() {
    for script in ["Ld5 Le5 Pd6", "Le5 Ld5 Pd6", "Le5 Pd6 Ld5"] {
        let mut run = Run::new(&peg(), EN_PASSANT);
        for tok in script.split_whitespace() {
            run.token(tok);
        }
        run.finish();
        assert_eq!(
            run.lines.last().map(String::as_str),
            Some("move e5d6"),
            "{script}"
        );
        assert!(
            !run.lines.iter().any(|l| l.starts_with("illegal")),
            "{script}"
        );
    }
}

#[test]
fn an_en_passant_capturer_placed_first_waits_for_the_pawn() {
    check(EN_PASSANT, "Le5 Pd6", &["touched e5 P"]);
}

// ---------------------------------------------------------------- castling

const CASTLING: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

#[test]
fn castling_king_first() {
    check(CASTLING, "Le1 Pg1 Lh1 Pf1", &["touched e1 K", "move e1g1"]);
    check(CASTLING, "Le1 Pc1 La1 Pd1", &["touched e1 K", "move e1c1"]);
}

#[test]
fn castling_king_first_waits_for_the_rook() {
    check(CASTLING, "Le1 Pg1", &["touched e1 K"]);
}

#[test]
fn castling_rook_first_with_touch_move_off() {
    check(CASTLING, "Lh1 Pf1 Le1 Pg1", &["touched h1 R", "move e1g1"]);
}

#[test]
fn castling_rook_first_with_touch_move_warn() {
    let opts = Opts {
        touch: TouchMove::Warn,
        ..peg()
    };
    check_with(
        &opts,
        CASTLING,
        "Lh1 Pf1 Le1 Pg1",
        &["touched h1 R", "move e1g1 warn:rook-first"],
    );
    check_with(
        &opts,
        CASTLING,
        "Le1 Pg1 Lh1 Pf1",
        &["touched e1 K", "move e1g1"],
    );
}

#[test]
fn castling_rook_first_with_touch_move_strict_keeps_the_rook_move() {
    let opts = Opts {
        touch: TouchMove::Strict,
        ..peg()
    };
    check_with(
        &opts,
        CASTLING,
        "Lh1 Pf1 Le1 Pg1 Lg1 Pe1",
        &[
            "touched h1 R",
            "move h1f1",
            "illegal touch:rook-first Kg1-e1",
            "in-sync",
        ],
    );
}

#[test]
fn a_rook_move_that_could_begin_castling_is_held_then_released() {
    // Released by the clock …
    check(CASTLING, "Lh1 Pf1 wait", &["touched h1 R", "move h1f1"]);
    // … by the opponent's next lift …
    check(
        CASTLING,
        "Lh1 Pf1 Le8 Pd8",
        &["touched h1 R", "move h1f1", "touched e8 k", "move e8d8"],
    );
    // … by the king going back home …
    check(CASTLING, "Lh1 Pf1 Le1 Pe1", &["touched h1 R", "move h1f1"]);
    // … or by the king going elsewhere, which is then a second white move.
    check(
        CASTLING,
        "Lh1 Pf1 Le1 Pe2",
        &[
            "touched h1 R",
            "move h1f1",
            "illegal wrong-side:white Ke2-e1",
        ],
    );
}

#[test]
fn after_the_hold_expired_the_king_move_is_out_of_turn() {
    check(
        CASTLING,
        "Lh1 Pf1 wait Le1 Pg1",
        &[
            "touched h1 R",
            "move h1f1",
            "touched e1 K",
            "illegal wrong-side:white Kg1-e1",
        ],
    );
}

#[test]
fn illegal_castling_is_named() {
    // The f1 square is attacked by the bishop on c4.
    check(
        "4k3/8/8/8/2b5/8/8/4K2R w K - 0 1",
        "Le1 Pg1 Lh1 Pf1",
        &[
            "touched e1 K",
            "illegal castling Kg1-e1",
            "illegal castling Rf1-h1,Kg1-e1",
        ],
    );
}

fn c960() -> Opts {
    Opts {
        chess960: true,
        ..peg()
    }
}

#[test]
fn chess960_king_b1_rook_a1_castles_queenside_either_way() {
    let fen = "1k6/8/8/8/8/8/8/RK6 w A - 0 1";
    // King first: Kb1-c1 is also an ordinary king move, held until the rook decides.
    check_with(
        &c960(),
        fen,
        "Lb1 Pc1 La1 Pd1",
        &["touched b1 K", "move b1a1"],
    );
    // Rook first: a1-d1 jumps over the king, so it can only be castling's first half.
    check_with(
        &c960(),
        fen,
        "La1 Pd1 Lb1 Pc1",
        &["touched a1 R", "move b1a1"],
    );
    // The king step alone stands once the hold expires.
    check_with(&c960(), fen, "Lb1 Pc1 wait", &["touched b1 K", "move b1c1"]);
}

#[test]
fn chess960_king_and_rook_swapping_holes() {
    let fen = "k7/8/8/8/8/8/8/5KR1 w G - 0 1";
    check_with(
        &c960(),
        fen,
        "Lf1 Lg1 Pg1 Pf1",
        &["touched f1 K", "move f1g1"],
    );
    check_with(
        &c960(),
        fen,
        "Lg1 Lf1 Pf1 Pg1",
        &["touched g1 R", "move f1g1"],
    );
    // Each put back into its own hole, one after the other: nothing moved.
    check_with(&c960(), fen, "Lf1 Pf1 Lg1 Pg1", &["touched f1 K"]);
}

#[test]
fn chess960_swap_refused_by_strict_touch_move_says_how_to_undo_it() {
    // Rook touched first, then king and rook swap holes: 4.4.2 forbids the castling. The
    // occupancy did not change, yet the board shows the castling: the corrections must swap
    // them back, not be empty.
    let opts = Opts {
        touch: TouchMove::Strict,
        ..c960()
    };
    check_with(
        &opts,
        "k7/8/8/8/8/8/8/5KR1 w G - 0 1",
        "Lg1 Lf1 Pf1 Pg1",
        &["touched g1 R", "illegal touch:rook-first Rf1-g1,Kg1-f1"],
    );
}

#[test]
fn chess960_king_goes_to_the_rooks_hole() {
    let fen = "k7/8/8/8/8/8/8/4K1R1 w G - 0 1";
    // Rook first: Rg1-f1 is a legal rook move and half of the castling: held.
    check_with(
        &c960(),
        fen,
        "Lg1 Pf1 Le1 Pg1",
        &["touched g1 R", "move e1g1"],
    );
    check_with(
        &c960(),
        fen,
        "Le1 Lg1 Pg1 Pf1",
        &["touched e1 K", "move e1g1"],
    );
}

#[test]
fn chess960_rook_goes_to_the_kings_hole() {
    let fen = "6k1/8/8/8/8/8/8/5K1R w H - 0 1";
    check_with(
        &c960(),
        fen,
        "Lf1 Pg1 Lh1 Pf1",
        &["touched f1 K", "move f1h1"],
    );
    check_with(
        &c960(),
        fen,
        "Lh1 Lf1 Pg1 Pf1",
        &["touched h1 R", "move f1h1"],
    );
}

#[test]
fn chess960_held_king_step_then_the_opponent_takes_the_rook() {
    // Kf1-g1 is held (it may be castling's first half); Black lifting the rook on h1 to take
    // it releases the king step, and that lift counts in Black's turn.
    let fen = "k6r/8/8/8/8/8/8/5K1R w H - 0 1";
    check_with(
        &c960(),
        fen,
        "Lf1 Pg1 Lh1 Lh8 Ph1",
        &[
            "touched f1 K",
            "move f1g1",
            "touched h1 R",
            "touched h8 r",
            "move h8h1",
        ],
    );
}

#[test]
fn chess960_castling_where_the_king_stays() {
    let fen = "6k1/8/8/8/8/8/8/6KR w H - 0 1";
    check_with(&c960(), fen, "Lh1 Pf1", &["touched h1 R", "move g1h1"]);
}

// ---------------------------------------------------------------- promotion

const PROMOTION: &str = "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1";

#[test]
fn a_promotion_pending_when_the_board_went_away_is_pending_again() {
    // The pawn went to a8 while the daemon was down (or the cable out): the snapshot after the
    // reconnect shows it there, the piece is asked for again, and the key makes the move.
    let occ = Bitboard::from(Square::A8)
        | Bitboard::from(Square::B8)
        | Bitboard::from(Square::E8)
        | Bitboard::from(Square::E1);
    check(
        PROMOTION,
        &format!("reconnect S{:016X} KN", occ.0),
        &["promotion-pending a7a8", "move a7a8n"],
    );
    // A capture that promotes: the knight on b8 is gone, the pawn stands there.
    let occ = Bitboard::from(Square::B8) | Bitboard::from(Square::E8) | Bitboard::from(Square::E1);
    check(
        PROMOTION,
        &format!("reconnect S{:016X} KQ", occ.0),
        &["promotion-pending a7b8", "move a7b8q"],
    );
}

#[test]
fn promotion_waits_for_the_key() {
    check(
        PROMOTION,
        "La7 Pa8",
        &["touched a7 P", "promotion-pending a7a8"],
    );
    check(
        PROMOTION,
        "La7 Pa8 KN",
        &["touched a7 P", "promotion-pending a7a8", "move a7a8n"],
    );
}

#[test]
fn promotion_chosen_through_the_control_interface() {
    let mut run = Run::new(&peg(), PROMOTION);
    run.token("La7");
    run.token("Pa8");
    let mut out = Vec::new();
    run.det.choose_promotion(&run.game, Role::Rook, &mut out);
    run.take(out);
    assert_eq!(
        run.lines,
        ["touched a7 P", "promotion-pending a7a8", "move a7a8r"]
    );
}

#[test]
fn promotion_with_capture() {
    check(
        PROMOTION,
        "Lb8 La7 Pb8 KQ",
        &[
            "touched b8 n",
            "touched a7 P",
            "promotion-pending a7b8",
            "move a7b8q",
        ],
    );
}

#[test]
fn promotion_piece_announced_before_the_pawn_arrives() {
    check(PROMOTION, "KB La7 Pa8", &["touched a7 P", "move a7a8b"]);
}

// ---------------------------------------------------------------- illegal, displaced, in sync

#[test]
fn an_impossible_knight_move_with_corrections_then_in_sync() {
    check(
        START,
        "Lg1 Pg3 Lg3 Pg1",
        &["touched g1 N", "illegal way:Ng1-g3 Ng3-g1", "in-sync"],
    );
}

#[test]
fn after_an_illegal_move_a_legal_one_counts_once_the_board_is_right_again() {
    // A correction in progress is finished before anything else counts (issue 24): the
    // knight going on to f3 is not yet the move.
    check(
        START,
        "Lg1 Pg3 Lg3 Pf3",
        &["touched g1 N", "illegal way:Ng1-g3 Ng3-g1"],
    );
    check(
        START,
        "Lg1 Pg3 Lg3 Pf3 Lf3 Pg1 Lg1 Pf3",
        &[
            "touched g1 N",
            "illegal way:Ng1-g3 Ng3-g1",
            "in-sync",
            "move g1f3",
        ],
    );
}

#[test]
fn following_a_correction_never_plays_a_move() {
    // Issue 24: 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5, knight and bishop knocked into wrong holes. The
    // first correction (the bishop back) leaves the knight on g5, which looks like 4.Ng5.
    let opts = Opts {
        moves: vec!["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"],
        ..peg()
    };
    check_with(
        &opts,
        START,
        "Lf3 Lc4 Pg5 Pb5 Lb5 Pc4 Lg5 Pf3",
        // Two of his pieces knocked at once, his hand empty: a board problem, no illegal move.
        &["touched f3 N", "mismatch Bb5-c4,Ng5-f3 ?", "in-sync"],
    );
}

#[test]
fn one_piece_moved_the_wrong_way_is_illegal_two_knocked_at_once_are_a_board_problem() {
    let opts = Opts {
        moves: vec!["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"],
        mover: Some(Color::White),
        ..peg()
    };
    // The bishop moved like a rook: an attempted move, and illegal.
    check_with(
        &opts,
        START,
        "Lc4 Pc3 Lc3 Pc4",
        &["touched c4 B", "illegal way:Bc4-c3 Bc3-c4", "in-sync"],
    );
    // The knight moved the wrong way, then the bishop: each is one piece moved, each an
    // attempted move and illegal, though two of his pieces then stand off their squares.
    check_with(
        &opts,
        START,
        "Lf3 Pf4 Lc4 Pc3 Lc3 Pc4 Lf4 Pf3",
        &[
            "touched f3 N",
            "illegal way:Nf3-f4 Nf4-f3",
            "illegal displaced Bc3-c4,Nf4-f3",
            "in-sync",
        ],
    );
    // Both lifted before either is put down (knocked together): a board problem.
    check_with(
        &opts,
        START,
        "Lf3 Lc4 Pb5 Pg5 Lg5 Pf3 Lb5 Pc4",
        &["touched f3 N", "mismatch Bb5-c4,Ng5-f3 ?", "in-sync"],
    );
}

#[test]
fn a_knocked_piece_is_judged_with_a_peg_still_in_hand() {
    // Issue 24: the h-pawn in his hand, the black knight knocked from c6 to b4.
    let opts = Opts {
        moves: vec!["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"],
        ..peg()
    };
    check_with(
        &opts,
        START,
        "Lh2 Lc6 Pb4 Lb4 Pc6 Ph2",
        &[
            "touched h2 P",
            "touched c6 n",
            "mismatch nb4-c6,+Ph2 ?",
            "in-sync",
        ],
    );
}

#[test]
fn at_a_table_an_opponent_piece_in_another_hole_is_knocked_not_illegal() {
    let opts = Opts {
        mover: Some(Color::White),
        moves: vec!["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"],
        ..peg()
    };
    check_with(
        &opts,
        START,
        "Lc6 Pb4 Lb4 Pc6",
        &["touched c6 n", "mismatch nb4-c6 ?", "in-sync"],
    );
}

#[test]
fn a_dropped_peg_is_a_board_problem_not_an_illegal_move() {
    check(START, "Pe4 Le4", &["mismatch x?e4 ?", "in-sync"]);
}

#[test]
fn a_pinned_piece_may_not_move() {
    check(
        "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
        "Le2 Pd3",
        &["touched e2 B", "illegal check:Be2-d3 Bd3-e2"],
    );
}

#[test]
fn a_pinned_piece_may_not_capture_either() {
    let fen = "4k3/4r3/8/8/8/3p4/4B3/4K3 w - - 0 1";
    check(
        fen,
        "Ld3 Le2 Pd3",
        &[
            "touched d3 p",
            "touched e2 B",
            "illegal check:Be2-d3 Bd3-e2,+pd3",
        ],
    );
    check(
        fen,
        "Le2 Ld3 Pd3",
        &[
            "touched e2 B",
            "touched d3 p",
            "illegal check:Be2-d3 Bd3-e2,+pd3",
        ],
    );
}

#[test]
fn the_king_may_not_walk_into_check() {
    check(
        "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1",
        "Le1 Pe2 Le2 Pe1 Le1 Pf1",
        &[
            "touched e1 K",
            "illegal check:Ke1-e2 Ke2-e1",
            "in-sync",
            "move e1f1",
        ],
    );
}

#[test]
fn a_piece_of_the_side_not_to_move() {
    check(
        START,
        "Le7 Pe5",
        &["touched e7 p", "illegal wrong-side:black pe5-e7"],
    );
}

#[test]
fn several_pieces_displaced_are_corrected_square_by_square() {
    check(
        START,
        "Lg1 Pg4 Lb1 Pb4 Lg4 Pg1 Lb4 Pb1",
        &[
            "touched g1 N",
            "illegal way:Ng1-g4 Ng4-g1",
            "illegal displaced Nb4-b1,Ng4-g1",
            // Putting the knight back follows the correction: no new illegal move.
            "in-sync",
        ],
    );
}

#[test]
fn a_displaced_piece_put_back_is_no_conclusion() {
    check(START, "Ld8 Pd8", &["touched d8 q"]);
    // Not this board's turn: nothing is a touch.
    let opts = Opts {
        mover: Some(Color::White),
        moves: vec!["e2e4"],
        ..peg()
    };
    check_with(&opts, START, "Lg1 Pg1", &[]);
}

#[test]
fn the_game_being_over_refuses_every_move() {
    // Fool's mate: white is mated.
    let opts = Opts {
        moves: vec!["f2f3", "e7e5", "g2g4", "d8h4"],
        ..peg()
    };
    check_with(&opts, START, "La2 Pa3", &["illegal game-over Pa3-a2"]);
}

// ---------------------------------------------------------------- takeback

#[test]
fn takeback_of_one_move() {
    let opts = Opts {
        moves: vec!["e2e4", "e7e5"],
        ..peg()
    };
    // Accepted (the harness undoes the move), the board shows the game again.
    check_with(
        &opts,
        START,
        "Le5 Pe7",
        &["touched e5 p", "takeback 1", "in-sync"],
    );
    check_with(
        &opts,
        START,
        "Le5 Pe7 Le4 Pe2",
        &[
            "touched e5 p",
            "takeback 1",
            "in-sync",
            "touched e4 P",
            "takeback 1",
            "in-sync",
        ],
    );
}

#[test]
fn takeback_of_two_moves() {
    let opts = Opts {
        moves: vec!["e2e4", "e7e5", "g1f3"],
        ..peg()
    };
    check_with(
        &opts,
        START,
        "Lf3 Le5 Pg1 Pe7",
        &["touched f3 N", "touched e5 p", "takeback 2", "in-sync"],
    );
}

#[test]
fn takeback_of_a_capture_puts_the_piece_back() {
    let opts = Opts {
        moves: vec!["f3e5"],
        ..peg()
    };
    check_with(
        &opts,
        "r3k3/8/8/4p3/8/5N2/8/4K3 w - - 0 1",
        "Le5 Pf3 Pe5",
        &["touched e5 N", "takeback 1", "in-sync"],
    );
}

#[test]
fn a_refused_takeback_leaves_the_board_wrong_until_restored() {
    let opts = Opts {
        moves: vec!["e2e4"],
        accept_takeback: false,
        ..peg()
    };
    check_with(
        &opts,
        START,
        "Le4 Pe2 Le2 Pe4",
        &["touched e4 P", "takeback 1", "in-sync"],
    );
}

// ---------------------------------------------------------------- mismatch and replication

#[test]
fn power_up_snapshot_that_differs_is_a_mismatch() {
    // The knight on g1 is missing and a peg stands on h3.
    let start_occ = Board::new().occupied();
    let occ = start_occ.without(Square::G1).with(Square::H3);
    check(START, &format!("S{:016X}", occ.0), &["mismatch ?h3-g1 ?"]);
    check(START, &format!("S{:016X}", start_occ.0), &[]);
}

#[test]
fn a_move_made_while_the_board_was_away_counts_when_only_it_explains_the_snapshot() {
    // Unplugged, e2-e4 played, plugged in again: the first snapshot shows exactly one move.
    let mut after = Board::new();
    after.discard_piece_at(Square::E2);
    after.set_piece_at(Square::E4, Piece::from_char('P').unwrap());
    let snap = format!("S{:016X}", after.occupied().0);
    check(START, &format!("reconnect {snap}"), &["move e2e4"]);
    check_with(
        &dgt(),
        START,
        &format!("reconnect D:{after}"),
        &["move e2e4"],
    );
    // At power-up nothing says the board was right before: a set-up error is no move.
    check(START, &snap, &["mismatch ?e4-e2 ?"]);
    // Not the board's player's move: a mismatch, never a guess.
    let black_moves = Opts {
        mover: Some(Color::Black),
        ..peg()
    };
    check_with(
        &black_moves,
        START,
        &format!("reconnect {snap}"),
        &["mismatch ?e4-e2 ?"],
    );
    // Two pawns moved while away: no single move explains it.
    let occ = after.occupied().without(Square::D2).with(Square::D4);
    check(
        START,
        &format!("reconnect S{:016X}", occ.0),
        &["mismatch ?d4-d2,?e4-e2 ?"],
    );
}

#[test]
fn power_up_snapshot_with_the_game_ahead_takes_the_game() {
    let opts = Opts {
        mover: Some(Color::White),
        moves: vec!["e2e4", "e7e5"],
        ..peg()
    };
    let occ = Board::new().occupied();
    // The board shows the start: it owes both moves, so the snapshot is compared with the game.
    check_with(
        &opts,
        START,
        &format!("S{:016X}", occ.0),
        &["mismatch ?e2-e4,?e7-e5 ?"],
    );
}

#[test]
fn a_later_snapshot_explains_a_move_made_while_disconnected() {
    let occ = Board::new().occupied();
    let after = occ.without(Square::E2).with(Square::E4);
    check(
        START,
        &format!("S{:016X} S{:016X}", occ.0, after.0),
        &["move e2e4"],
    );
}

fn replicating() -> Opts {
    Opts {
        mover: Some(Color::White),
        moves: vec!["e2e4"],
        ..peg()
    }
}

#[test]
fn replicating_the_opponents_move() {
    check_with(&replicating(), START, "!e7e5 Le7 Pe5", &["replicated e7e5"]);
    // Then the player's own move.
    check_with(
        &replicating(),
        START,
        "!e7e5 Le7 Pe5 Lg1 Pf3",
        &["replicated e7e5", "touched g1 N", "move g1f3"],
    );
}

#[test]
fn replicating_wrongly_is_a_mismatch_until_fixed() {
    check_with(
        &replicating(),
        START,
        "!e7e5 Le7 Pe6 Le6 Pe5",
        &["mismatch pe6-e5 ?", "replicated e7e5"],
    );
}

#[test]
fn a_replication_made_before_the_table_entered_the_move() {
    check_with(&replicating(), START, "Le7 Pe5 !e7e5", &["replicated e7e5"]);
}

#[test]
fn a_replicated_capture_and_castling() {
    let opts = Opts {
        mover: Some(Color::White),
        moves: vec!["e1g1"],
        ..peg()
    };
    check_with(
        &opts,
        CASTLING,
        "!e8c8 Le8 Pc8 La8 Pd8",
        &["replicated e8c8"],
    );
    let opts = Opts {
        mover: Some(Color::Black),
        ..peg()
    };
    check_with(&opts, CAPTURE, "!f3e5 Lf3 Le5 Pe5", &["replicated f3e5"]);
}

#[test]
fn the_table_undoing_a_move_asks_for_the_board_to_follow() {
    let opts = Opts {
        moves: vec!["e2e4"],
        ..peg()
    };
    check_with(
        &opts,
        START,
        "undo Le4 Pe2",
        &["mismatch Pe4-e2 ?", "in-sync"],
    );
}

// ---------------------------------------------------------------- touch-move

fn touch(t: TouchMove) -> Opts {
    Opts { touch: t, ..peg() }
}

#[test]
fn touch_move_warn_reports_another_piece_moved() {
    check_with(
        &touch(TouchMove::Warn),
        START,
        "Lb1 Pb1 Lg1 Pf3",
        &["touched b1 N", "move g1f3 warn:not-moved:b1"],
    );
    check_with(
        &touch(TouchMove::Off),
        START,
        "Lb1 Pb1 Lg1 Pf3",
        &["touched b1 N", "move g1f3"],
    );
}

#[test]
fn touch_move_strict_refuses_and_then_takes_the_touched_piece() {
    check_with(
        &touch(TouchMove::Strict),
        START,
        "Lb1 Pb1 Lg1 Pf3 Lf3 Pg1 Lb1 Pc3",
        &[
            "touched b1 N",
            "illegal touch:not-moved:b1 Nf3-g1",
            "in-sync",
            "move b1c3",
        ],
    );
}

#[test]
fn a_touched_piece_that_cannot_move_obliges_nothing() {
    // The rook on a1 has no move in the start position.
    check_with(
        &touch(TouchMove::Warn),
        START,
        "La1 Pa1 Le2 Pe4",
        &["touched a1 R", "move e2e4"],
    );
}

#[test]
fn a_touched_opponent_piece_that_could_be_captured() {
    let fen = "4k3/8/8/4p3/8/5N2/8/4K2R w - - 0 1";
    // 4.3.3: the rook cannot take e5, so the first touched piece that can be moved or
    // captured decides: the pawn, which the knight could have taken.
    check_with(
        &touch(TouchMove::Warn),
        fen,
        "Le5 Pe5 Lh1 Ph2",
        &[
            "touched e5 p",
            "touched h1 R",
            "move h1h2 warn:not-captured:e5",
        ],
    );
    // Own piece first: it had to move (it could not take the pawn).
    check_with(
        &touch(TouchMove::Warn),
        fen,
        "Le1 Pe1 Le5 Pe5 Lh1 Ph2",
        &[
            "touched e1 K",
            "touched e5 p",
            "move h1h2 warn:not-moved:e1",
        ],
    );
    // The knight touched and then the pawn: the knight must take it.
    check_with(
        &touch(TouchMove::Warn),
        fen,
        "Lf3 Pf3 Le5 Pe5 Lf3 Pg5",
        &[
            "touched f3 N",
            "touched e5 p",
            "move f3g5 warn:not-captured:e5",
        ],
    );
}

#[test]
fn touching_only_an_opponent_piece_obliges_its_capture() {
    let fen = "4k3/8/8/4p3/8/5N2/8/4K2R w - - 0 1";
    check_with(
        &touch(TouchMove::Strict),
        fen,
        "Le5 Pe5 Lh1 Ph2 Lh2 Ph1 Le5 Lf3 Pe5",
        &[
            "touched e5 p",
            "touched h1 R",
            "illegal touch:not-captured:e5 Rh2-h1",
            "in-sync",
            "move f3e5",
        ],
    );
    check_with(
        &touch(TouchMove::Strict),
        fen,
        "Le5 Lf3 Pe5",
        &["touched e5 p", "touched f3 N", "move f3e5"],
    );
}

#[test]
fn king_then_rook_touched_obliges_castling() {
    check_with(
        &touch(TouchMove::Warn),
        CASTLING,
        "Le1 Lh1 Ph1 Pf1",
        &["touched e1 K", "move e1f1 warn:castle-required"],
    );
}

// ---------------------------------------------------------------- identity boards (DGT)

const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";

#[test]
fn dgt_a_dump_concludes_at_once() {
    check_with(
        &dgt(),
        START,
        &format!("D:{} D:{AFTER_E4}", Board::new()),
        &["move e2e4"],
    );
}

#[test]
fn dgt_field_updates_conclude_after_the_board_settles() {
    check_with(&dgt(), START, "e2=. e4=P", &["touched e2 P", "move e2e4"]);
    check_with(
        &dgt(),
        START,
        "e2=. e4=P e7=. e5=p g1=. f3=N",
        &[
            "touched e2 P",
            "move e2e4",
            "touched e7 p",
            "move e7e5",
            "touched g1 N",
            "move g1f3",
        ],
    );
}

#[test]
fn dgt_capture_that_never_shows_the_captured_square_empty() {
    let fen = "4k3/8/8/8/2n5/1B6/8/4K3 w - - 0 1";
    check_with(&dgt(), fen, "c4=B b3=.", &["touched b3 B", "move b3c4"]);
    check_with(&dgt(), fen, "b3=. c4=B", &["touched b3 B", "move b3c4"]);
}

#[test]
fn dgt_a_sliding_queen_is_concluded_where_it_stops() {
    let fen = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1";
    check_with(
        &dgt(),
        fen,
        "d2=Q d1=. d3=Q d2=. d4=Q d3=.",
        &["touched d1 Q", "move d1d4"],
    );
}

#[test]
fn dgt_rotated_board() {
    let mut turned = Board::new();
    turned.rotate_180();
    let mut turned_e4 = parse_board(AFTER_E4);
    turned_e4.rotate_180();
    check_with(
        &dgt(),
        START,
        &format!("D:{turned} D:{turned_e4}"),
        &["rotated", "move e2e4"],
    );
    // Field updates in the board's own numbering are turned too: e2 is d7 seen turned.
    check_with(
        &dgt(),
        START,
        &format!("D:{turned} d7=. d5=P"),
        &["rotated", "touched e2 P", "move e2e4"],
    );
}

#[test]
fn dgt_promotion_by_the_placed_piece() {
    let fen = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1";
    check_with(&dgt(), fen, "a7=. a8=N", &["touched a7 P", "move a7a8n"]);
    // A pawn left on the last rank waits for the choice.
    check_with(
        &dgt(),
        fen,
        "a7=. a8=P wait",
        &["touched a7 P", "promotion-pending a7a8"],
    );
}

#[test]
fn dgt_castling_in_any_order() {
    check_with(
        &dgt(),
        CASTLING,
        "h1=. f1=R e1=. g1=K",
        &["touched h1 R", "move e1g1"],
    );
    check_with(
        &dgt(),
        CASTLING,
        "e1=. g1=K h1=. f1=R",
        &["touched e1 K", "move e1g1"],
    );
}

#[test]
fn dgt_illegal_move_and_correction() {
    check_with(
        &dgt(),
        START,
        "g1=. g3=N wait g3=. g1=N",
        &["touched g1 N", "illegal way:Ng1-g3 Ng3-g1", "in-sync"],
    );
}

#[test]
fn dgt_power_up_dump_that_differs() {
    let mut board = Board::new();
    board.discard_piece_at(Square::D1);
    check_with(&dgt(), START, &format!("D:{board}"), &["mismatch +Qd1"]);
}

#[test]
fn dgt_sliding_after_a_concluded_move_is_takeback_and_move() {
    // The player played e2e4, it was concluded, then he moved the pawn on to e3 instead.
    check_with(
        &dgt(),
        START,
        "e2=. e4=P wait e4=. e3=P wait",
        &[
            "touched e2 P",
            "move e2e4",
            "touched e4 P",
            "takeback 1",
            "move e2e3",
        ],
    );
}

#[test]
fn dgt_replication() {
    let opts = Opts {
        mover: Some(Color::Black),
        ..dgt()
    };
    check_with(&opts, START, "!e2e4 e2=. e4=P", &["replicated e2e4"]);
    check_with(&opts, START, "!e2e4 e2=. e3=P wait", &["mismatch Pe3-e4"]);
}

// ---------------------------------------------------------------- time

/// The same script with ten seconds between all events (a caller that spaces untimed events
/// far apart): every conclusion is the same except where a hold is the point.
#[test]
fn events_far_apart_conclude_the_same() {
    let cases: &[(&Opts, &str, &str)] = &[
        (&peg(), START, "Le2 Pe4 Le7 Pe5 Lg1 Pf3"),
        (&peg(), CAPTURE, "Le5 Lf3 Pe5"),
        (&peg(), EN_PASSANT, "Le5 Pd6 Ld5"),
        (&peg(), CASTLING, "Le1 Pg1 Lh1 Pf1"),
        (&peg(), PROMOTION, "Lb8 La7 Pb8 KQ"),
        (&peg(), START, "Lg1 Pg3 Lg3 Pg1"),
        (&dgt(), START, "e2=. e4=P e7=. e5=p"),
        (&dgt(), "4k3/8/8/8/2n5/1B6/8/4K3 w - - 0 1", "c4=B b3=."),
        (&dgt(), CASTLING, "g1=K e1=. f1=R h1=."),
    ];
    for &(opts, fen, script) in cases {
        let spaced: String = script
            .split_whitespace()
            .map(|t| format!("{t} wait "))
            .collect();
        let run = |script: &str| {
            let mut run = Run::new(opts, fen);
            for tok in script.split_whitespace() {
                run.token(tok);
            }
            run.finish();
            run.lines
        };
        assert_eq!(run(&spaced), run(script), "{script}");
    }
    // Rook-first castling needs the king within the hold.
    check(
        CASTLING,
        "Lh1 wait Pf1 wait Le1 wait Pg1",
        &[
            "touched h1 R",
            "move h1f1",
            "touched e1 K",
            "illegal wrong-side:white Kg1-e1",
        ],
    );
}

#[test]
fn deadlines_are_reported_and_released_by_poll() {
    let game = Game::from_fen(CASTLING, false).unwrap();
    let mut det = MoveDetector::new(
        BoardKind::Occupancy,
        DetectorSettings::for_kind(BoardKind::Occupancy),
        &game,
    );
    let mut out = Vec::new();
    det.handle(
        &game,
        &Timed {
            at: 100,
            event: SensorEvent::Lift(Square::H1),
        },
        &mut out,
    );
    det.handle(
        &game,
        &Timed {
            at: 200,
            event: SensorEvent::Place(Square::F1),
        },
        &mut out,
    );
    assert_eq!(det.next_deadline(), Some(1_700));
    det.poll(&game, 1_699, &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    det.poll(&game, 1_700, &mut out);
    assert!(
        matches!(out.last(), Some(Conclusion::Moved { .. })),
        "{out:?}"
    );
    assert_eq!(det.next_deadline(), None);
}

#[test]
fn lifting_the_king_suspends_the_hold() {
    let game = Game::from_fen(CASTLING, false).unwrap();
    let mut det = MoveDetector::new(
        BoardKind::Occupancy,
        DetectorSettings::for_kind(BoardKind::Occupancy),
        &game,
    );
    let mut out = Vec::new();
    for (at, ev) in [
        (0, SensorEvent::Lift(Square::H1)),
        (100, SensorEvent::Place(Square::F1)),
        (200, SensorEvent::Lift(Square::E1)),
    ] {
        det.handle(&game, &Timed { at, event: ev }, &mut out);
    }
    assert_eq!(det.next_deadline(), None);
    det.handle(
        &game,
        &Timed {
            at: 5_000,
            event: SensorEvent::Place(Square::G1),
        },
        &mut out,
    );
    assert!(
        matches!(
            out.last(),
            Some(Conclusion::Moved {
                m: Move::Castle { .. },
                ..
            })
        ),
        "{out:?}"
    );
}

#[test]
fn settings_read_from_the_command_line() {
    for (text, want) in [
        ("off", TouchMove::Off),
        ("WARN", TouchMove::Warn),
        (" strict ", TouchMove::Strict),
    ] {
        assert_eq!(text.parse::<TouchMove>(), Ok(want));
        assert_eq!(want.to_string().parse::<TouchMove>(), Ok(want));
    }
    assert!(
        "sometimes"
            .parse::<TouchMove>()
            .unwrap_err()
            .to_string()
            .contains("off, warn or strict")
    );
    assert_eq!(
        DetectorSettings::for_kind(BoardKind::Occupancy).settle_ms,
        1_500
    );
    assert_eq!(
        DetectorSettings::for_kind(BoardKind::Identity).settle_ms,
        300
    );
}

#[test]
fn describe_words_a_whole_script() {
    let mut run = Run::new(&touch(TouchMove::Strict), CASTLING);
    for tok in "Lh1 Pf1 Le1 Pg1 Lg1 Pe1".split_whitespace() {
        run.token(tok);
    }
    run.finish();
    assert_eq!(
        run.described,
        [
            "touched h1 white rook",
            "move h1f1",
            "illegal touch-move: the rook on h1 was touched before the king: no castling on \
             that side this move (FIDE 4.4.2); move the white king from g1 to e1",
            "in-sync the board matches the game",
        ]
    );
}

#[test]
fn describe_gives_one_line_per_conclusion() {
    let m = Move::Normal {
        role: Role::Knight,
        from: Square::G1,
        capture: None,
        to: Square::F3,
        promotion: None,
    };
    let lines = [
        conclusion_text(
            &Conclusion::Moved { m, warning: None },
            CastlingMode::Standard,
        ),
        conclusion_text(
            &Conclusion::Touched {
                square: Square::G1,
                piece: Color::White.knight(),
            },
            CastlingMode::Standard,
        ),
        conclusion_text(
            &Conclusion::Illegal {
                reason: IllegalReason::CannotMoveThatWay {
                    piece: Color::White.knight(),
                    from: Square::G1,
                    to: Square::G3,
                },
                corrections: vec![Correction::Move {
                    piece: Some(Color::White.knight()),
                    from: Square::G3,
                    to: Square::G1,
                }],
            },
            CastlingMode::Standard,
        ),
        conclusion_text(&Conclusion::Takeback { plies: 2 }, CastlingMode::Standard),
    ];
    assert_eq!(lines[0], "move g1f3");
    assert_eq!(lines[1], "touched g1 white knight");
    assert_eq!(
        lines[2],
        "illegal the white knight cannot move from g1 to g3; move the white knight from g3 to g1"
    );
    assert_eq!(lines[3], "takeback 2");
    assert!(lines.iter().all(|l| !l.contains('\n')));
}

// ---------------------------------------------------------------- properties

/// A random legal game from `start`, at most `plies` long.
fn random_game(start: Game, plies: usize, seed: u64) -> Vec<Move> {
    let mut pos = start.position().clone();
    let mut rng = seed | 1;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let m = legal[(rng % legal.len() as u64) as usize];
        moves.push(m);
        pos.play_unchecked(m);
    }
    moves
}

/// Feeds `moves` as human lift/place sequences (with own pieces touched and put back first
/// when `touches`) and returns the moves the detector concluded.
fn replay_as_human(
    start: &Game,
    moves: &[Move],
    seed: u64,
    touches: bool,
) -> (Vec<Move>, Vec<String>) {
    let mut game = start.clone();
    let mut det = MoveDetector::new(
        BoardKind::Occupancy,
        DetectorSettings::for_kind(BoardKind::Occupancy),
        &game,
    );
    let mut concluded = Vec::new();
    let mut other = Vec::new();
    let mut t = 0u64;
    let mut out = Vec::new();
    let mut rng = seed | 1;
    let take = |out: &mut Vec<Conclusion>,
                game: &mut Game,
                concluded: &mut Vec<Move>,
                other: &mut Vec<String>| {
        for c in out.drain(..) {
            match c {
                Conclusion::Moved { m, .. } => {
                    concluded.push(m);
                    if game.play(m).is_err() {
                        other.push(format!("unplayable {m}"));
                    }
                }
                Conclusion::Touched { .. } | Conclusion::PromotionPending { .. } => {}
                c => other.push(line(&c, game.castling_mode())),
            }
        }
    };
    let mut pos = start.position().clone();
    for (i, &m) in moves.iter().enumerate() {
        let mut events = Vec::new();
        if touches {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            if rng.is_multiple_of(3) {
                let own = pos.us();
                let n = own.count();
                if let Some(sq) = own.into_iter().nth((rng >> 8) as usize % n.max(1)) {
                    events.push(SensorEvent::Lift(sq));
                    events.push(SensorEvent::Place(sq));
                }
            }
        }
        events.extend(peg_events(&pos, m, order(seed, i)));
        for event in events {
            t += 10;
            det.handle(&game, &Timed { at: t, event }, &mut out);
            take(&mut out, &mut game, &mut concluded, &mut other);
        }
        pos.play_unchecked(m);
    }
    det.poll(&game, u64::MAX, &mut out);
    take(&mut out, &mut game, &mut concluded, &mut other);
    (concluded, other)
}

/// Which of the physical orders the hand uses for move `i` of a game replayed with `seed`:
/// scrambled, so that successive moves (and a side's successive captures) take unrelated
/// orders, and every order is taken over many seeds.
fn order(seed: u64, i: usize) -> usize {
    let mut x = seed.wrapping_add(i as u64) ^ 0x9e37_79b9_7f4a_7c15;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x as usize
}

fn replay_on_dgt(start: &Game, moves: &[Move], seed: u64) -> (Vec<Move>, Vec<String>) {
    let mut game = start.clone();
    let mut det = MoveDetector::new(
        BoardKind::Identity,
        DetectorSettings::for_kind(BoardKind::Identity),
        &game,
    );
    let mut concluded = Vec::new();
    let mut other = Vec::new();
    let mut out = Vec::new();
    let mut t = 0;
    let mut pos = start.position().clone();
    let mut events = vec![SensorEvent::Pieces(pos.board().clone())];
    for (i, &m) in moves.iter().enumerate() {
        events.extend(identity_events(&pos, m, order(seed, i)));
        pos.play_unchecked(m);
    }
    let mut take = |out: &mut Vec<Conclusion>, game: &mut Game| {
        for c in out.drain(..) {
            match c {
                Conclusion::Moved { m, .. } => {
                    concluded.push(m);
                    if game.play(m).is_err() {
                        other.push(format!("unplayable {m}"));
                    }
                }
                Conclusion::Touched { .. } => {}
                c => other.push(line(&c, game.castling_mode())),
            }
        }
    };
    for event in events {
        t += 10;
        det.handle(&game, &Timed { at: t, event }, &mut out);
        take(&mut out, &mut game);
    }
    det.poll(&game, u64::MAX, &mut out);
    take(&mut out, &mut game);
    (concluded, other)
}

/// One side moves on the peg board; the other side's moves are entered by the table and then
/// replicated on the board. Returns (own moves concluded, moves replicated, anything else).
fn replay_with_replication(
    start: &Game,
    moves: &[Move],
    mover: Color,
    seed: u64,
) -> (Vec<Move>, Vec<Move>, Vec<String>) {
    let mut game = start.clone();
    let settings = DetectorSettings {
        mover: Some(mover),
        ..DetectorSettings::for_kind(BoardKind::Occupancy)
    };
    let mut det = MoveDetector::new(BoardKind::Occupancy, settings, &game);
    let (mut own, mut replicated, mut other) = (Vec::new(), Vec::new(), Vec::new());
    let mut out = Vec::new();
    let mut t = 0;
    let mut pos = start.position().clone();
    let mut take = |out: &mut Vec<Conclusion>, game: &mut Game| {
        for c in out.drain(..) {
            match c {
                Conclusion::Moved { m, .. } => {
                    own.push(m);
                    if game.play(m).is_err() {
                        other.push(format!("unplayable {m}"));
                    }
                }
                Conclusion::Replicated { m } => replicated.push(m),
                Conclusion::Touched { .. } | Conclusion::PromotionPending { .. } => {}
                c => other.push(line(&c, game.castling_mode())),
            }
        }
    };
    for (i, &m) in moves.iter().enumerate() {
        let ours = pos.turn() == mover;
        if !ours {
            // The opponent answers once our move was announced (a held move is out by then);
            // the table enters his move, then the player replicates it.
            t += 2_000;
            det.poll(&game, t, &mut out);
            take(&mut out, &mut game);
            if game.play(m).is_err() {
                return (own, replicated, vec![format!("game out of step at {m}")]);
            }
            det.poll(&game, t, &mut out);
            take(&mut out, &mut game);
        }
        for event in peg_events(&pos, m, order(seed, i)) {
            if !ours && matches!(event, SensorEvent::Key(_)) {
                continue;
            }
            t += 10;
            det.handle(&game, &Timed { at: t, event }, &mut out);
            take(&mut out, &mut game);
        }
        pos.play_unchecked(m);
    }
    det.poll(&game, u64::MAX, &mut out);
    take(&mut out, &mut game);
    (own, replicated, other)
}

const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// 0 = empty, 1–6 white, 7–12 black (the DGT numbering's idea, in shakmaty's role order).
fn piece_code(code: u8) -> Option<Piece> {
    (!code.is_multiple_of(13)).then(|| Piece {
        color: Color::from_white(code % 13 <= 6),
        role: ROLES[usize::from(code % 13 - 1) % 6],
    })
}

fn start_for(chess960: bool, n: u32) -> Game {
    if chess960 {
        Game::chess960(n).unwrap()
    } else {
        Game::new()
    }
}

fn prop_human_games(start: Game, seed: u64, touches: bool) -> Result<(), TestCaseError> {
    let moves = random_game(start.clone(), 120, seed);
    let (concluded, other) = replay_as_human(&start, &moves, seed, touches);
    prop_assert!(other.is_empty(), "unexpected conclusions {:?}", other);
    prop_assert_eq!(concluded, moves);
    Ok(())
}

fn prop_replication(start: Game, white: bool, seed: u64) -> Result<(), TestCaseError> {
    let mover = if white { Color::White } else { Color::Black };
    let moves = random_game(start.clone(), 120, seed);
    let (own, replicated, other) = replay_with_replication(&start, &moves, mover, seed);
    prop_assert!(other.is_empty(), "unexpected conclusions {:?}", other);
    let mut pos = start.position().clone();
    let (mut want_own, mut want_replicated) = (Vec::new(), Vec::new());
    for &m in &moves {
        if pos.turn() == mover {
            want_own.push(m);
        } else {
            want_replicated.push(m);
        }
        pos.play_unchecked(m);
    }
    prop_assert_eq!(own, want_own);
    prop_assert_eq!(replicated, want_replicated);
    Ok(())
}

fn prop_dgt_games(start: Game, seed: u64) -> Result<(), TestCaseError> {
    let moves = random_game(start.clone(), 120, seed);
    let (concluded, other) = replay_on_dgt(&start, &moves, seed);
    prop_assert!(other.is_empty(), "unexpected conclusions {:?}", other);
    prop_assert_eq!(concluded, moves);
    Ok(())
}

/// One arbitrary step: (operation, square, piece code, bits, milliseconds to wait).
type Step = (u8, u8, u8, u64, u64);

fn prop_arbitrary_events(
    kind: BoardKind,
    touch_move: TouchMove,
    mover: Option<Color>,
    steps: Vec<Step>,
) -> Result<(), TestCaseError> {
    let mut game = Game::new();
    let settings = DetectorSettings {
        touch_move,
        settle_ms: 300,
        mover,
    };
    let mut det = MoveDetector::new(kind, settings, &game);
    let mut out = Vec::new();
    let mut t = 0u64;
    for (op, sq, code, bits, dt) in steps {
        t = t.saturating_add(dt % 5_000);
        let square = Square::new(u32::from(sq % 64));
        let piece = piece_code(code);
        // Mostly physical: lift an occupied hole, fill an empty one.
        let occupied = det.observed().occupied();
        let pick = |b: Bitboard| b.into_iter().nth(usize::from(sq) % b.count().max(1));
        let event = match op % 10 {
            0 | 1 => SensorEvent::Lift(pick(occupied).unwrap_or(square)),
            2 | 3 => SensorEvent::Place(pick(!occupied).unwrap_or(square)),
            4 => SensorEvent::Occupancy(Bitboard(bits)),
            5 => SensorEvent::SquareChanged { square, piece },
            6 => {
                let mut b = game.position().board().clone();
                if bits % 2 == 0 {
                    b.rotate_180();
                }
                b.discard_piece_at(square);
                SensorEvent::Pieces(b)
            }
            7 => SensorEvent::Key(BoardKey::Promote(piece.map_or(Role::Queen, |p| p.role))),
            8 => {
                // The table changes the game: a legal move, or an undo.
                if bits % 3 == 0 {
                    game.undo();
                } else {
                    let legal = game.position().legal_moves();
                    if !legal.is_empty() {
                        let _ = game.play(legal[(bits as usize) % legal.len()]);
                    }
                }
                det.poll(&game, t, &mut out);
                continue;
            }
            _ => {
                if bits % 7 == 0 {
                    det.reconnected();
                }
                det.poll(&game, t, &mut out);
                continue;
            }
        };
        det.handle(&game, &Timed { at: t, event }, &mut out);
        for c in out.drain(..) {
            match c {
                Conclusion::Moved { m, .. } => {
                    let _ = game.play(m);
                }
                Conclusion::Takeback { plies } if bits % 2 == 0 => {
                    for _ in 0..plies {
                        game.undo();
                    }
                }
                Conclusion::Illegal { corrections, .. }
                | Conclusion::Mismatch { corrections, .. } => {
                    prop_assert!(corrections.len() <= 64);
                }
                _ => {}
            }
        }
        prop_assert!(det.believed().occupied().count() <= 64);
        // Once it has seen the game again, the board is never ahead of it (a conclusion the
        // caller does not play is withdrawn).
        det.poll(&game, t, &mut out);
        let tentative = out.iter().any(|c| matches!(c, Conclusion::Moved { .. }));
        prop_assert!(tentative || det.board_ply() <= game.ply_count());
        out.clear();
    }
    det.poll(&game, u64::MAX, &mut out);
    Ok(())
}

fn prop_corrections(
    seen: &[u8],
    want: &[u8],
    sparse: u8,
    occupancy: bool,
    beliefs: bool,
) -> Result<(), TestCaseError> {
    let to_board = |codes: &[u8]| {
        let mut b = Board::empty();
        for (i, &c) in codes.iter().enumerate() {
            // Thin the boards out so that pairings and leftovers both occur.
            if let Some(p) = piece_code(c)
                && (i as u8) % 4 >= sparse
            {
                b.set_piece_at(Square::new(i as u32), p);
            }
        }
        b
    };
    let seen = to_board(seen);
    let target = to_board(want);
    let observed = if occupancy {
        Observed::Occupancy(seen.occupied())
    } else {
        Observed::Pieces(seen.clone())
    };
    let believed = beliefs.then_some(&seen);
    let c = corrections::corrections(&observed, believed, &target);
    let after = corrections::apply(&observed, &c);
    prop_assert!(after.matches(&target), "{:?}", c);
    // Fewest actions: surplus + missing − the largest number of pairs.
    let (surplus, missing): (Surplus, Missing) = match &observed {
        Observed::Pieces(b) => (
            b.iter()
                .filter(|&(sq, p)| target.piece_at(sq) != Some(p))
                .map(|(sq, p)| (sq, Some(p)))
                .collect(),
            target
                .iter()
                .filter(|&(sq, p)| b.piece_at(sq) != Some(p))
                .collect(),
        ),
        Observed::Occupancy(occ) => {
            // Believed to hold another piece than the target's: wrong like an empty hole.
            let wrong_piece: Bitboard = (*occ & target.occupied())
                .into_iter()
                .filter(|&sq| {
                    believed
                        .and_then(|b| b.piece_at(sq))
                        .is_some_and(|p| Some(p) != target.piece_at(sq))
                })
                .collect();
            (
                ((*occ & !target.occupied()) | wrong_piece)
                    .into_iter()
                    .map(|sq| (sq, believed.and_then(|b| b.piece_at(sq))))
                    .collect(),
                ((target.occupied() & !*occ) | wrong_piece)
                    .into_iter()
                    .filter_map(|sq| target.piece_at(sq).map(|p| (sq, p)))
                    .collect(),
            )
        }
    };
    let mut known = 0usize;
    let mut unmatched_missing = missing.len();
    for color in [Color::White, Color::Black] {
        for role in ROLES {
            let p = Piece { color, role };
            let s = surplus.iter().filter(|(_, q)| *q == Some(p)).count();
            let m = missing.iter().filter(|(_, q)| *q == p).count();
            known += s.min(m);
            unmatched_missing -= s.min(m);
        }
    }
    let unknown = surplus.iter().filter(|(_, q)| q.is_none()).count();
    let pairs = known + unknown.min(unmatched_missing);
    prop_assert_eq!(c.len(), surplus.len() + missing.len() - pairs);
    Ok(())
}

proptest! {
    // `PROPTEST_CASES=n` searches longer.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        .. ProptestConfig::default()
    })]

    #[test]
    fn random_games_in_human_order_conclude_exactly_their_moves(seed: u64, touches: bool) {
        prop_human_games(Game::new(), seed, touches)?;
    }

    #[test]
    fn random_chess960_games_conclude_exactly_their_moves(n in 0u32..960, seed: u64, touches: bool) {
        prop_human_games(Game::chess960(n).unwrap(), seed, touches)?;
    }

    #[test]
    fn random_games_against_another_board_replicate_its_moves(
        n in 0u32..960, chess960: bool, white: bool, seed: u64,
    ) {
        prop_replication(start_for(chess960, n), white, seed)?;
    }

    #[test]
    fn random_games_as_dgt_field_updates_in_any_scan_order(n in 0u32..960, chess960: bool, seed: u64) {
        prop_dgt_games(start_for(chess960, n), seed)?;
    }

    #[test]
    fn arbitrary_events_never_panic_and_stay_bounded(
        kind in prop_oneof![Just(BoardKind::Occupancy), Just(BoardKind::Identity)],
        touch in prop_oneof![Just(TouchMove::Off), Just(TouchMove::Warn), Just(TouchMove::Strict)],
        mover in prop_oneof![Just(None), Just(Some(Color::White)), Just(Some(Color::Black))],
        steps in proptest::collection::vec(any::<Step>(), 0..300),
    ) {
        prop_arbitrary_events(kind, touch, mover, steps)?;
    }

    #[test]
    fn corrections_always_reach_the_target(
        seen in proptest::collection::vec(0u8..13, 64),
        want in proptest::collection::vec(0u8..13, 64),
        sparse in 0u8..4,
        occupancy: bool,
        beliefs: bool,
    ) {
        prop_corrections(&seen, &want, sparse, occupancy, beliefs)?;
    }
}

#[test]
fn corrections_take_the_shortest_pairing() {
    // Brute force over all pairings of three rooks.
    let target = parse_board("8/8/8/8/8/8/8/R2R3R");
    let seen = parse_board("R7/8/8/3R4/8/8/8/7R");
    let c = corrections::corrections(&Observed::Occupancy(seen.occupied()), None, &target);
    let total: u32 = c
        .iter()
        .map(|c| match *c {
            Correction::Move { from, to, .. } => {
                from.file().distance(to.file()) + from.rank().distance(to.rank())
            }
            _ => 100,
        })
        .sum();
    let surplus = [Square::A8, Square::D5];
    let missing = [Square::A1, Square::D1];
    let best = [[0, 1], [1, 0]]
        .iter()
        .map(|p| {
            (0..2)
                .map(|i| {
                    surplus[i].file().distance(missing[p[i]].file())
                        + surplus[i].rank().distance(missing[p[i]].rank())
                })
                .sum::<u32>()
        })
        .min()
        .unwrap();
    assert_eq!(total, best, "{c:?}");
}

/// The orders the replays above pick (peg_events with a scrambled variant) reach every order
/// a hand can make: the three en-passant orders and the six of castling.
#[test]
fn replayed_moves_take_every_order() {
    for (fen, m, expected) in [
        (
            EN_PASSANT,
            Move::EnPassant {
                from: Square::E5,
                to: Square::D6,
            },
            3,
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            Move::Castle {
                king: Square::E1,
                rook: Square::H1,
            },
            6,
        ),
    ] {
        let pos: Chess = Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(peg_variants(&pos, m), expected);
        let mut orders = std::collections::BTreeSet::new();
        for seed in 0..200 {
            orders.insert(format!("{:?}", peg_events(&pos, m, order(seed, 3))));
        }
        assert_eq!(orders.len(), expected, "{orders:?}");
    }
}
