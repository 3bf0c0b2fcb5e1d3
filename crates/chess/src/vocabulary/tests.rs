//! The templates' placeholders found and filled.

use super::*;

#[test]
fn placeholders_are_found_and_bad_braces_refused() {
    assert_eq!(placeholders("{a} und {b_c}").unwrap(), vec!["a", "b_c"]);
    assert!(placeholders("{a").is_err());
    assert!(placeholders("a}").is_err());
    assert!(placeholders("{A}").is_err());
    assert!(placeholders("{}").is_err());
    assert!(placeholders("{a{b}").is_err());
}

#[test]
fn fill_substitutes_and_keeps_unknown_names() {
    assert_eq!(fill("{n} Züge", &[("n", "zwei")]), "zwei Züge");
    assert_eq!(fill("{x} und {", &[]), "{x} und {");
    assert_eq!(fill("ü{n}ß", &[("n", "é")]), "üéß");
}
