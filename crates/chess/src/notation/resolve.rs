//! Turns what a notation said about a move (a [`MoveSpec`]) into the one legal move it means.
//!
//! Every notation parses text into a `MoveSpec` without looking at the position; this module alone
//! matches specs against the legal moves, so that "illegal", "ambiguous" and "promotion piece
//! missing" are decided the same way whichever notation the player used.

use shakmaty::{
    CastlingMode, CastlingSide, Chess, File, Move, MoveList, Position, Rank, Role, Square,
};

use crate::role_name;

/// What a move's text said, before the position is consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveSpec {
    /// The moving piece, when the notation names it (SAN, LAN, spoken); `None` for coordinates.
    pub role: Option<Role>,
    pub from_file: Option<File>,
    pub from_rank: Option<Rank>,
    pub target: Target,
    /// The promotion piece, when written.
    pub promotion: Option<Role>,
    /// Whether the notation writes castling as king-takes-rook (UCI). In Chess960 every
    /// notation is read that way anyway; this flag then also says that the notation never
    /// writes castling as the king's destination (UCI_Chess960), so `f1g1` is a king move.
    pub castling_by_rook_square: bool,
}

/// Where the move goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Square(Square),
    Castle(CastlingSide),
}

impl MoveSpec {
    /// A coordinate move: from-square and to-square (UCI, ICCF numeric, telegraph).
    pub fn coordinates(from: Square, to: Square, promotion: Option<Role>) -> MoveSpec {
        MoveSpec {
            role: None,
            from_file: Some(from.file()),
            from_rank: Some(from.rank()),
            target: Target::Square(to),
            promotion,
            castling_by_rook_square: false,
        }
    }

    /// Castling on one side.
    pub fn castle(side: CastlingSide) -> MoveSpec {
        MoveSpec {
            role: Some(Role::King),
            from_file: None,
            from_rank: None,
            target: Target::Castle(side),
            promotion: None,
            castling_by_rook_square: false,
        }
    }

    /// The from-square, when the spec names both its file and rank.
    pub fn from_square(&self) -> Option<Square> {
        Some(Square::from_coords(self.from_file?, self.from_rank?))
    }
}

/// Why a spec names no single legal move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// No legal move matches; the text says why, in plain words.
    Illegal(String),
    /// Several legal moves match (the candidates, each a legal move here).
    Ambiguous(Vec<Move>),
    /// A pawn reaches the last rank and the spec did not say what it becomes.
    PromotionMissing,
}

/// The square where the king ends after castling (g- or c-file of its own rank).
pub fn castling_king_destination(king: Square, side: CastlingSide) -> Square {
    Square::from_coords(side.king_to_file(), king.rank())
}

/// Matches a spec against the legal moves of `pos`.
pub fn resolve(pos: &Chess, mode: CastlingMode, spec: &MoveSpec) -> Result<Move, ResolveError> {
    let legal = pos.legal_moves();
    let mut found: MoveList = MoveList::new();
    for &m in &legal {
        if matches(spec, mode, m) {
            found.push(m);
        }
    }
    // In Chess960 a one-step king move (f1-g1) can land where castling puts the king. The text
    // then literally names that king move, and castling keeps its unambiguous forms (O-O,
    // king-takes-rook), so the king's destination is read as castling only when no other
    // legal move matches: otherwise the plain king move could not be written at all.
    if found.len() > 1 && found.iter().any(|m| !m.is_castle()) {
        found.retain(|m| !m.is_castle());
    }
    // A missing promotion piece matches all four promotions; say what is missing instead.
    if spec.promotion.is_none() && !found.is_empty() && found.iter().all(|m| m.is_promotion()) {
        return Err(ResolveError::PromotionMissing);
    }
    match found.len() {
        1 => Ok(found[0]),
        0 => Err(ResolveError::Illegal(explain_illegal(
            pos, mode, spec, &legal,
        ))),
        _ => Err(ResolveError::Ambiguous(found.to_vec())),
    }
}

fn matches(spec: &MoveSpec, mode: CastlingMode, m: Move) -> bool {
    if spec.role.is_some_and(|role| m.role() != role) {
        return false;
    }
    let from = m.from().expect("chess moves have a from-square");
    if spec.from_file.is_some_and(|f| f != from.file())
        || spec.from_rank.is_some_and(|r| r != from.rank())
    {
        return false;
    }
    if spec.promotion != m.promotion() {
        // A missing promotion piece still matches, so that the caller can ask for it.
        if !(spec.promotion.is_none() && m.is_promotion()) {
            return false;
        }
    }
    match (spec.target, m) {
        (Target::Castle(side), Move::Castle { .. }) => m.castling_side() == Some(side),
        (Target::Castle(_), _) => false,
        (Target::Square(to), Move::Castle { king, rook }) => {
            let side = m.castling_side().expect("castling move has a side");
            // In Chess960 king-takes-rook is the only unambiguous coordinate form, so it is
            // always read; the king's destination is read unless the notation is UCI's.
            let chess960 = mode == CastlingMode::Chess960;
            let by_destination =
                spec.from_square().is_some() && (!chess960 || !spec.castling_by_rook_square);
            let by_rook = chess960 || spec.castling_by_rook_square;
            (by_destination && to == castling_king_destination(king, side))
                || (by_rook && to == rook)
        }
        (Target::Square(to), _) => m.to() == to,
    }
}

fn explain_illegal(pos: &Chess, mode: CastlingMode, spec: &MoveSpec, legal: &MoveList) -> String {
    let turn = pos.turn();
    if legal.is_empty() {
        return "the game is over: there is no legal move".to_owned();
    }
    if let Some(from) = spec.from_square() {
        match pos.board().piece_at(from) {
            None => return format!("there is no piece on {from}"),
            Some(p) if p.color != turn => {
                return format!(
                    "the {} on {from} is {}'s, and {} is to move",
                    role_name(p.role),
                    p.color,
                    turn
                );
            }
            Some(p) if spec.role.is_some_and(|r| r != p.role) => {
                let r = spec.role.expect("checked");
                return format!(
                    "the piece on {from} is a {}, not a {}",
                    role_name(p.role),
                    role_name(r)
                );
            }
            Some(p) => {
                if let Target::Square(to) = spec.target {
                    if spec.promotion.is_some() {
                        if p.role != Role::Pawn {
                            return format!(
                                "only a pawn can promote, not the {} on {from}",
                                role_name(p.role)
                            );
                        }
                        if legal.iter().any(|m| m.from() == Some(from) && m.to() == to) {
                            return format!(
                                "the pawn on {from} goes to {to} without promoting (only the \
                                 last rank promotes); write the move without a promotion piece"
                            );
                        }
                    }
                    if p.role == Role::King
                        && !spec.castling_by_rook_square
                        && mode == CastlingMode::Standard
                    {
                        let rook_square = legal.iter().find_map(|m| match *m {
                            Move::Castle { king, rook } if king == from && rook == to => {
                                Some(m.castling_side())
                            }
                            _ => None,
                        });
                        if let Some(Some(side)) = rook_square {
                            let dest = castling_king_destination(from, side);
                            return format!(
                                "castling is written as the king's move, {from} to {dest}"
                            );
                        }
                    }
                    return format!("the {} on {from} cannot go to {to} here", role_name(p.role));
                }
            }
        }
    }
    match spec.target {
        Target::Castle(side) => {
            let side = match side {
                CastlingSide::KingSide => "kingside",
                CastlingSide::QueenSide => "queenside",
            };
            format!("{turn} cannot castle {side} here")
        }
        Target::Square(to) => match spec.role {
            Some(role) if spec.promotion.is_some() && role != Role::Pawn => {
                format!("only a pawn can promote, not a {}", role_name(role))
            }
            Some(Role::Pawn) if spec.promotion.is_some() => format!("no pawn can promote on {to}"),
            Some(role) => format!("no {} of {turn} can go to {to}", role_name(role)),
            None => format!("no piece of {turn} can go to {to}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn pos(fen: &str, mode: CastlingMode) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn standard_castling_by_king_destination_only() {
        let p = pos(
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            CastlingMode::Standard,
        );
        let oo = resolve(
            &p,
            CastlingMode::Standard,
            &MoveSpec::coordinates(sq("e1"), sq("g1"), None),
        )
        .unwrap();
        assert_eq!(
            oo,
            Move::Castle {
                king: sq("e1"),
                rook: sq("h1")
            }
        );
        let err = resolve(
            &p,
            CastlingMode::Standard,
            &MoveSpec::coordinates(sq("e1"), sq("h1"), None),
        )
        .unwrap_err();
        assert_eq!(
            err,
            ResolveError::Illegal("castling is written as the king's move, e1 to g1".into())
        );
        let mut uci = MoveSpec::coordinates(sq("e1"), sq("a1"), None);
        uci.castling_by_rook_square = true;
        assert_eq!(
            resolve(&p, CastlingMode::Standard, &uci).unwrap(),
            Move::Castle {
                king: sq("e1"),
                rook: sq("a1")
            }
        );
    }

    #[test]
    fn chess960_king_destination_names_the_plain_king_move_when_there_is_one() {
        // King f1, rook h1: f1-g1 is the castling king's destination and a one-step king move.
        let p = pos("4k3/8/8/8/8/8/8/5K1R w H - 0 1", CastlingMode::Chess960);
        let step = resolve(
            &p,
            CastlingMode::Chess960,
            &MoveSpec::coordinates(sq("f1"), sq("g1"), None),
        )
        .unwrap();
        assert_eq!(
            step,
            Move::Normal {
                role: Role::King,
                from: sq("f1"),
                capture: None,
                to: sq("g1"),
                promotion: None
            }
        );
        let oo = resolve(
            &p,
            CastlingMode::Chess960,
            &MoveSpec::coordinates(sq("f1"), sq("h1"), None),
        )
        .unwrap();
        assert_eq!(
            oo,
            Move::Castle {
                king: sq("f1"),
                rook: sq("h1")
            }
        );
    }

    #[test]
    fn chess960_uci_king_destination_is_a_king_move() {
        let p = pos("4k3/8/8/8/8/8/8/5K1R w H - 0 1", CastlingMode::Chess960);
        let mut uci = MoveSpec::coordinates(sq("f1"), sq("g1"), None);
        uci.castling_by_rook_square = true;
        let m = resolve(&p, CastlingMode::Chess960, &uci).unwrap();
        assert!(!m.is_castle(), "{m:?}");
    }

    #[test]
    fn chess960_king_letter_means_the_king_move() {
        let p = pos("4k3/8/8/8/8/8/8/5K1R w H - 0 1", CastlingMode::Chess960);
        let mut spec = MoveSpec::coordinates(sq("f1"), sq("g1"), None);
        spec.role = Some(Role::King);
        let m = resolve(&p, CastlingMode::Chess960, &spec).unwrap();
        assert!(!m.is_castle(), "{m:?}");
    }

    #[test]
    fn missing_promotion_piece_is_its_own_error() {
        let p = pos("8/P6k/8/8/8/8/8/K7 w - - 0 1", CastlingMode::Standard);
        let err = resolve(
            &p,
            CastlingMode::Standard,
            &MoveSpec::coordinates(sq("a7"), sq("a8"), None),
        )
        .unwrap_err();
        assert_eq!(err, ResolveError::PromotionMissing);
        let q = resolve(
            &p,
            CastlingMode::Standard,
            &MoveSpec::coordinates(sq("a7"), sq("a8"), Some(Role::Queen)),
        );
        assert!(q.unwrap().is_promotion());
    }

    #[test]
    fn illegal_moves_say_why() {
        let p = Chess::default();
        let why = |from: &str, to: &str| match resolve(
            &p,
            CastlingMode::Standard,
            &MoveSpec::coordinates(sq(from), sq(to), None),
        ) {
            Err(ResolveError::Illegal(s)) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(why("e3", "e4"), "there is no piece on e3");
        assert_eq!(
            why("e7", "e5"),
            "the pawn on e7 is black's, and white is to move"
        );
        assert_eq!(why("g1", "g3"), "the knight on g1 cannot go to g3 here");
        // A promotion piece on a move that promotes nothing says so, not "cannot go".
        let promo = |from: &str, to: &str| match resolve(
            &p,
            CastlingMode::Standard,
            &MoveSpec::coordinates(sq(from), sq(to), Some(Role::Queen)),
        ) {
            Err(ResolveError::Illegal(s)) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            promo("e2", "e4"),
            "the pawn on e2 goes to e4 without promoting (only the last rank promotes); \
             write the move without a promotion piece"
        );
        assert_eq!(
            promo("g1", "f3"),
            "only a pawn can promote, not the knight on g1"
        );
        assert_eq!(promo("e2", "e5"), "the pawn on e2 cannot go to e5 here");
    }
}
