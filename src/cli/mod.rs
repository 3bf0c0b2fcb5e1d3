//! The command-line face: `annabella convert` and `annabella announce`.
