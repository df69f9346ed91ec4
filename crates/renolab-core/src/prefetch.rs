//! A hint to the CPU that a cache line will be needed soon: the core crate's only `unsafe`.
//!
//! Past a few hundred flows the state a run touches between two visits of the same packet,
//! queue or pipe no longer fits the L2 cache, and the first access of each waits for memory.
//! Where the code knows an address one step before it needs it (the next packet a link
//! hands on, the next slot a ring writes), asking for the line then hides that wait.

/// Asks the CPU to bring the cache line holding `at` into its caches. `at` may point
/// anywhere, even past the end of an allocation: it is never read through.
#[inline(always)]
pub(crate) fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never faults, whatever the address, and changes no memory;
        // SSE, which it needs, is part of every x86-64 CPU.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
