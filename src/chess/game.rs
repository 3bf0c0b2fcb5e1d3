//! A game on shakmaty: start position, move history, outcome and draw claims (FIDE 5, 6.9, 9).
