//! Criterion benchmark of notation parsing and formatting over a real game collection.

fn main() {}
