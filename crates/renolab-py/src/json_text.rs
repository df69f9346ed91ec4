//! JSON text for Python: `indent_json` lays out what Python's C encoder wrote compactly as
//! `json.dumps(..., indent=N)` would, byte for byte. Python's indenting encoder is pure
//! Python and takes most of the time of writing a large `summary.json`.

use pyo3::prelude::*;

use crate::errors::catch_panic;

/// *compact* (`json.dumps(value, separators=(",", ":"))`, no whitespace between tokens) laid out
/// as `json.dumps(value, indent=indent)` writes it: a newline and the nesting's indent after `{`,
/// `[` and `,` and before `}` and `]`, `": "` between a key and its value, empty containers as
/// `{}` and `[]`; strings are copied as they are.
#[pyfunction]
fn indent_json(compact: &str, indent: usize) -> PyResult<String> {
    catch_panic("indent_json", || Ok(indented(compact, indent)))
}

fn indented(compact: &str, indent: usize) -> String {
    let bytes = compact.as_bytes();
    let mut out = String::with_capacity(bytes.len() * 2);
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => {
                let end = string_end(bytes, i);
                out.push_str(&compact[i..end]);
                i = end;
                continue;
            }
            b'{' | b'[' if bytes.get(i + 1) == Some(&closing(b)) => {
                out.push_str(&compact[i..i + 2]);
                i += 2;
                continue;
            }
            b'{' | b'[' => {
                out.push(b as char);
                depth += 1;
                new_line(&mut out, depth * indent);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                new_line(&mut out, depth * indent);
                out.push(b as char);
            }
            b',' => {
                out.push(',');
                new_line(&mut out, depth * indent);
            }
            b':' => out.push_str(": "),
            _ => {
                // A number, literal or (not from Python's encoder) anything else, copied.
                let end = i + compact[i..]
                    .find(['"', '{', '[', '}', ']', ',', ':'])
                    .unwrap_or(compact.len() - i);
                out.push_str(&compact[i..end]);
                i = end;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Where the string starting at the quote `bytes[start]` ends (past its closing quote, or the
/// end of the text): a backslash escapes the next byte.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn closing(open: u8) -> u8 {
    if open == b'{' {
        b'}'
    } else {
        b']'
    }
}

fn new_line(out: &mut String, spaces: usize) {
    out.push('\n');
    out.extend(std::iter::repeat_n(' ', spaces));
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(indent_json, m)?)
}

#[cfg(test)]
mod tests {
    use super::indented;

    #[test]
    fn lays_out_nested_containers_as_python_does() {
        let compact = r#"{"a":[1,{"b":"x,{y}:\"z\""},[],{}],"c":{"d":-1.5e-05}}"#;
        let expected = "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x,{y}:\\\"z\\\"\"\n    },\n    [],\n    {}\n  ],\n  \"c\": {\n    \"d\": -1.5e-05\n  }\n}";
        assert_eq!(indented(compact, 2), expected);
    }

    #[test]
    fn leaves_scalars_and_empty_containers_alone() {
        for text in ["1", "\"s\"", "null", "[]", "{}", "NaN"] {
            assert_eq!(indented(text, 2), text);
        }
    }

    #[test]
    fn ends_an_unterminated_string_at_the_end_of_the_text() {
        assert_eq!(indented(r#"["a\"#, 1), "[\n \"a\\");
    }
}
