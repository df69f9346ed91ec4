//! A typed reader over a JSON-like document that knows where it is, so that every error
//! names the field path (`flow[0].options.min_rto`) and what would have been accepted.

use serde_json::{Map, Value};

use super::error::{Result, ScenarioError};
use crate::units;

/// A table (object) of the document at a known path.
pub struct Table<'a> {
    path: String,
    map: &'a Map<String, Value>,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a table",
    }
}

impl<'a> Table<'a> {
    /// Views `value` at `path` as a table.
    pub fn new(path: impl Into<String>, value: &'a Value) -> Result<Self> {
        let path = path.into();
        match value {
            Value::Object(map) => Ok(Table { path, map }),
            other => Err(ScenarioError::new(
                path,
                format!("expected a table, got {}", type_name(other)),
            )),
        }
    }

    /// Path of this table.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Path of `key` inside this table.
    pub fn field(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn err(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.field(key), message)
    }

    /// The keys present, sorted.
    pub fn keys(&self) -> Vec<&'a str> {
        let mut keys: Vec<&str> = self.map.keys().map(String::as_str).collect();
        keys.sort();
        keys
    }

    /// Fails on any key not in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<()> {
        let mut keys: Vec<&String> = self.map.keys().collect();
        keys.sort();
        for key in keys {
            if !allowed.contains(&key.as_str()) {
                let what = if self.path.is_empty() {
                    "unknown section".to_string()
                } else {
                    "unknown key".to_string()
                };
                return Err(self.err(
                    key,
                    format!("{what} {key:?}; allowed: {}", allowed.join(", ")),
                ));
            }
        }
        Ok(())
    }

    /// The raw value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// A sub-table, if present.
    pub fn table(&self, key: &str) -> Result<Option<Table<'a>>> {
        self.get(key)
            .map(|v| Table::new(self.field(key), v))
            .transpose()
    }

    /// A string, if present.
    pub fn str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.err(key, format!("expected a string, got {}", type_name(v)))),
        }
    }

    /// A required string.
    pub fn req_str(&self, key: &str) -> Result<&'a str> {
        self.str(key)?.ok_or_else(|| self.err(key, "is required"))
    }

    /// A boolean, if present.
    pub fn bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.err(key, format!("expected true or false, got {}", type_name(v)))),
        }
    }

    /// An integer in `[min, max]`, if present.
    pub fn int(&self, key: &str, min: u64, max: u64) -> Result<Option<u64>> {
        let v = match self.get(key) {
            None => return Ok(None),
            Some(v) => v,
        };
        let n = int_value(v).ok_or_else(|| {
            self.err(
                key,
                format!(
                    "expected a whole number from {min} to {max}, got {}",
                    show(v)
                ),
            )
        })?;
        check_range(n, min, max).map_err(|m| self.err(key, m))?;
        Ok(Some(n))
    }

    /// A number in `[min, max]`, if present.
    pub fn float(&self, key: &str, min: f64, max: f64) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                if x.is_finite() && x >= min && x <= max {
                    Ok(Some(x))
                } else {
                    Err(self.err(key, format!("{x} is out of range; allowed: {min} to {max}")))
                }
            }
            Some(v) => Err(self.err(
                key,
                format!("expected a number from {min} to {max}, got {}", show(v)),
            )),
        }
    }

    /// A duration such as `"10ms"` (numbers are refused: the unit must be explicit).
    pub fn duration_ns(&self, key: &str) -> Result<Option<u64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => units::parse_duration_ns(s)
                .map(Some)
                .map_err(|m| self.err(key, m)),
            Some(v) => Err(self.err(
                key,
                format!(
                    "expected a duration with a unit such as \"10ms\", got {}",
                    show(v)
                ),
            )),
        }
    }

    /// A byte count: a whole number or a string with a unit (`"8MiB"`).
    pub fn bytes(&self, key: &str, min: u64, max: u64) -> Result<Option<u64>> {
        let n = match self.get(key) {
            None => return Ok(None),
            Some(Value::String(s)) => units::parse_bytes(s).map_err(|m| self.err(key, m))?,
            Some(v) => int_value(v).ok_or_else(|| {
                self.err(
                    key,
                    format!(
                        "expected a number of bytes or a size such as \"8MiB\", got {}",
                        show(v)
                    ),
                )
            })?,
        };
        check_range(n, min, max).map_err(|m| self.err(key, m))?;
        Ok(Some(n))
    }

    /// One of `allowed` strings, if present.
    pub fn choice(&self, key: &str, allowed: &[&str]) -> Result<Option<&'a str>> {
        match self.str(key)? {
            None => Ok(None),
            Some(s) if allowed.contains(&s) => Ok(Some(s)),
            Some(s) => Err(self.err(
                key,
                format!("unknown {key} {s:?}; allowed: {}", allowed.join(", ")),
            )),
        }
    }

    /// An array of tables (`[[link]]`), or a single table taken as a one-element array.
    pub fn tables(&self, key: &str) -> Result<Vec<Table<'a>>> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| Table::new(format!("{}[{i}]", self.field(key)), v))
                .collect(),
            Some(v @ Value::Object(_)) => Ok(vec![Table::new(self.field(key), v)?]),
            Some(v) => Err(self.err(
                key,
                format!(
                    "expected a table or an array of tables, got {}",
                    type_name(v)
                ),
            )),
        }
    }

    /// An array of whole numbers in `[min, max]`.
    pub fn ints(&self, key: &str, min: u64, max: u64) -> Result<Vec<u64>> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let path = format!("{}[{i}]", self.field(key));
                    let n = int_value(v).ok_or_else(|| {
                        ScenarioError::new(
                            &path,
                            format!("expected a whole number, got {}", show(v)),
                        )
                    })?;
                    check_range(n, min, max).map_err(|m| ScenarioError::new(&path, m))?;
                    Ok(n)
                })
                .collect(),
            Some(v) => Err(self.err(
                key,
                format!("expected an array of whole numbers, got {}", type_name(v)),
            )),
        }
    }
}

fn int_value(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            // 1e6 written as a float is fine if it is whole.
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1.8e19)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}

fn check_range(n: u64, min: u64, max: u64) -> std::result::Result<(), String> {
    if n < min || n > max {
        Err(format!("{n} is out of range; allowed: {min} to {max}"))
    } else {
        Ok(())
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}
