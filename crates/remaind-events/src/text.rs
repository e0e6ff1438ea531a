//! An event's text as one line of a listing.

/// `s` on one line: every run of whitespace (newlines included) one space, trimmed; past
/// `max` characters, its first `max - 1` and `…`.
pub fn one_line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max * 4));
    let mut count = 0usize;
    for word in s.split_whitespace() {
        if count > 0 {
            out.push(' ');
            count += 1;
        }
        out.push_str(word);
        count += word.chars().count();
        if count > max {
            break;
        }
    }
    if count > max {
        let cut: String = out.chars().take(max.saturating_sub(1)).collect();
        return cut + "…";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn whitespace_runs_are_one_space_and_long_text_is_cut() {
        assert_eq!(one_line("  a\n\tb  c ", 10), "a b c");
        assert_eq!(one_line("abcdef", 6), "abcdef");
        assert_eq!(one_line("abcdefg", 6), "abcde…");
        assert_eq!(one_line("ééééééé", 3), "éé…");
        assert_eq!(one_line("", 3), "");
    }
}
