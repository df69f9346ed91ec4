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
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Result of scenario parsing.
pub type Result<T> = std::result::Result<T, ScenarioError>;
