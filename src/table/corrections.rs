//! The fewest hand actions (move, remove, place) that bring an observed board to a position.
