//! JSON text a runtime wrote that a strict parser refuses only for its characters: a lone
//! UTF-16 surrogate escape (`\ud83d`, what `JSON.stringify` writes for an emoji cut in half)
//! or bytes that are not UTF-8. The text is kept: each such character becomes U+FFFD, and
//! the caller counts what was replaced, instead of losing a whole prompt.

/// `bytes` with every byte sequence that is not UTF-8 and every lone surrogate escape
/// replaced by U+FFFD (the escape by `\ufffd`), and how many were replaced; `None` when
/// nothing needed replacing.
pub fn repair_json_text(bytes: &[u8]) -> Option<(String, usize)> {
    let lossy = String::from_utf8_lossy(bytes);
    let mut replaced = match &lossy {
        std::borrow::Cow::Borrowed(_) => 0,
        std::borrow::Cow::Owned(s) => {
            s.matches('\u{fffd}').count()
                - std::str::from_utf8(bytes).map_or(0, |s| s.matches('\u{fffd}').count())
        }
    };
    let text = lossy.as_ref();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let esc = &rest[at..];
        let Some(unit) = escape_unit(esc) else {
            // `\\`, `\"`, `\n`…: the escape and its character, untouched.
            let len = esc.chars().nth(1).map_or(1, |c| 1 + c.len_utf8());
            out.push_str(&esc[..len]);
            rest = &esc[len..];
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        let low = (0xDC00..0xE000).contains(&unit);
        if high && escape_unit(&esc[6..]).is_some_and(|u| (0xDC00..0xE000).contains(&u)) {
            out.push_str(&esc[..12]);
            rest = &esc[12..];
        } else if high || low {
            out.push_str("\\ufffd");
            replaced += 1;
            rest = &esc[6..];
        } else {
            out.push_str(&esc[..6]);
            rest = &esc[6..];
        }
    }
    out.push_str(rest);
    (replaced > 0).then_some((out, replaced))
}

/// A cheap first look: whether `line` is not UTF-8 or holds a `\uD…` escape (which may be
/// a lone surrogate); only then is [`repair_json_text`] worth its scan.
pub(crate) fn may_need_repair(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"\\ud").is_some()
        || memchr::memmem::find(line, b"\\uD").is_some()
        || std::str::from_utf8(line).is_err()
}

/// The code unit of a `\uXXXX` escape at the start of `s`.
fn escape_unit(s: &str) -> Option<u32> {
    let hex = s.strip_prefix("\\u")?.get(..4)?;
    u32::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_and_bad_bytes_become_replacement_characters() {
        let (fixed, n) = repair_json_text(br#"{"prompt":"fix it \ud83d"}"#).expect("repaired");
        assert_eq!(fixed, r#"{"prompt":"fix it \ufffd"}"#);
        assert_eq!(n, 1);
        let v: serde_json::Value = serde_json::from_str(&fixed).expect("parses");
        assert_eq!(v["prompt"], "fix it \u{fffd}");
        // A whole pair and an escaped backslash stay as written.
        assert_eq!(repair_json_text(br#"{"a":"\ud83d\ude00 \\ud83d"}"#), None);
        let (fixed, n) = repair_json_text(b"{\"a\":\"caf\xe9 \\udc00\"}").expect("repaired");
        assert_eq!(fixed, "{\"a\":\"caf\u{fffd} \\ufffd\"}");
        assert_eq!(n, 2);
        assert_eq!(repair_json_text(br#"{"a":"plain \u00e9"}"#), None);
    }
}
