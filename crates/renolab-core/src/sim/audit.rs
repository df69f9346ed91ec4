//! The invariant audit (`--check-invariants`): packet conservation per flow, the window
//! bounds, and in-order delivery, checked by scanning every queue and wire, and every
//! station's queue and frame on the air. Slow; for tests.

use super::{Endpoints, Simulation};
use crate::tcp::Window;
use crate::trace::Tracer;

/// The smallest congestion window a sender may have: one segment, RFC 5681 §3.1's loss
/// window.
const MIN_CWND: Window = Window::segments(1);
/// The smallest slow-start threshold: two segments, RFC 5681 eq. (4)'s floor.
const MIN_SSTHRESH: Window = Window::segments(crate::scenario::MIN_SSTHRESH_SEGMENTS);

/// A broken invariant found by [`Simulation::audit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantViolation(pub String);

impl std::fmt::Display for InvariantViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invariant violated: {}", self.0)
    }
}

impl std::error::Error for InvariantViolation {}

impl<T: Tracer> Simulation<T> {
    /// Checks packet conservation per flow (sent = arrived + dropped + in the network), the
    /// window bounds, and in-order delivery, by scanning every queue and wire.
    pub fn audit(&self) -> Result<(), InvariantViolation> {
        let network = &self.network;
        // By flow id (a workload's flows are numbered past the slots).
        let ids = network.flow_counters().len();
        let mut data_in_network = vec![0u64; ids];
        let mut acks_in_network = vec![0u64; ids];
        let mut count = |id| {
            let packet = network.packet(id);
            if packet.kind.is_forward() {
                data_in_network[packet.flow as usize] += 1;
            } else {
                acks_in_network[packet.flow as usize] += 1;
            }
        };
        for link in network.dirs() {
            let on_wire = link.pipe.iter().map(|in_flight| in_flight.id);
            link.queue.iter().chain(on_wire).for_each(&mut count);
        }
        // A station holds its waiting packets and, until it is delivered, the packet of the
        // frame on the air.
        for medium in network.media() {
            for station in 0..medium.len() as u32 {
                medium.packets(station).for_each(&mut count);
            }
        }
        let live: u64 = data_in_network.iter().chain(&acks_in_network).sum();
        if live != network.packets_alive() as u64 {
            return Err(InvariantViolation(format!(
                "{} packets alive in the pool but {live} in queues, wires and stations",
                network.packets_alive()
            )));
        }
        let counters = network.flow_counters();
        let fixed = self.workloads.fixed as usize;
        let live = (0..fixed).chain(self.workloads.live().map(|(_, slot)| slot));
        for flow in live.map(|slot| &self.flows[slot]) {
            let i = flow.id as usize;
            let counted = &counters[i];
            if counted.data_sent != counted.data_arrived + counted.data_dropped + data_in_network[i]
            {
                return Err(InvariantViolation(format!(
                    "flow {}: data sent {} != arrived {} + dropped {} + in flight {}",
                    flow.name,
                    counted.data_sent,
                    counted.data_arrived,
                    counted.data_dropped,
                    data_in_network[i]
                )));
            }
            if counted.acks_sent != counted.acks_arrived + counted.acks_dropped + acks_in_network[i]
            {
                return Err(InvariantViolation(format!(
                    "flow {}: ACKs sent {} != arrived {} + dropped {} + in flight {}",
                    flow.name,
                    counted.acks_sent,
                    counted.acks_arrived,
                    counted.acks_dropped,
                    acks_in_network[i]
                )));
            }
            let Endpoints::Tcp(tcp) = &flow.endpoints else {
                continue;
            };
            let sender = tcp.sender.stats();
            if sender.segments_sent + sender.syns_sent != counted.data_sent {
                return Err(InvariantViolation(format!(
                    "flow {}: sender and network disagree on segments sent",
                    flow.name
                )));
            }
            if (tcp.sender.cwnd() < MIN_CWND && !tcp.sender.cwnd_may_be_zero())
                || tcp.sender.ssthresh() < MIN_SSTHRESH
            {
                return Err(InvariantViolation(format!(
                    "flow {}: cwnd {} < 1 or ssthresh {} < 2",
                    flow.name,
                    tcp.sender.cwnd(),
                    tcp.sender.ssthresh()
                )));
            }
            let receiver = &tcp.receiver;
            let in_order_bytes = tcp.sender.transfer().bytes_before(receiver.rcv_nxt());
            if receiver.stats().bytes_delivered != in_order_bytes {
                return Err(InvariantViolation(format!(
                    "flow {}: {} bytes delivered but segments 0..{} hold {in_order_bytes}",
                    flow.name,
                    receiver.stats().bytes_delivered,
                    receiver.rcv_nxt()
                )));
            }
        }
        Ok(())
    }
}
