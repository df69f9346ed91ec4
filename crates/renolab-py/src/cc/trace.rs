//! The `cc` trace of Python controllers: the attributes a class lists in `trace = (...)`,
//! one column each, a row whenever one of a controller's values changed after a call.
//!
//! The layout is decided before the run (the union of the names of every controller, in
//! flow order), so one table holds every flow: a row carries NaN in the columns of other
//! controllers, as the built-ins' `cc` trace leaves empty the values a controller lacks.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyString;

use renolab_core::time::SimTime;

/// The `cc` trace of a run: its columns and its packed records.
#[derive(Default)]
pub struct CcTrace {
    /// The traced names, in order of first appearance.
    pub columns: Vec<String>,
    /// Little-endian records: time_ns u64, flow u32, then one f64 per column.
    pub records: Vec<u8>,
}

impl CcTrace {
    /// The record layout, as the core reports its traces'.
    pub fn fields(&self) -> Vec<(String, String)> {
        let mut fields = vec![
            ("time_ns".to_string(), "<u8".to_string()),
            ("flow".to_string(), "<u4".to_string()),
        ];
        fields.extend(self.columns.iter().map(|c| (c.clone(), "<f8".to_string())));
        fields
    }

    /// The records in time order. All are recorded in the order of the calls, but for
    /// `on_start`, which every controller gets before the run, at its flow's start: a
    /// stable sort by time puts those in their place.
    pub fn into_records(self) -> Vec<u8> {
        let width = 12 + 8 * self.columns.len();
        let mut rows: Vec<&[u8]> = self.records.chunks_exact(width).collect();
        rows.sort_by_key(|r| u64::from_le_bytes(r[..8].try_into().expect("8 bytes")));
        rows.concat()
    }

    /// The column of `name`, added if new.
    pub fn column(&mut self, name: &str) -> usize {
        match self.columns.iter().position(|c| c == name) {
            Some(i) => i,
            None => {
                self.columns.push(name.to_string());
                self.columns.len() - 1
            }
        }
    }
}

/// Why a traced attribute could not be recorded.
pub enum TraceError {
    /// Reading it raised.
    Unreadable(String, PyErr),
    /// It is not a number (or None); its repr.
    NotANumber(String, String),
}

/// What one controller traces: its attributes, their columns, their last values.
pub struct Traced {
    names: Vec<Py<PyString>>,
    columns: Vec<usize>,
    /// Bits of the values last recorded (`None` before the first row).
    last: Vec<Option<u64>>,
    values: Vec<f64>,
    trace: Arc<Mutex<CcTrace>>,
}

impl Traced {
    /// Tracing `names` into `trace`.
    pub fn new(py: Python<'_>, names: &[String], trace: &Arc<Mutex<CcTrace>>) -> Self {
        let mut t = trace.lock().unwrap_or_else(|p| p.into_inner());
        Traced {
            names: names
                .iter()
                .map(|n| PyString::intern(py, n).unbind())
                .collect(),
            columns: names.iter().map(|n| t.column(n)).collect(),
            last: vec![None; names.len()],
            values: vec![f64::NAN; names.len()],
            trace: trace.clone(),
        }
    }

    /// Reads the traced attributes of `object` and records a row for `flow` at `now` if
    /// one changed.
    pub fn record(
        &mut self,
        py: Python<'_>,
        object: &Py<PyAny>,
        flow: u32,
        now: SimTime,
    ) -> Result<(), TraceError> {
        let object = object.bind(py);
        let mut changed = false;
        for (i, name) in self.names.iter().enumerate() {
            let name = name.bind(py);
            let value = match object.getattr(name) {
                Ok(v) if v.is_none() => f64::NAN,
                Ok(v) => v.extract::<f64>().map_err(|_| {
                    let shown = v.repr().map(|r| r.to_string()).unwrap_or_default();
                    TraceError::NotANumber(name.to_string(), shown)
                })?,
                Err(err) => return Err(TraceError::Unreadable(name.to_string(), err)),
            };
            let bits = Some(value.to_bits());
            changed |= bits != self.last[i];
            self.last[i] = bits;
            self.values[i] = value;
        }
        if changed {
            let mut trace = self.trace.lock().unwrap_or_else(|p| p.into_inner());
            let mut row = vec![f64::NAN; trace.columns.len()];
            for (&column, &value) in self.columns.iter().zip(&self.values) {
                row[column] = value;
            }
            trace.records.extend_from_slice(&now.0.to_le_bytes());
            trace.records.extend_from_slice(&flow.to_le_bytes());
            for value in row {
                trace.records.extend_from_slice(&value.to_le_bytes());
            }
        }
        Ok(())
    }
}

/// Bytes of a field of numpy dtype `dtype` (`u1`, `<u4`, `<u8`, `<f8`).
fn dtype_bytes(dtype: &str) -> usize {
    match dtype.trim_start_matches(['<', '>', '|']) {
        "u1" => 1,
        "u4" => 4,
        _ => 8,
    }
}

/// The bytes a field of `dtype` holds when a record has no value for it: NaN for a float,
/// the "none" code 255 for a one-byte code (as the core's `cc` trace marks a controller
/// without modes), 0 otherwise.
fn missing(dtype: &str) -> Vec<u8> {
    match dtype.trim_start_matches(['<', '>', '|']) {
        "f8" => f64::NAN.to_le_bytes().to_vec(),
        "u1" => vec![u8::MAX],
        other => vec![0; dtype_bytes(other)],
    }
}

/// Merges two packed traces of one kind recorded apart (the core's `cc` rows, of built-in
/// controllers, and the Python controllers'), in time order (`time_ns` first in both; on a
/// tie the first's record first). The layout is the first's fields, then the second's that
/// the first lacks; a value of the second goes into the first's field of the same name and
/// type, and a record without a value for a field gets [`missing`].
pub fn merge_records(
    first: (&[(String, String)], &[u8]),
    second: (&[(String, String)], &[u8]),
) -> (Vec<(String, String)>, Vec<u8>) {
    let mut fields: Vec<(String, String)> = first.0.to_vec();
    for field in second.0 {
        if !fields.iter().any(|(name, _)| *name == field.0) {
            fields.push(field.clone());
        }
    }
    // Per input: its record size, and for each output field where its value is (offset).
    let plan = |layout: &[(String, String)]| -> (usize, Vec<Option<usize>>) {
        let mut offsets = Vec::new();
        let mut at = 0;
        for (_, dtype) in layout {
            offsets.push(at);
            at += dtype_bytes(dtype);
        }
        let sources = fields
            .iter()
            .map(|(name, dtype)| {
                layout
                    .iter()
                    .position(|(n, d)| n == name && d == dtype)
                    .map(|i| offsets[i])
            })
            .collect();
        (at, sources)
    };
    let inputs = [first, second].map(|(layout, records)| {
        let (size, sources) = plan(layout);
        (
            records.chunks_exact(size.max(1)).collect::<Vec<_>>(),
            sources,
        )
    });
    let time = |record: &[u8]| u64::from_le_bytes(record[..8].try_into().expect("8 bytes"));
    let mut rows: Vec<(u64, usize, &[u8])> = Vec::new();
    for (which, (records, _)) in inputs.iter().enumerate() {
        rows.extend(records.iter().map(|r| (time(r), which, *r)));
    }
    rows.sort_by_key(|&(t, which, _)| (t, which)); // stable: each input keeps its order
    let mut out = Vec::new();
    for (_, which, record) in rows {
        for ((_, dtype), source) in fields.iter().zip(&inputs[which].1) {
            match source {
                Some(at) => out.extend_from_slice(&record[*at..*at + dtype_bytes(dtype)]),
                None => out.extend_from_slice(&missing(dtype)),
            }
        }
    }
    (fields, out)
}
