//! The `annabella` binary: parses the command line and hands over to [`annabella::cli`].

fn main() {}
