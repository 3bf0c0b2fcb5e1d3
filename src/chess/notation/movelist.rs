//! Splits a typed or pasted move list into games and move tokens (move numbers, results, notes dropped).
