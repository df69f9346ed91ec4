//! The hot path allocates nothing per packet: running three times longer must not allocate
//! more than a handful of extra blocks (queues and slabs reach their high-water mark early).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_for(duration: &str) -> (u64, u64) {
    let text = format!(
        r#"
[simulation]
duration = "{duration}"
[[link]]
from = "s"
to = "r1"
rate = "1Gbps"
delay = "1ms"
[[link]]
from = "r1"
to = "r2"
rate = "100Mbps"
delay = "8ms"
queue = {{ kind = "droptail", limit = 170 }}
[[link]]
from = "r2"
to = "d"
rate = "1Gbps"
delay = "1ms"
[[flow]]
name = "f"
src = "s"
dst = "d"
[flow.options]
min_rto = "200ms"
"#
    );
    let scenario = renolab_core::Scenario::from_toml_str(&text).unwrap();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let out = renolab_core::run(
        &scenario,
        &renolab_core::trace::TraceRequest::default(),
        false,
    )
    .unwrap();
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    (after - before, out.summary.packets_delivered)
}

#[test]
fn running_longer_allocates_nothing_per_packet() {
    let (short_allocs, short_pkts) = allocations_for("2s");
    let (long_allocs, long_pkts) = allocations_for("6s");
    assert!(
        long_pkts > short_pkts + 20_000,
        "{short_pkts} -> {long_pkts}"
    );
    let extra = long_allocs.saturating_sub(short_allocs);
    assert!(
        extra < 50,
        "{extra} more allocations for {} more packets",
        long_pkts - short_pkts
    );
}
