//! SACK blocks (RFC 2018) as carried in an ACK: up to three `[start, end)` ranges of segment
//! numbers, inline so a packet stays `Copy` and allocation-free.

/// Most SACK blocks an ACK carries (RFC 2018 §3 with timestamps; ns-2's `maxSackBlocks_`).
pub const MAX_SACK_BLOCKS: usize = 3;

/// The SACK blocks of one ACK, most recently changed first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u32, u32); MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    /// No blocks.
    pub const EMPTY: SackBlocks = SackBlocks {
        blocks: [(0, 0); MAX_SACK_BLOCKS],
        len: 0,
    };

    /// Appends `[start, end)` unless full or already present.
    pub fn push(&mut self, start: u32, end: u32) {
        if (self.len as usize) < MAX_SACK_BLOCKS && !self.iter().any(|b| b == (start, end)) {
            self.blocks[self.len as usize] = (start, end);
            self.len += 1;
        }
    }

    /// The blocks, in order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.blocks[..self.len as usize].iter().copied()
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
