//! The discrete-event scheduler.
//!
//! Events are ordered by `(time, seq)` where `seq` is a global insertion counter: two events
//! at the same nanosecond fire in the order they were scheduled, so runs are deterministic.
//!
//! The heap is kept small on purpose: each link direction has at most one pending
//! transmission-end event and one pending arrival event, and each TCP endpoint at most one
//! live timer event (see [`TimerSlot`]), so it holds O(links + flows) entries however many
//! packets are in flight.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::time::SimTime;

/// What happens when an event fires. Small and `Copy`: the heap moves these around.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// A link direction finished serialising the packet at the head of its wire.
    TxEnd {
        /// Index of the link direction.
        dir: u32,
    },
    /// The packet at the head of a link direction's propagation pipe reached the far end.
    Arrive {
        /// Index of the link direction.
        dir: u32,
    },
    /// A flow's application starts.
    FlowStart {
        /// Index of the flow.
        flow: u32,
    },
    /// A flow's application stops offering data.
    FlowStop {
        /// Index of the flow.
        flow: u32,
    },
    /// A constant-bit-rate source may have a packet due.
    CbrSend {
        /// Index of the flow.
        flow: u32,
    },
    /// The timer of a flow's sender (RTO) may be due.
    SenderTimer {
        /// Index of the flow.
        flow: u32,
    },
    /// The timer of a flow's receiver (delayed ACK) may be due.
    ReceiverTimer {
        /// Index of the flow.
        flow: u32,
    },
    /// The simulation ends.
    Stop,
}

/// A heap entry: the event and its key `time << 64 | insertion sequence`, so that one `u128`
/// comparison orders by time and breaks ties by insertion order.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// A min-heap of events keyed by `(time, insertion order)`.
#[derive(Debug, Default)]
pub struct Scheduler {
    heap: BinaryHeap<Reverse<Entry>>,
    next_seq: u64,
    now: SimTime,
    fired: u64,
}

impl Scheduler {
    /// An empty scheduler at t = 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The time of the event being processed (or of the last one).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Number of events popped so far.
    pub fn events_fired(&self) -> u64 {
        self.fired
    }

    /// Number of pending entries, stale timer entries included.
    pub fn pending(&self) -> usize {
        self.heap.len()
    }

    /// Schedules `event` at `at`. Scheduling in the past is a logic error.
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        debug_assert!(at >= self.now, "event {event:?} scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        let key = ((at.0 as u128) << 64) | seq as u128;
        self.heap.push(Reverse(Entry { key, event }));
    }

    /// Pops the earliest event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let Reverse(Entry { key, event }) = self.heap.pop()?;
        let at = SimTime((key >> 64) as u64);
        self.now = at;
        self.fired += 1;
        Some((at, event))
    }
}

/// Tracks the one live heap entry of an endpoint's timer, for lazy cancellation.
///
/// An endpoint's deadline moves on nearly every ACK (the RTO restarts). Pushing a heap entry
/// each time would make the heap grow with the packet rate, so instead: a new entry is pushed
/// only when the deadline moves *earlier* than the entry already scheduled. When an entry
/// fires, it is live only if its time equals `scheduled`; the engine then asks the endpoint
/// for its current deadline and re-arms if that is still in the future.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerSlot {
    scheduled: Option<SimTime>,
}

impl TimerSlot {
    /// Makes sure an event fires no later than `deadline`. Returns the time at which a new
    /// heap entry must be pushed, if one is needed.
    pub fn arm(&mut self, deadline: Option<SimTime>) -> Option<SimTime> {
        let deadline = deadline?;
        match self.scheduled {
            Some(at) if at <= deadline => None,
            _ => {
                self.scheduled = Some(deadline);
                Some(deadline)
            }
        }
    }

    /// Called when a timer entry scheduled at `at` fires: true if it is the live entry
    /// (it is then consumed), false if it is stale and must be ignored.
    pub fn fire(&mut self, at: SimTime) -> bool {
        if self.scheduled == Some(at) {
            self.scheduled = None;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simultaneous_events_fire_in_insertion_order() {
        let mut s = Scheduler::new();
        s.schedule(SimTime(5), Event::FlowStart { flow: 2 });
        s.schedule(SimTime(5), Event::FlowStart { flow: 0 });
        s.schedule(SimTime(1), Event::Stop);
        s.schedule(SimTime(5), Event::FlowStart { flow: 1 });
        let order: Vec<Event> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            vec![
                Event::Stop,
                Event::FlowStart { flow: 2 },
                Event::FlowStart { flow: 0 },
                Event::FlowStart { flow: 1 }
            ]
        );
        assert_eq!(s.now(), SimTime(5));
        assert_eq!(s.events_fired(), 4);
    }

    #[test]
    fn a_later_deadline_reuses_the_pending_timer_entry() {
        let mut slot = TimerSlot::default();
        assert_eq!(slot.arm(Some(SimTime(100))), Some(SimTime(100)));
        assert_eq!(slot.arm(Some(SimTime(150))), None, "later: no new entry");
        assert_eq!(
            slot.arm(Some(SimTime(50))),
            Some(SimTime(50)),
            "earlier: new entry"
        );
        assert!(!slot.fire(SimTime(100)), "the 100 entry is stale now");
        assert!(slot.fire(SimTime(50)));
        assert!(!slot.fire(SimTime(50)), "consumed");
    }
}
