//! Where trace records go: packed little-endian records in a buffer that either stays in
//! memory (handed to Python as bytes) or streams to a file in fixed-size chunks, so memory
//! does not grow with the length of the run.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// Bytes buffered before a streaming sink writes them out.
const CHUNK: usize = 1 << 20;

/// One record being assembled: fields appended in order, little-endian, no padding.
pub struct Record {
    bytes: [u8; 96],
    len: usize,
}

impl Record {
    /// An empty record.
    #[inline]
    pub fn new() -> Self {
        Record {
            bytes: [0; 96],
            len: 0,
        }
    }
    #[inline]
    fn put<const N: usize>(mut self, b: [u8; N]) -> Self {
        self.bytes[self.len..self.len + N].copy_from_slice(&b);
        self.len += N;
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

impl Default for Record {
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

/// One trace: its field layout and its records.
#[derive(Debug)]
pub struct TraceSink {
    /// Field names and numpy dtype strings, in record order.
    pub fields: &'static [(&'static str, &'static str)],
    buf: Vec<u8>,
    file: Option<(PathBuf, BufWriter<File>)>,
    limit: u64,
    written: u64,
    /// The first error met (a write failure, or the in-memory limit exceeded); recording
    /// stops there.
    pub error: Option<String>,
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
                let f = File::create(&p)
                    .map_err(|e| format!("trace {name}: cannot create {}: {e}", p.display()))?;
                Some((p, BufWriter::new(f)))
            }
            None => None,
        };
        Ok(TraceSink {
            fields,
            buf: Vec::new(),
            file,
            limit,
            written: 0,
            error: None,
        })
    }

    /// Appends a record.
    #[inline]
    pub fn push(&mut self, r: Record) {
        // A record that does not match the layout would shift every later one.
        debug_assert_eq!(
            r.len,
            super::record_bytes(self.fields),
            "a record of the wrong layout"
        );
        if self.error.is_some() {
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
            Some((path, w)) => {
                if let Err(e) = w.write_all(&self.buf) {
                    self.error = Some(format!("cannot write {}: {e}", path.display()));
                }
                self.written += self.buf.len() as u64;
                self.buf.clear();
            }
            None if self.buf.len() as u64 > self.limit => {
                self.error = Some(format!(
                    "exceeds the in-memory trace limit of {} bytes; write traces to disk (an output directory) or raise the limit",
                    self.limit
                ));
                self.buf = Vec::new();
            }
            None => {}
        }
    }

    /// Finishes the trace.
    pub fn finish(mut self) -> Result<TraceData, String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match self.file.take() {
            Some((path, mut w)) => {
                w.write_all(&self.buf)
                    .and_then(|_| w.flush())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                Ok(TraceData::File(path))
            }
            None => Ok(TraceData::Bytes(self.buf)),
        }
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
            Ok(TraceData::Bytes(vec![
                1, 0, 0, 0, 0, 0, 0, 0, 2, 2, 1, 0, 0, 0, 0, 0, 0, 3
            ]))
        );
    }

    #[test]
    fn an_in_memory_trace_past_its_limit_is_an_error_not_a_crash() {
        let mut s = TraceSink::new("t", FIELDS, None, 100).unwrap();
        for i in 0..200_000u64 {
            s.push(Record::new().u64(i).u8(0));
        }
        assert!(s
            .finish()
            .unwrap_err()
            .contains("in-memory trace limit of 100 bytes"));
    }

    #[test]
    fn an_in_memory_limit_below_the_chunk_size_holds_too() {
        let mut s = TraceSink::new("t", FIELDS, None, 1000).unwrap();
        for i in 0..200u64 {
            s.push(Record::new().u64(i).u8(0));
        }
        assert!(
            s.finish().is_err(),
            "1800 bytes recorded under a 1000-byte limit"
        );
    }

    #[test]
    fn a_streaming_trace_writes_everything_to_its_file() {
        let path = std::env::temp_dir().join(format!("renolab-sink-{}.bin", std::process::id()));
        let mut s = TraceSink::new("t", FIELDS, Some(path.clone()), 100).unwrap();
        for i in 0..200_000u64 {
            s.push(Record::new().u64(i).u8(0));
        }
        assert_eq!(s.finish(), Ok(TraceData::File(path.clone())));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 200_000 * 9);
        std::fs::remove_file(path).ok();
    }
}
