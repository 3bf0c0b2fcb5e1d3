//! PGN import with pgn-reader: one or many games, FEN/SetUp/Variant tags honoured.
