//! How much more memory this process may take, and how much it holds: what a run's memory
//! is checked against before it starts and watched against while it goes (Linux: `/proc`
//! and the memory cgroup; elsewhere unknown, and nothing is checked).
//!
//! The core knows no machine; this binding measures it. Three things bound what a process
//! can still allocate, and the smallest counts: the kernel's estimate of memory available
//! without swapping (`MemAvailable`), the memory cgroup's limit less its usage (a container,
//! a SLURM job), and the address-space limit (`ulimit -v`) less the address space in use
//! (past it an allocation fails, and a Rust allocation failure aborts the process).

use pyo3::prelude::*;

/// Memory this process may still allocate, bytes; `None` where it cannot be measured.
pub fn available() -> Option<u64> {
    [mem_available(), cgroup_headroom(), address_space_headroom()]
        .into_iter()
        .flatten()
        .min()
}

/// Resident memory of this process, bytes.
pub fn resident() -> Option<u64> {
    status_kib("VmRSS:").map(|k| k * 1024)
}

/// A field of `/proc/self/status` given in kB.
fn status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

fn mem_available() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line["MemAvailable:".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// A limit at or above this is no limit (cgroup v1 writes "unlimited" as 2^63 rounded down
/// to a page).
const UNLIMITED: u64 = 1 << 60;

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The memory cgroup's limit less its usage (v2 `memory.max`, v1 `memory.limit_in_bytes`),
/// read where `/proc/self/cgroup` says this process is, else at the mount's root (a
/// container sees its own cgroup there).
fn cgroup_headroom() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut candidates = Vec::new();
    for line in groups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        if controllers.is_empty() {
            candidates.push((
                format!("/sys/fs/cgroup{path}"),
                "memory.max",
                "memory.current",
            ));
        } else if controllers.split(',').any(|c| c == "memory") {
            candidates.push((
                format!("/sys/fs/cgroup/memory{path}"),
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            ));
            candidates.push((
                "/sys/fs/cgroup/memory".to_string(),
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            ));
        }
    }
    candidates.into_iter().find_map(|(dir, limit, usage)| {
        let limit = read_u64(&format!("{}/{limit}", dir.trim_end_matches('/')))?;
        let usage = read_u64(&format!("{}/{usage}", dir.trim_end_matches('/')))?;
        (limit < UNLIMITED).then(|| limit.saturating_sub(usage))
    })
}

/// The address-space limit (`RLIMIT_AS`, from `/proc/self/limits`) less `VmSize`.
fn address_space_headroom() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft: u64 = line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()?; // "unlimited" does not parse: no limit
    let size = status_kib("VmSize:")? * 1024;
    Some(soft.saturating_sub(size))
}

/// A run stops when memory runs shorter than this: what the engine and Python need to
/// collect and hand over its results.
pub const RESERVE: u64 = 64 << 20;

/// What the run watches its memory against, every look ([`crate::sim`]'s monitor).
pub struct Guard {
    /// Resident memory when the run started.
    start: u64,
    /// Most the run may add: `simulation.max_memory`, or its default (the smaller of 8 GiB
    /// and the memory available when the run started).
    limit: u64,
    /// The limit's name in messages.
    limit_name: String,
    /// The run keeps traces in memory: handing them to Python copies them, so what the run
    /// took counts twice.
    in_memory_traces: bool,
}

impl Guard {
    /// A guard allowing the run `limit` bytes more than it holds now.
    pub fn new(limit: u64, limit_name: String, in_memory_traces: bool) -> Option<Self> {
        Some(Guard {
            start: resident()?,
            limit,
            limit_name,
            in_memory_traces,
        })
    }

    /// Why the run must stop now, if it must.
    pub fn check(&self) -> Option<String> {
        let grown = resident()?.saturating_sub(self.start);
        let copies = if self.in_memory_traces { 2 } else { 1 };
        if grown.saturating_mul(copies) > self.limit {
            let what = if copies == 2 {
                " (twice that to hand its in-memory traces to Python)"
            } else {
                ""
            };
            return Some(format!(
                "the run took {} of memory{what}, more than {}",
                human(grown),
                self.limit_name
            ));
        }
        let needed = RESERVE + (copies - 1) * grown;
        match available() {
            Some(left) if left < needed => Some(format!(
                "memory ran short: {} left available to this process",
                human(left)
            )),
            _ => None,
        }
    }
}

/// Bytes in binary units, one decimal.
pub fn human(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= GIB {
        format!("{:.1} GiB", b / GIB)
    } else {
        format!("{:.1} MiB", b / MIB)
    }
}

/// Memory this process may still allocate (bytes), or None where it cannot be measured.
#[pyfunction]
fn available_memory() -> Option<u64> {
    available()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(available_memory, m)?)
}
