//! The error every bad scenario gets: the field path and what is allowed.

use std::fmt;

/// A scenario that cannot run, with the field at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Path of the field, e.g. `link[2].rate`; empty for the document itself.
    pub path: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Values come from the file: a megabyte-long name must not make a megabyte-long
        // error line.
        if self.path.is_empty() {
            f.write_str(&shorten(&self.message))
        } else {
            f.write_str(&shorten(&format!("{}: {}", self.path, self.message)))
        }
    }
}

/// Quoted values longer than this many characters are cut in messages ...
const LONGEST_QUOTED: usize = 64;
/// ... and so are words (field paths, unquoted values) longer than this ...
const LONGEST_WORD: usize = 120;
/// ... and whole messages longer than this.
const LONGEST_MESSAGE: usize = 2000;

/// `message` with every long value cut: a quoted string (`"..."`) of more than
/// [`LONGEST_QUOTED`] characters keeps its first 40 and says how long it was, a word of more
/// than [`LONGEST_WORD`] its first 60, and the message its first [`LONGEST_MESSAGE`].
pub fn shorten(message: &str) -> String {
    if message.len() <= LONGEST_QUOTED {
        return message.to_string();
    }
    let chars: Vec<char> = message.chars().collect();
    let mut out = String::with_capacity(message.len().min(4 * LONGEST_MESSAGE));
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '"' {
            // A quoted value, as `{:?}` writes it: escapes (\", \\) stay inside.
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = j.min(chars.len() - 1);
            let inner = &chars[i + 1..end.max(i + 1)];
            if inner.len() > LONGEST_QUOTED {
                out.push('"');
                out.extend(&inner[..40]);
                out.push_str(&format!("...\" ({} characters)", inner.len()));
            } else {
                out.extend(&chars[i..=end]);
            }
            i = end + 1;
        } else if chars[i].is_whitespace() {
            out.push(chars[i]);
            i += 1;
        } else {
            let mut j = i;
            while j < chars.len() && !chars[j].is_whitespace() && chars[j] != '"' {
                j += 1;
            }
            if j - i > LONGEST_WORD {
                out.extend(&chars[i..i + 60]);
                out.push_str(&format!("... ({} characters)", j - i));
            } else {
                out.extend(&chars[i..j]);
            }
            i = j;
        }
    }
    if out.chars().count() > LONGEST_MESSAGE {
        let total = out.chars().count();
        out = out.chars().take(LONGEST_MESSAGE).collect();
        out.push_str(&format!("... (message cut: {total} characters)"));
    }
    out
}

impl std::error::Error for ScenarioError {}

/// Result of scenario parsing.
pub type Result<T> = std::result::Result<T, ScenarioError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_messages_are_left_alone() {
        let m = r#"flow[0].name: "my flow" is not a valid name"#;
        assert_eq!(shorten(m), m);
    }

    #[test]
    fn long_values_are_cut_and_say_how_long_they_were() {
        let name = "x".repeat(1 << 20);
        let m = shorten(&format!(
            "flow[0].name: {name:?} is not a valid name; use letters"
        ));
        assert_eq!(
            m,
            format!(
                "flow[0].name: \"{}...\" ({} characters) is not a valid name; use letters",
                "x".repeat(40),
                1 << 20
            )
        );
        let key = "k".repeat(500);
        let m = shorten(&format!("flow[0].options.{key}: is not an option"));
        assert!(m.len() < 150, "{m}");
        assert!(m.ends_with("(517 characters) is not an option"), "{m}");
        let list = (0..5000)
            .map(|i| format!("n{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let m = shorten(&format!("flow[0].src: unknown node; nodes: {list}"));
        assert!(m.chars().count() < LONGEST_MESSAGE + 50, "{}", m.len());
        // Escaped quotes stay inside their value; multi-byte characters are cut whole.
        let m = shorten(&format!("a: {:?} b", format!("\"{}", "é".repeat(100))));
        assert!(
            m.starts_with("a: \"\\\"éé") && m.ends_with("(102 characters) b"),
            "{m}"
        );
    }
}
