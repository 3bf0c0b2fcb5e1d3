//! A template's `{name}` placeholders found (with why its braces do not pair up) and filled.

/// The `{name}`s of a template, or why its braces do not pair up.
pub fn placeholders(template: &str) -> Result<Vec<&str>, String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err("a \"}\" without \"{\"".to_owned());
        }
        let after = &rest[open + 1..];
        let close = after
            .find(['{', '}'])
            .filter(|&i| after[i..].starts_with('}'))
            .ok_or_else(|| "a \"{\" without \"}\"".to_owned())?;
        let name = &after[..close];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            return Err(format!(
                "placeholder {{{name}}} must be lowercase letters and _"
            ));
        }
        names.push(name);
        rest = &after[close + 1..];
    }
    Ok(names)
}

/// Fills a template's `{name}`s; a name without a value stays as written (validation keeps
/// that from happening in a loaded language, and a stray brace must not cost an announcement).
pub fn fill(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                match args.iter().find(|(k, _)| *k == name) {
                    Some((_, value)) => out.push_str(value),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}
