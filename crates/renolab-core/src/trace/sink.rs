//! Where trace records go: packed little-endian records in a buffer that either stays in
//! memory (handed to Python as bytes) or streams to a file in fixed-size chunks, so memory
//! does not grow with the length of the run.
//!
//! A trace that cannot go on (its disk is full, its file may grow no larger, it outgrew its
//! in-memory limit or memory itself ran short) stops recording and keeps every record before
//! the first one lost: the run goes on, and [`TraceSink::finish`] reports where the trace
//! was cut and why ([`TraceFailure`]). A trace is never worth the run's other results.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::time::SimTime;

/// Bytes buffered before a streaming sink writes them out.
const CHUNK: usize = 1 << 20;

/// One record being assembled: fields appended in order, little-endian, no padding, in
/// at most `N` bytes (96 holds every trace of fixed layout; the `cc` trace, whose columns
/// come from the controllers' declarations, takes a larger one).
pub struct RecordOf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

/// A record of a trace of fixed layout.
pub type Record = RecordOf<96>;

impl<const N: usize> RecordOf<N> {
    /// An empty record.
    #[inline]
    pub fn new() -> Self {
        RecordOf {
            bytes: [0; N],
            len: 0,
        }
    }
    #[inline]
    fn put<const B: usize>(mut self, b: [u8; B]) -> Self {
        self.bytes[self.len..self.len + B].copy_from_slice(&b);
        self.len += B;
        self
    }
    /// Appends a `u8`.
    #[inline]
    pub fn u8(self, v: u8) -> Self {
        self.put([v])
    }
    /// Appends a `u32`.
    #[inline]
    pub fn u32(self, v: u32) -> Self {
        self.put(v.to_le_bytes())
    }
    /// Appends a `u64`.
    #[inline]
    pub fn u64(self, v: u64) -> Self {
        self.put(v.to_le_bytes())
    }
    /// Appends an `f64`.
    #[inline]
    pub fn f64(self, v: f64) -> Self {
        self.put(v.to_le_bytes())
    }
}

impl<const N: usize> Default for RecordOf<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// Where a finished trace is.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceData {
    /// The records, in memory.
    Bytes(Vec<u8>),
    /// The records, in this file.
    File(PathBuf),
}

/// Why a trace (or the pcap files) stopped before the end of the run, and where: it holds
/// every record before `truncated_at`, none from then on.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceFailure {
    /// The trace's name (`"pcap"` for the pcap files).
    pub name: &'static str,
    /// Time of the first record lost.
    pub truncated_at: SimTime,
    /// What went wrong, e.g. `cannot write DIR/.hops.bin: No space left on device`.
    pub error: String,
}

/// Creates `path` as a new file, removing whatever had that name first: a symbolic link
/// planted there is removed, never followed (output directories are shared with whoever
/// could write into them).
pub fn create_fresh(path: &Path) -> io::Result<File> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// One trace: its field layout and its records.
#[derive(Debug)]
pub struct TraceSink {
    /// Field names and numpy dtype strings, in record order.
    pub fields: &'static [(&'static str, &'static str)],
    record_len: usize,
    buf: Vec<u8>,
    file: Option<(PathBuf, File)>,
    limit: u64,
    /// Bytes safely in the file.
    written: u64,
    /// Why recording stopped and the time of the first record lost; nothing is recorded
    /// after that.
    stopped: Option<(SimTime, String)>,
}

impl TraceSink {
    /// A sink keeping at most `limit` bytes in memory, or streaming to `path` if given.
    pub fn new(
        name: &str,
        fields: &'static [(&'static str, &'static str)],
        path: Option<PathBuf>,
        limit: u64,
    ) -> Result<Self, String> {
        let file = match path {
            Some(p) => {
                let f = create_fresh(&p)
                    .map_err(|e| format!("trace {name}: cannot create {}: {e}", p.display()))?;
                Some((p, f))
            }
            None => None,
        };
        Ok(TraceSink {
            fields,
            record_len: super::record_bytes(fields),
            buf: Vec::new(),
            file,
            limit,
            written: 0,
            stopped: None,
        })
    }

    /// Appends a record.
    #[inline]
    pub fn push<const N: usize>(&mut self, r: RecordOf<N>) {
        // A record that does not match the layout would shift every later one.
        debug_assert_eq!(r.len, self.record_len, "a record of the wrong layout");
        if self.stopped.is_some() {
            return;
        }
        if self.buf.capacity() - self.buf.len() < r.len && self.buf.try_reserve(r.len).is_err() {
            // Memory ran short: the trace, not the process, gives way.
            let at = record_time(&r.bytes);
            self.stop(at, "memory ran short while recording it".to_string());
            return;
        }
        self.buf.extend_from_slice(&r.bytes[..r.len]);
        // In memory the limit holds at every record, not only at chunk boundaries (a limit
        // below the chunk size was never enforced).
        if self.buf.len() >= CHUNK || (self.file.is_none() && self.buf.len() as u64 > self.limit) {
            self.spill();
        }
    }

    fn spill(&mut self) {
        match &mut self.file {
            Some((path, f)) => {
                if let Err(e) = f.write_all(&self.buf) {
                    let message = format!("cannot write {}: {e}", path.display());
                    // Keep the records written whole; a partial chunk would end in half a
                    // record (set_len frees the space on a full disk).
                    let _ = f.set_len(self.written);
                    let at = record_time(&self.buf);
                    self.stop(at, message);
                    return;
                }
                self.written += self.buf.len() as u64;
                self.buf.clear();
            }
            None if self.buf.len() as u64 > self.limit => {
                let keep = (self.limit as usize / self.record_len) * self.record_len;
                let at = record_time(&self.buf[keep..]);
                self.buf.truncate(keep);
                self.stop(
                    at,
                    format!(
                        "exceeds the in-memory trace limit of {} bytes; write traces to disk (an output directory) or raise the limit",
                        self.limit
                    ),
                );
            }
            None => {}
        }
    }

    fn stop(&mut self, at: SimTime, error: String) {
        if self.file.is_some() {
            self.buf = Vec::new();
        }
        self.stopped = Some((at, error));
    }

    /// Finishes the trace: where its records are and, if it stopped early, where and why.
    pub fn finish(mut self) -> (TraceData, Option<(SimTime, String)>) {
        if self.stopped.is_none() {
            if let Some((path, f)) = &mut self.file {
                if let Err(e) = f.write_all(&self.buf).and_then(|_| f.flush()) {
                    let message = format!("cannot write {}: {e}", path.display());
                    let _ = f.set_len(self.written);
                    let at = record_time(&self.buf);
                    self.stopped = Some((at, message));
                }
                self.buf = Vec::new();
            }
        }
        let data = match self.file.take() {
            Some((path, _)) => TraceData::File(path),
            None => TraceData::Bytes(self.buf),
        };
        (data, self.stopped)
    }

    /// [`Self::finish`], adding the trace to `traces` and where and why it stopped early, if
    /// it did, to `failures`.
    pub fn finish_into(
        self,
        name: &'static str,
        traces: &mut Vec<super::FinishedTrace>,
        failures: &mut Vec<TraceFailure>,
    ) {
        let fields = self.fields;
        let (data, stopped) = self.finish();
        traces.push((name, fields, data));
        if let Some((truncated_at, error)) = stopped {
            failures.push(TraceFailure {
                name,
                truncated_at,
                error: format!("trace {name}: {error}"),
            });
        }
    }
}

/// The time of the first record in `records` (every layout starts with `time_ns`, a `u64`).
fn record_time(records: &[u8]) -> SimTime {
    match records.get(..8) {
        Some(b) => SimTime(u64::from_le_bytes(b.try_into().expect("8 bytes"))),
        None => SimTime(u64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[(&str, &str)] = &[("a", "<u8"), ("b", "u1")];

    #[test]
    fn records_are_packed_little_endian() {
        let mut s = TraceSink::new("t", FIELDS, None, 1 << 20).unwrap();
        s.push(Record::new().u64(1).u8(2));
        s.push(Record::new().u64(258).u8(3));
        assert_eq!(
            s.finish(),
            (
                TraceData::Bytes(vec![1, 0, 0, 0, 0, 0, 0, 0, 2, 2, 1, 0, 0, 0, 0, 0, 0, 3]),
                None
            )
        );
    }

    #[test]
    fn an_in_memory_trace_past_its_limit_keeps_what_fits_and_says_where_it_stopped() {
        let mut s = TraceSink::new("t", FIELDS, None, 100).unwrap();
        for i in 0..200_000u64 {
            s.push(Record::new().u64(i).u8(0));
        }
        let (data, stopped) = s.finish();
        // 100 bytes hold 11 records of 9 bytes: records 0 to 10; the first lost is 11.
        let kept: Vec<u8> = (0..11u64)
            .flat_map(|i| i.to_le_bytes().into_iter().chain([0]))
            .collect();
        assert_eq!(data, TraceData::Bytes(kept));
        let (at, error) = stopped.expect("stopped");
        assert_eq!(at, SimTime(11));
        assert!(
            error.contains("in-memory trace limit of 100 bytes"),
            "{error}"
        );
    }

    #[test]
    fn an_in_memory_limit_below_the_chunk_size_holds_too() {
        let mut s = TraceSink::new("t", FIELDS, None, 1000).unwrap();
        for i in 0..200u64 {
            s.push(Record::new().u64(i).u8(0));
        }
        let (data, stopped) = s.finish();
        assert!(
            stopped.is_some(),
            "1800 bytes recorded under a 1000-byte limit"
        );
        match data {
            TraceData::Bytes(b) => assert_eq!(b.len(), 999, "111 whole records"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_streaming_trace_writes_everything_to_its_file() {
        let path = std::env::temp_dir().join(format!("renolab-sink-{}.bin", std::process::id()));
        let mut s = TraceSink::new("t", FIELDS, Some(path.clone()), 100).unwrap();
        for i in 0..200_000u64 {
            s.push(Record::new().u64(i).u8(0));
        }
        assert_eq!(s.finish(), (TraceData::File(path.clone()), None));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 200_000 * 9);
        std::fs::remove_file(path).ok();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_trace_that_cannot_be_written_keeps_its_whole_chunks_and_says_where_it_stopped() {
        // /dev/full fails every write with ENOSPC, as a full disk does.
        let mut s = TraceSink {
            file: Some((
                PathBuf::from("/dev/full"),
                File::options().write(true).open("/dev/full").unwrap(),
            )),
            ..TraceSink::new("t", FIELDS, None, u64::MAX).unwrap()
        };
        for i in 0..200_000u64 {
            s.push(Record::new().u64(i).u8(0));
        }
        let (data, stopped) = s.finish();
        assert_eq!(data, TraceData::File(PathBuf::from("/dev/full")));
        let (at, error) = stopped.expect("stopped");
        assert_eq!(at, SimTime(0), "the first chunk failed: nothing was kept");
        assert!(error.contains("No space left on device"), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_symbolic_link_is_replaced_not_followed() {
        let dir = std::env::temp_dir().join(format!("renolab-sink-link-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("target");
        std::fs::write(&target, b"precious").unwrap();
        let link = dir.join(".t.bin");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut s = TraceSink::new("t", FIELDS, Some(link.clone()), 100).unwrap();
        s.push(Record::new().u64(1).u8(0));
        assert_eq!(s.finish().1, None);
        assert_eq!(std::fs::read(&target).unwrap(), b"precious");
        assert_eq!(std::fs::metadata(&link).unwrap().len(), 9);
        assert!(!std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        std::fs::remove_dir_all(dir).ok();
    }
}
