//! The layering of docs/architecture.md, checked against the source: each top-level module
//! of the core may use only the modules below it (the table in [`LAYERS`]), so that links,
//! queues, losses and TCP know nothing of the scenario format, and no two top-level modules
//! import each other.
//!
//! The check reads every `crate::<module>` path in the code (imports and inline paths alike,
//! comments and test modules left out): a new import of a higher layer fails here, with the
//! file and the line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module and the modules it may use, bottom up (docs/architecture.md, "The
/// core, bottom up"). `sim` is the top: it builds and runs everything below.
const LAYERS: &[(&str, &[&str])] = &[
    ("time", &[]),
    ("units", &["time"]),
    ("histogram", &[]),
    ("prefetch", &[]),
    ("ring", &["prefetch"]),
    ("rng", &["time"]),
    ("engine", &["time"]),
    ("schedule", &["time"]),
    ("packet", &["prefetch", "time", "units"]),
    ("queue", &["packet", "ring", "rng", "time", "units"]),
    ("loss", &["packet", "rng", "schedule", "time", "units"]),
    (
        "net",
        &[
            "packet",
            "queue",
            "loss",
            "engine",
            "histogram",
            "ring",
            "rng",
            "schedule",
            "time",
            "units",
        ],
    ),
    ("app", &["packet", "rng", "time", "units"]),
    ("tcp", &["packet", "rng", "time", "units"]),
    (
        "trace",
        &["net", "packet", "queue", "loss", "tcp", "time", "units"],
    ),
    (
        "scenario",
        &[
            "app",
            "tcp",
            "trace",
            "net",
            "packet",
            "queue",
            "loss",
            "engine",
            "histogram",
            "rng",
            "schedule",
            "time",
            "units",
        ],
    ),
    (
        "sim",
        &[
            "scenario",
            "trace",
            "app",
            "tcp",
            "net",
            "packet",
            "queue",
            "loss",
            "engine",
            "histogram",
            "rng",
            "schedule",
            "time",
            "units",
        ],
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source tree") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a source file without its comments and its test module: the lines a build
/// without `cfg(test)` compiles.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut previous_was_cfg_test = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if previous_was_cfg_test && trimmed.starts_with("mod ") {
            break; // the test module closes the file, by the crate's convention
        }
        previous_was_cfg_test = trimmed.starts_with("#[cfg(test)]");
        if trimmed.starts_with("//") {
            continue;
        }
        let code = match line.find("//") {
            // A comment after code (the crate writes no `//` inside string literals that
            // hold paths).
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        };
        lines.push((i + 1, code.to_string()));
    }
    lines
}

/// The top-level modules a line names through `crate::`.
fn modules_named(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            // `use crate::{a::b, c};`
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        } else {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // `$crate::name!` is one of the crate's macros, not a module.
            let is_macro = after[name.len()..].starts_with('!');
            if !name.is_empty() && !is_macro {
                found.push(name);
            }
        }
        rest = after;
    }
    // Paths of the crate's root items (`crate::VERSION`, `crate::Scenario`) name no module.
    found.retain(|m| m.chars().next().is_some_and(|c| c.is_lowercase()));
    found
}

#[test]
fn no_module_uses_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut violations = Vec::new();
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let first = rel.components().next().expect("a path");
        let top = first.as_os_str().to_string_lossy();
        let top = top.trim_end_matches(".rs").to_string();
        if top == "lib" {
            continue;
        }
        let Some(may_use) = allowed.get(top.as_str()) else {
            violations.push(format!(
                "{}: module `{top}` is not in the layer table",
                rel.display()
            ));
            continue;
        };
        let name = file.file_name().expect("a file").to_string_lossy();
        if name == "tests.rs" || name.starts_with("tests_") || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("readable source");
        for (line, code) in code_lines(&text) {
            for module in modules_named(&code) {
                if module == top {
                    continue;
                }
                uses.entry(top.clone()).or_default().insert(module.clone());
                if !may_use.contains(&module.as_str()) {
                    violations.push(format!(
                        "{}:{line}: `{top}` uses `{module}`, which it may not (it may use: {})",
                        rel.display(),
                        may_use.join(", ")
                    ));
                }
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layering (docs/architecture.md) broken:\n{}",
        violations.join("\n")
    );
    // The table itself has no cycle, so neither has the code: checked for the table.
    for (module, below) in LAYERS {
        for other in *below {
            let theirs = allowed.get(other).expect("every module in the table");
            assert!(
                !theirs.contains(module),
                "the layer table lets `{module}` and `{other}` use each other"
            );
        }
    }
    assert!(uses.contains_key("sim"), "the check read the source tree");
}

#[test]
fn the_checker_sees_grouped_and_inline_paths_and_skips_comments() {
    assert_eq!(
        modules_named("use crate::{scenario::X, tcp};"),
        vec!["scenario", "tcp"]
    );
    assert_eq!(
        modules_named("let x = crate::net::link_of(3);"),
        vec!["net"]
    );
    assert_eq!(modules_named("crate::VERSION"), Vec::<String>::new());
    assert_eq!(
        modules_named("$crate::dispatch_cc!(self, c => c.cwnd())"),
        Vec::<String>::new()
    );
    let lines = code_lines("use a;\n// crate::scenario\nuse b; // crate::sim\n#[cfg(test)]\nmod tests {\nuse crate::sim;\n}");
    assert!(lines.iter().all(|(_, l)| modules_named(l).is_empty()));
}
