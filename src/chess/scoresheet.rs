//! A scoresheet: each move with who recorded it and the clock readings; PGN, ICCF, Braille exports.
