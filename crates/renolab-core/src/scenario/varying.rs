//! Links that change during a run: scheduled rates, delays and loss models
//! (`{ schedule = [["0s", VALUE], ["10s", VALUE], ...] }`), rates that follow a mahimahi
//! trace (`rate = { trace = "FILE" }`), and outages (`[[link]] outages`).
//!
//! A trace file is data from a stranger: only a regular file of at most
//! [`MAX_TRACE_BYTES`] is read, and any fault gets one line naming the field, the file and
//! the line.

use std::io::Read;
use std::sync::Arc;

use serde_json::{json, Value};

use super::reader::Table;
use super::{fmt_duration, fmt_rate, RateSpec, Result, ScenarioError, TraceSpec};
use crate::net::opportunities::DeliveryTrace;
use crate::net::Outages;
use crate::schedule::Schedule;
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// Most steps a schedule may have (and outages a link).
pub const MAX_SCHEDULE_STEPS: usize = 100_000;
/// Largest trace file read: 16 MiB, some two million opportunities (a 1 Gb/s link for 25
/// s); mahimahi's own traces are a few megabytes.
pub const MAX_TRACE_BYTES: u64 = 16 << 20;

impl RateSpec {
    /// A rate that never changes.
    pub fn fixed(rate: BitsPerSec) -> Self {
        RateSpec::Schedule(Schedule::constant(rate))
    }

    /// The rate if it never changes.
    pub fn constant(&self) -> Option<BitsPerSec> {
        match self {
            RateSpec::Schedule(s) if s.is_constant() => Some(*s.at(SimTime::ZERO)),
            _ => None,
        }
    }

    /// The rate that stands for the direction where one number must (RED's packet time,
    /// the wire's capacity in an error message): the rate at time 0, or a trace's mean.
    pub fn nominal(&self) -> BitsPerSec {
        match self {
            RateSpec::Schedule(s) => *s.at(SimTime::ZERO),
            RateSpec::Trace(t) => BitsPerSec((t.trace.mean_rate_bps().round() as u64).max(1)),
        }
    }

    /// The mean rate over `[0, end)`, bit/s (a trace's over its period).
    pub fn mean_bps(&self, end: SimTime) -> f64 {
        match self {
            RateSpec::Schedule(s) => s.mean_until(end, |r| r.0 as f64),
            RateSpec::Trace(t) => t.trace.mean_rate_bps(),
        }
    }

    /// The highest rate (a trace's mean: its peaks last a millisecond).
    pub fn peak_bps(&self) -> f64 {
        match self {
            RateSpec::Schedule(s) => s.values().map(|r| r.0 as f64).fold(0.0, f64::max),
            RateSpec::Trace(t) => t.trace.mean_rate_bps(),
        }
    }

    /// Memory the rate holds, bytes (a trace's opportunities).
    pub fn bytes(&self) -> usize {
        match self {
            RateSpec::Schedule(s) => s.steps().len() * 16,
            RateSpec::Trace(t) => t.trace.len() * 4,
        }
    }
}

/// A direction's `rate`: a string, `{ schedule = [...] }` or `{ trace = "FILE" }`; `None`
/// when absent.
pub(super) fn parse_rate(t: &Table<'_>) -> Result<Option<RateSpec>> {
    let Some(v) = t.get("rate") else {
        return Ok(None);
    };
    let field = t.field("rate");
    match v {
        Value::String(text) => Ok(Some(RateSpec::fixed(rate_text(&field, text)?))),
        Value::Object(_) => {
            let r = Table::new(field, v)?;
            r.only(&["schedule", "trace"])?;
            match (r.get("schedule"), r.str("trace")?) {
                (Some(_), None) => Ok(Some(RateSpec::Schedule(parse_schedule(
                    &r,
                    r#"["10s", "5Mbps"]"#,
                    |path, v| match v {
                        Value::String(text) => rate_text(path, text),
                        other => Err(ScenarioError::new(
                            path,
                            format!("expected a rate such as \"10Mbps\", got {}", show(other)),
                        )),
                    },
                )?))),
                (None, Some(path)) => Ok(Some(RateSpec::Trace(TraceSpec {
                    path: path.to_string(),
                    trace: read_trace(&r.field("trace"), path)?,
                }))),
                _ => Err(ScenarioError::new(
                    r.path(),
                    "give either `schedule = [[\"0s\", \"50Mbps\"], ...]` or `trace = \"FILE\"` (a mahimahi trace)",
                )),
            }
        }
        other => Err(ScenarioError::new(
            field,
            format!("expected a rate such as \"10Mbps\", got {other}"),
        )),
    }
}

fn rate_text(path: &str, text: &str) -> Result<BitsPerSec> {
    crate::units::parse_rate(text).map_err(|m| ScenarioError::new(path, m))
}

/// A direction's `delay`: a duration or `{ schedule = [...] }`; `None` when absent.
pub(super) fn parse_delay(t: &Table<'_>) -> Result<Option<Schedule<SimDuration>>> {
    match t.get("delay") {
        Some(v @ Value::Object(_)) => {
            let d = Table::new(t.field("delay"), v)?;
            d.only(&["schedule"])?;
            parse_schedule(&d, r#"["10s", "30ms"]"#, duration).map(Some)
        }
        _ => Ok(t
            .duration_ns("delay")?
            .map(|ns| Schedule::constant(SimDuration(ns)))),
    }
}

fn duration(path: &str, v: &Value) -> Result<SimDuration> {
    match v {
        Value::String(s) => crate::units::parse_duration_ns(s)
            .map(SimDuration)
            .map_err(|m| ScenarioError::new(path, m)),
        other => Err(ScenarioError::new(
            path,
            format!(
                "expected a duration with a unit such as \"10ms\", got {}",
                show(other)
            ),
        )),
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// The `schedule` of table `t`: `[[time, value], ...]`, the first at `"0s"`, instants
/// increasing; `value` reads each value at its path. `example` shows one step.
pub(super) fn parse_schedule<T>(
    t: &Table<'_>,
    example: &str,
    value: impl Fn(&str, &Value) -> Result<T>,
) -> Result<Schedule<T>> {
    let field = t.field("schedule");
    let items = match t.get("schedule") {
        Some(Value::Array(items)) => items,
        other => {
            return Err(ScenarioError::new(
                field,
                format!(
                    "expected an array of [time, value] steps such as [[\"0s\", ...], {example}], got {}",
                    other.map_or("nothing".to_string(), show)
                ),
            ))
        }
    };
    if items.is_empty() {
        return Err(ScenarioError::new(
            field,
            "is empty; give at least the value from the start, [\"0s\", ...]",
        ));
    }
    if items.len() > MAX_SCHEDULE_STEPS {
        return Err(ScenarioError::new(
            field,
            format!(
                "has {} steps; at most {MAX_SCHEDULE_STEPS} are allowed",
                items.len()
            ),
        ));
    }
    let mut steps = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("{field}[{i}]");
        let (at, v) = match item.as_array().map(Vec::as_slice) {
            Some([Value::String(at), v]) => (at, v),
            _ => {
                return Err(ScenarioError::new(
                    &path,
                    format!(
                        "expected a [time, value] step such as {example}, got {}",
                        show(item)
                    ),
                ))
            }
        };
        let at = crate::units::parse_duration_ns(at)
            .map(SimTime)
            .map_err(|m| ScenarioError::new(&path, m))?;
        match steps.last() {
            None if at != SimTime::ZERO => {
                return Err(ScenarioError::new(
                    &path,
                    format!(
                        "the first step is at {}; it must be at \"0s\" (the value from the start)",
                        fmt_duration(SimDuration(at.0))
                    ),
                ))
            }
            Some(&(before, _)) if at <= before => {
                return Err(ScenarioError::new(
                    &path,
                    format!(
                        "{} is not after the step before ({}); steps must be in increasing time",
                        fmt_duration(SimDuration(at.0)),
                        fmt_duration(SimDuration(before.0))
                    ),
                ))
            }
            _ => {}
        }
        steps.push((at, value(&format!("{path}[1]"), v)?));
    }
    Ok(Schedule::new(steps))
}

/// A link's `outages`: `[["12s", "12.2s"], ...]`, each ending after it starts, in order
/// and apart.
pub(super) fn parse_outages(t: &Table<'_>) -> Result<Outages> {
    let field = t.field("outages");
    let items = match t.get("outages") {
        None => return Ok(Outages::default()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ScenarioError::new(
                field,
                format!(
                "expected an array of [start, end] spans such as [[\"12s\", \"12.2s\"]], got {}",
                show(other)
            ),
            ))
        }
    };
    if items.len() > MAX_SCHEDULE_STEPS {
        return Err(ScenarioError::new(
            field,
            format!(
                "has {} outages; at most {MAX_SCHEDULE_STEPS} are allowed",
                items.len()
            ),
        ));
    }
    let mut spans: Vec<(SimTime, SimTime)> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("{field}[{i}]");
        let (start, end) = match item.as_array().map(Vec::as_slice) {
            Some([a, b]) => (duration(&path, a)?, duration(&path, b)?),
            _ => {
                return Err(ScenarioError::new(
                    &path,
                    format!(
                        "expected a [start, end] span such as [\"12s\", \"12.2s\"], got {}",
                        show(item)
                    ),
                ))
            }
        };
        if end <= start {
            return Err(ScenarioError::new(
                &path,
                format!(
                    "ends at {}, not after its start {}",
                    fmt_duration(end),
                    fmt_duration(start)
                ),
            ));
        }
        if let Some(&(_, before)) = spans.last() {
            if start.0 <= before.0 {
                return Err(ScenarioError::new(
                    &path,
                    format!(
                        "starts at {}, before the outage above ends ({}); list outages in order, apart (join touching ones)",
                        fmt_duration(start),
                        fmt_duration(SimDuration(before.0))
                    ),
                ));
            }
        }
        spans.push((SimTime(start.0), SimTime(end.0)));
    }
    Ok(Outages::new(spans))
}

/// Reads the mahimahi trace at `path` for the field `field`.
fn read_trace(field: &str, path: &str) -> Result<Arc<DeliveryTrace>> {
    read_trace_file(path).map_err(|m| ScenarioError::new(field, m))
}

/// Reads and checks the mahimahi trace at `path`: a regular file of at most
/// [`MAX_TRACE_BYTES`]. The error is one line naming the file, and the line at fault
/// (`FILE: line 3: ...`).
pub fn read_trace_file(path: &str) -> std::result::Result<Arc<DeliveryTrace>, String> {
    let text = read_data_file(
        path,
        MAX_TRACE_BYTES,
        "a trace is a text file of millisecond timestamps",
    )?;
    DeliveryTrace::parse(&text)
        .map(Arc::new)
        .map_err(|e| match e.line {
            Some(line) => format!("{path}: line {line}: {}", e.message),
            None => format!("{path}: {}", e.message),
        })
}

/// The bytes of the data file at `path` (a trace, a flow-size CDF): a regular file of at
/// most `max` bytes, else one line naming it, with `what_it_is` for a file that is not
/// regular. The file is data from a stranger: nothing else is done with it.
pub(super) fn read_data_file(
    path: &str,
    max: u64,
    what_it_is: &str,
) -> std::result::Result<Vec<u8>, String> {
    // `FILE: what`, as a compiler names a file: unquoted, so that the message's cutting of
    // long quoted values (`ScenarioError`'s `shorten`) keeps a path of up to 120 characters.
    let fail = |m: String| format!("{path}: {m}");
    let unreadable = |e: std::io::Error| fail(format!("cannot be read: {}", io_reason(&e)));
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(fail(format!("is not a regular file; {what_it_is}")));
    }
    let mib = max >> 20;
    if meta.len() > max {
        return Err(fail(format!(
            "is {} bytes; it may have at most {max} ({mib} MiB)",
            meta.len()
        )));
    }
    let mut text = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut text)
        .map_err(unreadable)?;
    if text.len() as u64 > max {
        return Err(fail(format!(
            "grew past {max} bytes ({mib} MiB) while being read"
        )));
    }
    Ok(text)
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// A rate as the resolved scenario writes it.
pub(super) fn rate_json(rate: &RateSpec) -> Value {
    match rate {
        RateSpec::Schedule(s) if s.is_constant() => json!(fmt_rate(*s.at(SimTime::ZERO))),
        RateSpec::Schedule(s) => schedule_json(s, |r| json!(fmt_rate(*r))),
        RateSpec::Trace(t) => json!({ "trace": t.path }),
    }
}

/// A delay as the resolved scenario writes it.
pub(super) fn delay_json(delay: &Schedule<SimDuration>) -> Value {
    if delay.is_constant() {
        json!(fmt_duration(*delay.at(SimTime::ZERO)))
    } else {
        schedule_json(delay, |d| json!(fmt_duration(*d)))
    }
}

/// `{ "schedule": [[time, value], ...] }`.
pub(super) fn schedule_json<T>(s: &Schedule<T>, value: impl Fn(&T) -> Value) -> Value {
    let steps: Vec<Value> = s
        .steps()
        .iter()
        .map(|(at, v)| json!([fmt_duration(SimDuration(at.0)), value(v)]))
        .collect();
    json!({ "schedule": steps })
}

/// A link's outages as the resolved scenario writes them.
pub(super) fn outages_json(outages: &Outages) -> Value {
    outages
        .spans()
        .iter()
        .map(|(a, b)| {
            json!([
                fmt_duration(SimDuration(a.0)),
                fmt_duration(SimDuration(b.0))
            ])
        })
        .collect()
}
