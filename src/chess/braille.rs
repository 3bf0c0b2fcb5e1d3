//! North American ASCII Braille (the BRF file format) and its Unicode braille cells.
