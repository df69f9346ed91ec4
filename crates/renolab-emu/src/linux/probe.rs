//! The machine's own timing during an emulation, measured beside the driver: a thread at
//! the lowest real-time priority asks to be woken every millisecond and records how late
//! it was (the method of `cyclictest`).
//!
//! The driver's lateness mixes two causes: the emulator not keeping up, and the machine
//! not running it (a virtual CPU the hypervisor took away, a long non-preemptible kernel
//! path of other work). Only the second delays this thread, which does nothing but wake
//! up: a run whose probe woke late by a millisecond was disturbed by the machine, and its
//! kernel figures are not the path's (docs/emulation.md, "A busy machine").

use std::sync::atomic::{AtomicBool, Ordering};

use super::sys;
use crate::lateness::Lateness;

/// Time between wake-ups: a thousand samples a second, at a cost the driver does not feel.
const PERIOD_NS: u64 = 1_000_000;
/// Below the driver's priority ([`sys::DRIVER_PRIORITY`]), so it never delays the driver, and
/// above every fair-share task, so other processes delay it no more than they delay the driver.
pub const PROBE_PRIORITY: i32 = 1;

/// Wakes up every [`PERIOD_NS`] until `stop`, from `t0` (the emulation's origin), and
/// returns how late each wake-up was.
pub fn run(t0: u64, stop: &AtomicBool) -> Lateness {
    let mut late = Lateness::default();
    let mut due = t0 + PERIOD_NS;
    while !stop.load(Ordering::Relaxed) {
        sys::sleep_until(due);
        let now = sys::clock_ns();
        late.record(now.saturating_sub(due));
        // After a stall, the next wake-up is a period from now: one long delay is one sample,
        // not a burst of catch-up samples that were never late themselves.
        due += PERIOD_NS;
        if due <= now {
            due = now + PERIOD_NS;
        }
    }
    late
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_wakes_once_a_period_and_records_each_wake_up() {
        let stop = AtomicBool::new(false);
        let t0 = sys::clock_ns();
        let late = std::thread::scope(|s| {
            let probe = s.spawn(|| run(t0, &stop));
            std::thread::sleep(std::time::Duration::from_millis(30));
            stop.store(true, Ordering::Relaxed);
            probe.join().unwrap()
        });
        let summary = late.summary();
        // 30 ms of 1 ms periods, on a machine that may be busy: a wake-up at least, and no
        // more than one a period (a late one does not bring a burst of catch-up samples).
        assert!((1..=31).contains(&summary.count), "{summary:?}");
    }
}
