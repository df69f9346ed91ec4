//! What the docs and the fuzz dictionary say of the controllers' and recoveries' options is
//! generated from their declarations: these tests fail when either drifts, and rewrite both
//! with `RENOLAB_UPDATE_DOCS=1 cargo test -p renolab-core --test docs`.

use std::path::{Path, PathBuf};

use renolab_core::scenario::{option_keys, option_words, options_tables_markdown};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Checks (or, with `RENOLAB_UPDATE_DOCS=1`, rewrites) the text between the lines `begin`
/// and `end` of `file`.
fn generated_block(file: &Path, begin: &str, end: &str, expected: &str) {
    let text = std::fs::read_to_string(file).expect("readable");
    let start = text
        .find(begin)
        .unwrap_or_else(|| panic!("{}: no line {begin:?}", file.display()))
        + begin.len()
        + 1;
    let stop = start
        + text[start..]
            .find(end)
            .unwrap_or_else(|| panic!("{}: no line {end:?}", file.display()));
    let found = &text[start..stop];
    if found == expected {
        return;
    }
    if std::env::var_os("RENOLAB_UPDATE_DOCS").is_some() {
        let updated = format!("{}{expected}{}", &text[..start], &text[stop..]);
        std::fs::write(file, updated).expect("writable");
        return;
    }
    panic!(
        "{} drifted from the declarations; rewrite it with RENOLAB_UPDATE_DOCS=1 cargo test -p renolab-core --test docs\n--- found\n{found}\n--- expected\n{expected}",
        file.display()
    );
}

#[test]
fn the_options_tables_of_the_scenario_docs_are_the_declarations() {
    generated_block(
        &repo().join("docs/scenario.md"),
        "<!-- options: generated from the declarations (tests/docs.rs) -->",
        "<!-- options: end -->",
        &options_tables_markdown(),
    );
}

#[test]
fn the_fuzz_dictionary_holds_every_option_and_name() {
    let mut tokens = String::new();
    for key in option_keys() {
        tokens += &format!("\"{key}\"\n");
    }
    for word in option_words() {
        tokens += &format!("\"\\\"{word}\\\"\"\n");
    }
    generated_block(
        &repo().join("fuzz/scenario.dict"),
        "# --- options: generated from the declarations (crates/renolab-core/tests/docs.rs)",
        "# --- options: end",
        &tokens,
    );
}
