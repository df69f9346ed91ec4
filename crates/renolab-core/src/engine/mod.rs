//! The discrete-event scheduler.
//!
//! Events are ordered by `(time, seq)` where `seq` is a global insertion counter: two events
//! at the same nanosecond fire in the order they were scheduled, so runs are deterministic.
//!
//! The heap is kept small on purpose: each link direction has at most one pending
//! transmission-end event and one pending arrival event, each shared medium and each TCP
//! endpoint at most one live timer event (see [`TimerSlot`]), so it holds O(links + media +
//! flows) entries however many packets are in flight.

use crate::time::SimTime;

mod calendar;
mod near;

/// What happens when an event fires. Small and `Copy`: the heap moves these around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
        /// The flow's slot in the simulation (its index, for a scenario's flow).
        flow: u32,
    },
    /// The timer of a flow's receiver (delayed ACK) may be due.
    ReceiverTimer {
        /// The flow's slot in the simulation (its index, for a scenario's flow).
        flow: u32,
    },
    /// The simulation ends.
    Stop,
    /// A shared medium's next step may be due: a contention won, or the end of a frame on
    /// the air (see [`crate::net::wifi`]).
    Medium {
        /// Index of the medium.
        medium: u32,
    },
    /// The next flow of a workload arrives.
    WorkloadArrival {
        /// Index of the workload.
        workload: u32,
    },
}

/// Bits of a heap key that hold the event (its kind and index).
const EVENT_BITS: u32 = 24;
/// Bits of the event code that hold the kind: ten kinds need four. (Decoding nine kinds
/// costs a wired run about three instructions an event more than eight did, 0.7 % on the
/// reference dumbbell (callgrind); keeping three bits with [`Event::Stop`] and
/// [`Event::Medium`] sharing a code, tried, cost more. A workload's arrivals as a tenth kind
/// cost 0.37 %; sharing [`Event::Stop`]'s code, tried, 1.3 %: the guard kept the decoding
/// from folding into the event loop's dispatch.)
const KIND_BITS: u32 = 4;
/// Bits of the event code that hold the link direction, medium or flow index.
const INDEX_BITS: u32 = EVENT_BITS - KIND_BITS;
/// Insertion numbers wrap at 2^40; [`Scheduler::renumber`] then compacts them.
const SEQ_LIMIT: u64 = 1 << (64 - EVENT_BITS);

/// Largest link-direction, medium or flow index an event can carry (1,048,575, above the
/// scenario caps of 200,000 directions, 100,000 media and 1,000,000 flows, which assert
/// it).
pub const MAX_EVENT_INDEX: u32 = (1 << INDEX_BITS) - 1;

impl Event {
    /// The event as 24 bits: kind in the top 4, index below. The code never decides the
    /// order of two events (their insertion numbers do); the kinds are numbered in the order
    /// the variants are declared, so that encoding and decoding compile to next to nothing.
    #[inline]
    fn encode(self) -> u64 {
        let (kind, index) = match self {
            Event::TxEnd { dir } => (0, dir),
            Event::Arrive { dir } => (1, dir),
            Event::FlowStart { flow } => (2, flow),
            Event::FlowStop { flow } => (3, flow),
            Event::CbrSend { flow } => (4, flow),
            Event::SenderTimer { flow } => (5, flow),
            Event::ReceiverTimer { flow } => (6, flow),
            Event::Stop => (7, 0),
            Event::Medium { medium } => (8, medium),
            Event::WorkloadArrival { workload } => (9, workload),
        };
        debug_assert!(index <= MAX_EVENT_INDEX);
        ((kind as u64) << INDEX_BITS) | index as u64
    }

    #[inline]
    fn decode(code: u64) -> Event {
        let index = (code & MAX_EVENT_INDEX as u64) as u32;
        match code >> INDEX_BITS {
            0 => Event::TxEnd { dir: index },
            1 => Event::Arrive { dir: index },
            2 => Event::FlowStart { flow: index },
            3 => Event::FlowStop { flow: index },
            4 => Event::CbrSend { flow: index },
            5 => Event::SenderTimer { flow: index },
            6 => Event::ReceiverTimer { flow: index },
            7 => Event::Stop,
            8 => Event::Medium { medium: index },
            _ => Event::WorkloadArrival { workload: index },
        }
    }
}

/// The insertion number of an event that fires before every other event of its instant
/// (ties among such events go by their event code, so by link direction for
/// [`Event::TxEnd`]): a trace-driven link's delivery opportunity, which a packet arriving at
/// that same instant may not use (see [`crate::net::opportunities`]). Ordinary insertion
/// numbers start at 1.
pub const FIRST_AT_INSTANT: u64 = 0;

/// Pending entries at which the scheduler puts a calendar in front of its heap (see
/// [`calendar`]). What pays is keeping the far future out of the heap: on the reference
/// dumbbell (26 entries on average) half the entries are timers seconds ahead, and with them
/// in the calendar each pop and push sifts through fewer levels (callgrind: 256 here, as
/// first tuned, 1,309.7 M instructions; 16, 1,271.0 M; 8 the same, one flow 0.3 % fewer;
/// 100 flows 483.3 M, 449.6 M). One flow (9 entries) stays below it. Past it, too, each pop
/// of a lone heap would climb more levels and leave L1 (10,000 entries at 1000 flows: 13
/// levels).
const CALENDAR_AT: usize = 16;
/// The layout is looked at once every this many insertion numbers, in
/// [`Scheduler::reserve`]'s existing rare-case test, so that pushes pay for one comparison
/// only (a length test on every push cost the reference dumbbell 1.7 %).
const CHECK_EVERY: u64 = 1024;

/// A min-queue of events keyed by `(time, insertion order)`.
///
/// Each entry is one `u128`: `time << 64 | seq << 24 | event`. One integer comparison orders
/// by time and breaks ties by insertion order (the event bits never decide, `seq` being
/// unique), and 16-byte entries make the heap's sifting move half the memory that a
/// separate key and event would: popping is the engine's largest single cost. (A 4-ary
/// heap, tried, ran 50 % slower: std's pop sifts to the bottom with one comparison a level.)
/// The heap's pop leaves the root for the next push to replace ([`near`]).
///
/// While few entries are pending they all live in one binary heap. Past [`CALENDAR_AT`] a
/// calendar queue takes the ones beyond the current time slot, so the heap stays a few
/// entries deep however many flows there are; the order is the same key order either way.
#[derive(Debug)]
pub struct Scheduler {
    /// Entries due before `horizon`: all of them until the calendar starts.
    near: near::NearHeap,
    /// Entries at or after this time go to the calendar (`u64::MAX` without one).
    horizon: u64,
    /// Events fired and the clock at the last check: the event rate sizes the slots.
    last_check: (u64, u64),
    calendar: Option<Box<calendar::Calendar>>,
    next_seq: u64,
    /// The next insertion number at which [`Scheduler::reserve`] checks the layout (and
    /// renumbers at [`SEQ_LIMIT`]).
    next_check: u64,
    now: SimTime,
    fired: u64,
}

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler {
            near: near::NearHeap::default(),
            horizon: u64::MAX,
            last_check: (0, 0),
            calendar: None,
            next_seq: FIRST_AT_INSTANT + 1,
            next_check: CHECK_EVERY,
            now: SimTime::ZERO,
            fired: 0,
        }
    }
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
        self.near.len() + self.calendar.as_ref().map_or(0, |c| c.len())
    }

    /// Schedules `event` at `at`. Scheduling in the past is a logic error.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        let seq = self.reserve();
        self.schedule_reserved(at, seq, event);
    }

    /// Takes the next insertion number, for an event to be scheduled later with
    /// [`Scheduler::schedule_reserved`] but ordered among same-time events as if scheduled
    /// now.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        if self.next_seq == self.next_check {
            self.check();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Takes the next two insertion numbers, in order: [`Scheduler::reserve`] twice, with
    /// one test for the layout check where two calls made two (a transmission takes two,
    /// for its arrival and its end: 1 % of the reference dumbbell's instructions, callgrind).
    /// When the check is due at either number, the two single calls run it at the same
    /// moment as before, so the layouts and the renumbering are unchanged.
    #[inline(always)]
    pub fn reserve_pair(&mut self) -> (u64, u64) {
        // `next_seq <= next_check` always: `check` runs when they meet.
        if self.next_check - self.next_seq <= 1 {
            return (self.reserve(), self.reserve());
        }
        let first = self.next_seq;
        self.next_seq += 2;
        (first, first + 1)
    }

    /// Schedules `event` at `at` with an insertion number taken earlier by
    /// [`Scheduler::reserve`].
    #[inline(always)]
    pub fn schedule_reserved(&mut self, at: SimTime, seq: u64, event: Event) {
        debug_assert!(at >= self.now, "event {event:?} scheduled in the past");
        let low = (seq << EVENT_BITS) | event.encode();
        let key = ((at.0 as u128) << 64) | low as u128;
        if at.0 < self.horizon {
            self.near.push(key);
        } else {
            self.push_beyond(key);
        }
    }

    /// A push beyond the current slot of the calendar.
    #[inline(never)]
    fn push_beyond(&mut self, key: u128) {
        if let Some(cal) = self.calendar.as_mut() {
            if let calendar::Placed::Calendar = cal.place(key) {
                return;
            }
        }
        // `u64::MAX` itself, without a calendar or in its last slot.
        self.near.push(key);
    }

    /// Every [`CHECK_EVERY`] insertion numbers: renumbers when the numbers run out, starts
    /// the calendar when the heap has grown past [`CALENDAR_AT`], resizes the calendar's
    /// slots when the event rate has moved fourfold from what they were sized for, and
    /// drops the calendar when few entries are left.
    #[cold]
    #[inline(never)]
    fn check(&mut self) {
        if self.next_seq == SEQ_LIMIT {
            self.renumber();
        }
        let (fired, at) = self.last_check;
        self.last_check = (self.fired, self.now.0);
        let measured = calendar::slot_shift_for_rate(self.fired - fired, self.now.0 - at);
        let rebuild = match &self.calendar {
            None => self.near.len() >= CALENDAR_AT,
            Some(cal) => {
                self.pending() < CALENDAR_AT / 4
                    || measured.is_some_and(|shift| shift.abs_diff(cal.shift()) >= 2)
            }
        };
        if rebuild {
            self.rebuild(measured);
        }
        self.next_check = SEQ_LIMIT.min(self.next_seq + CHECK_EVERY);
    }

    /// Lays every pending entry out again: one heap when few are pending, else a calendar
    /// with slots of `2^shift` ns (the measured event rate's), or sized by how the entries
    /// crowd the near future when no rate is known.
    #[cold]
    #[inline(never)]
    fn rebuild(&mut self, shift: Option<u32>) {
        let mut keys = self.near.take_vec();
        let mut buckets = Vec::new();
        if let Some(mut cal) = self.calendar.take() {
            cal.drain_into(&mut keys);
            buckets = cal.into_buckets();
        }
        if keys.len() >= CALENDAR_AT / 2 {
            let shift =
                shift.unwrap_or_else(|| calendar::slot_shift_for_keys(&mut keys, self.now.0));
            let cal = calendar::Calendar::build(&mut keys, self.now.0, shift, buckets);
            self.horizon = cal.horizon();
            self.calendar = Some(Box::new(cal));
        } else {
            self.horizon = u64::MAX;
        }
        // What is left in `keys` is due before the horizon.
        self.near = near::NearHeap::from_vec(keys);
    }

    /// Every pending key, heap and calendar, in ascending order, leaving neither.
    fn take_sorted(&mut self) -> Vec<u128> {
        let mut keys = self.near.take_vec();
        if let Some(mut cal) = self.calendar.take() {
            cal.drain_into(&mut keys);
        }
        keys.sort_unstable();
        keys
    }

    /// When the earliest pending event is due, without popping it (a real-time driver sleeps
    /// until then).
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        match self.near.peek() {
            Some(key) => Some(SimTime((key >> 64) as u64)),
            None => self.calendar.as_ref()?.peek_time().map(SimTime),
        }
    }

    /// Pops the earliest event and advances the clock to it. (Always inlined into the event
    /// loop, as the heap's pop alone was: as a call it costs 5 % on the reference dumbbell.)
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let key = match self.near.pop() {
            Some(key) => key,
            None => self.pop_from_calendar()?,
        };
        let at = SimTime((key >> 64) as u64);
        self.now = at;
        self.fired += 1;
        let event = Event::decode(key as u64 & ((1 << EVENT_BITS) - 1));
        Some((at, event))
    }

    /// The near heap ran dry: moves the calendar on to its next slot with entries.
    #[inline(never)]
    fn pop_from_calendar(&mut self) -> Option<u128> {
        let cal = self.calendar.as_mut()?;
        if !cal.advance(&mut self.near) {
            return None;
        }
        self.horizon = cal.horizon();
        self.near.pop()
    }

    /// Gives the pending entries the insertion numbers 1, 2, ... in their order (an entry
    /// numbered [`FIRST_AT_INSTANT`] keeps its number), so that
    /// numbering can go on: after 2^40 insertions (hours of simulation at tens of millions
    /// of events a second) the numbers would otherwise overflow their bits. Numbers reserved
    /// but not yet scheduled (packets in links' pipes) keep their old, larger values: at that
    /// one moment, an arrival among them that ties to the nanosecond with an event scheduled
    /// after the renumbering fires second, where ns-2 would fire it first.
    fn renumber(&mut self) {
        let mut keys = self.take_sorted();
        let event_mask = (1u128 << EVENT_BITS) - 1;
        let mut seq = FIRST_AT_INSTANT + 1;
        for key in keys.iter_mut() {
            if (*key as u64) >> EVENT_BITS == FIRST_AT_INSTANT {
                continue;
            }
            let time = *key >> 64;
            *key = (time << 64) | ((seq as u128) << EVENT_BITS) | (*key & event_mask);
            seq += 1;
        }
        self.next_seq = seq;
        // All in the heap again; the next push past the limit lays out a calendar anew.
        self.near = near::NearHeap::from_vec(keys);
        self.horizon = u64::MAX;
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
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

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
    fn peeking_shows_the_earliest_time_without_popping() {
        let mut s = Scheduler::new();
        assert_eq!(s.peek_time(), None);
        s.schedule(SimTime(9), Event::Stop);
        s.schedule(SimTime(4), Event::TxEnd { dir: 1 });
        assert_eq!(s.peek_time(), Some(SimTime(4)));
        assert_eq!(s.events_fired(), 0);
        assert_eq!(s.pop(), Some((SimTime(4), Event::TxEnd { dir: 1 })));
        assert_eq!(s.peek_time(), Some(SimTime(9)));
    }

    #[test]
    fn every_event_survives_its_encoding() {
        let events = [
            Event::TxEnd { dir: 0 },
            Event::Arrive {
                dir: MAX_EVENT_INDEX,
            },
            Event::FlowStart { flow: 7 },
            Event::FlowStop { flow: 1 },
            Event::CbrSend { flow: 123_456 },
            Event::SenderTimer {
                flow: MAX_EVENT_INDEX,
            },
            Event::ReceiverTimer { flow: 2 },
            Event::Stop,
            Event::Medium { medium: 0 },
            Event::Medium {
                medium: MAX_EVENT_INDEX,
            },
        ];
        for e in events {
            assert_eq!(Event::decode(e.encode()), e);
        }
    }

    #[test]
    fn a_reserved_number_orders_a_later_scheduled_event_first() {
        // As at a router: packet A starts its transmission (its arrival's number is taken),
        // then packet B, whose arrival event is scheduled at once; A's is scheduled only
        // later, at the same instant as B's. A still arrives first, as in ns-2.
        let mut s = Scheduler::new();
        let a = s.reserve();
        s.schedule(SimTime(10), Event::Arrive { dir: 2 });
        s.schedule_reserved(SimTime(10), a, Event::Arrive { dir: 1 });
        assert_eq!(s.pop(), Some((SimTime(10), Event::Arrive { dir: 1 })));
        assert_eq!(s.pop(), Some((SimTime(10), Event::Arrive { dir: 2 })));
    }

    #[test]
    fn an_event_first_at_its_instant_fires_before_those_scheduled_earlier() {
        let mut s = Scheduler::new();
        s.schedule(SimTime(7), Event::FlowStart { flow: 0 });
        s.schedule(SimTime(7), Event::Arrive { dir: 0 });
        s.schedule(SimTime(3), Event::Stop);
        s.schedule_reserved(SimTime(7), FIRST_AT_INSTANT, Event::TxEnd { dir: 4 });
        s.schedule_reserved(SimTime(7), FIRST_AT_INSTANT, Event::TxEnd { dir: 2 });
        let order: Vec<Event> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            vec![
                Event::Stop,
                Event::TxEnd { dir: 2 },
                Event::TxEnd { dir: 4 },
                Event::FlowStart { flow: 0 },
                Event::Arrive { dir: 0 }
            ]
        );
        // Renumbering keeps it first.
        s.schedule(SimTime(9), Event::FlowStart { flow: 1 });
        s.schedule_reserved(SimTime(9), FIRST_AT_INSTANT, Event::TxEnd { dir: 1 });
        s.next_seq = SEQ_LIMIT;
        s.next_check = SEQ_LIMIT;
        s.schedule(SimTime(9), Event::FlowStart { flow: 2 });
        let order: Vec<Event> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            vec![
                Event::TxEnd { dir: 1 },
                Event::FlowStart { flow: 1 },
                Event::FlowStart { flow: 2 }
            ]
        );
    }

    #[test]
    fn renumbering_keeps_the_order_of_pending_events() {
        let mut s = Scheduler::new();
        s.schedule(SimTime(9), Event::FlowStart { flow: 1 });
        s.schedule(SimTime(3), Event::FlowStart { flow: 2 });
        s.schedule(SimTime(9), Event::FlowStart { flow: 3 });
        s.pop();
        s.schedule(SimTime(5), Event::FlowStart { flow: 4 });
        // As if 2^40 insertions had happened: the next one renumbers first.
        s.next_seq = SEQ_LIMIT;
        s.next_check = SEQ_LIMIT;
        s.schedule(SimTime(9), Event::FlowStart { flow: 5 });
        assert_eq!(
            s.next_seq, 5,
            "three pending entries renumbered from 1, then one more"
        );
        let order: Vec<Event> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        let flows: Vec<u32> = order
            .iter()
            .map(|e| match e {
                Event::FlowStart { flow } => *flow,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(flows, vec![4, 1, 3, 5]);
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
    /// Drives the scheduler and a plain `BinaryHeap` of the same keys through the same
    /// schedules and pops: every pop must agree, whatever layout the scheduler is in. The
    /// events are a flow's start, a workload's arrival (the tenth kind) and a trace-driven
    /// link's opportunity ([`Event::TxEnd`] at [`FIRST_AT_INSTANT`], which goes before
    /// everything else at its instant, ties among them by link direction).
    fn agrees_with_a_binary_heap(ops: &[(u8, u64, u32)], spread: u64) {
        let mut s = Scheduler::new();
        // (time, insertion number, event code): the order the scheduler promises.
        let mut reference: BinaryHeap<Reverse<(u64, u64, u64)>> = BinaryHeap::new();
        let mut reserved: Vec<u64> = Vec::new();
        let mut next = FIRST_AT_INSTANT + 1;
        let popped = |entry: Option<Reverse<(u64, u64, u64)>>| {
            entry.map(|Reverse((t, _, code))| (SimTime(t), Event::decode(code)))
        };
        for &(op, offset, index) in ops {
            let now = s.now().0;
            // Some offsets collide on purpose: equal times must keep insertion order.
            let at = now + offset % spread;
            let event = if index % 4 == 0 {
                Event::WorkloadArrival {
                    workload: index % 7,
                }
            } else {
                Event::FlowStart { flow: index % 1000 }
            };
            match op % 10 {
                0..=3 => {
                    s.schedule(SimTime(at), event);
                    reference.push(Reverse((at, next, event.encode())));
                    next += 1;
                }
                4 => {
                    reserved.push(s.reserve());
                    next += 1;
                }
                5 if !reserved.is_empty() => {
                    let seq = reserved.remove(offset as usize % reserved.len());
                    s.schedule_reserved(SimTime(at), seq, event);
                    reference.push(Reverse((at, seq, event.encode())));
                }
                6 => {
                    let opportunity = Event::TxEnd { dir: index % 5 };
                    s.schedule_reserved(SimTime(at), FIRST_AT_INSTANT, opportunity);
                    reference.push(Reverse((at, FIRST_AT_INSTANT, opportunity.encode())));
                }
                _ => {
                    let expected = popped(reference.pop());
                    assert_eq!(s.peek_time(), expected.map(|(t, _)| t));
                    assert_eq!(s.pop(), expected);
                }
            }
            assert_eq!(s.pending(), reference.len());
        }
        while let Some(entry) = reference.pop() {
            assert_eq!(s.pop(), popped(Some(entry)));
        }
        assert_eq!(s.pop(), None);
    }

    #[test]
    fn a_calendar_pops_what_a_heap_pops() {
        // Deterministic mixes: many pending (calendar), few (heap), and the switch between,
        // with times clustered (ties), spread over a window, and far out (overflow).
        let mut rng = crate::rng::RngStream::derive(30, "scheduler");
        for case in 0..60u64 {
            let len = [200, 2_000, 20_000][case as usize % 3];
            let spread = [4, 1_000, 1_000_000, 1 << 40][(case / 3) as usize % 4];
            // Mostly pushes first (the calendar starts), then a steady mix, then drain.
            let ops: Vec<(u8, u64, u32)> = (0..len)
                .map(|i| {
                    let r = rng.next_u64();
                    let op = if i < len / 3 {
                        (r % 7) as u8
                    } else {
                        (r % 10) as u8
                    };
                    let offset = if r >> 60 == 0 {
                        rng.next_u64()
                    } else {
                        rng.next_u64() % 4096
                    };
                    (op, offset, (r >> 32) as u32)
                })
                .collect();
            agrees_with_a_binary_heap(&ops, spread);
        }
    }

    #[test]
    fn many_equal_times_keep_insertion_order_in_the_calendar() {
        let mut s = Scheduler::new();
        // Past the threshold, and enough insertions for the layout to be looked at.
        for flow in 0..5 * CALENDAR_AT as u32 + CHECK_EVERY as u32 {
            s.schedule(
                SimTime(1_000 + (flow as u64 % 3) * 5_000_000),
                Event::FlowStart { flow },
            );
        }
        assert!(
            s.calendar.is_some(),
            "past the threshold the calendar is in use"
        );
        let mut last = (SimTime::ZERO, 0);
        while let Some((t, Event::FlowStart { flow })) = s.pop() {
            if t == last.0 {
                assert!(flow > last.1);
            }
            last = (t, flow);
        }
        assert_eq!(s.pending(), 0);
    }

    #[test]
    fn renumbering_with_a_calendar_keeps_the_order() {
        let mut s = Scheduler::new();
        for flow in 0..2_000u32 {
            s.schedule(
                SimTime((flow as u64 * 7_919) % 100_000),
                Event::FlowStart { flow },
            );
        }
        assert!(s.calendar.is_some());
        let mut expected: Vec<(u64, u32)> = (0..2_000u32)
            .map(|f| ((f as u64 * 7_919) % 100_000, f))
            .collect();
        expected.sort();
        s.next_seq = SEQ_LIMIT;
        s.next_check = SEQ_LIMIT;
        s.schedule(SimTime(50_000), Event::FlowStart { flow: 5_000 });
        let at = expected.partition_point(|&(t, _)| t <= 50_000);
        expected.insert(at, (50_000, 5_000));
        let order: Vec<(u64, u32)> = std::iter::from_fn(|| s.pop())
            .map(|(t, e)| match e {
                Event::FlowStart { flow } => (t.0, flow),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, expected);
    }
}
