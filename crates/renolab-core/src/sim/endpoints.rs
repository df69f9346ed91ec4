//! The flows' endpoints: what generates and absorbs each flow's packets (a TCP sender and
//! receiver, or a constant-bit-rate source and sink), their application start and stop, and
//! their timers. The simulation sends their packets into its [`Network`] and, as the
//! network's [`Driver`], receives those that reach their destination.

use super::delay::DelayStats;
use super::network::{Driver, Network};
use super::Simulation;
use crate::app::{CbrSink, CbrSource};
use crate::engine::{Event, Scheduler, TimerSlot};
use crate::histogram::LogHistogram;
use crate::packet::sack::SackBlocks;
use crate::packet::{Packet, PacketId, PacketKind};
use crate::scenario::Variant;
use crate::tcp::cc::CcState;
use crate::tcp::sender::SegmentKind;
use crate::tcp::{TcpReceiver, TcpSender, Window};
use crate::time::{SimDuration, SimTime};
use crate::trace::{SeqEvent, Tracer};

/// A TCP connection's two endpoints and their timers.
#[derive(Debug)]
pub(crate) struct TcpEndpoints {
    pub(super) variant: Variant,
    pub(super) sender: TcpSender,
    pub(super) receiver: TcpReceiver,
    pub(super) sender_timer: TimerSlot,
    /// The sender's pacing release, apart from its retransmission timer: sharing one slot,
    /// each release that came before the timer's deadline left a stale heap entry behind,
    /// one per round of window-limited sending.
    pub(super) release_timer: TimerSlot,
    pub(super) receiver_timer: TimerSlot,
}

/// What generates and absorbs a flow's packets.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Endpoints {
    /// A TCP sender and receiver (inline: boxing them costs a pointer chase per packet, and
    /// the few bytes a CBR flow wastes do not matter).
    Tcp(TcpEndpoints),
    /// A constant-bit-rate source and its sink.
    Cbr {
        /// Sending side.
        source: CbrSource,
        /// Receiving side.
        sink: CbrSink,
    },
}

/// A flow: its endpoints and timing (its packet counters are the network's).
///
/// A flow has an id, the `flow` of its packets and traces, and a slot in the simulation's
/// table, where its timer events find it; they are the same number for a scenario's
/// `[[flow]]` flows, not for a workload's, whose slots are reused (`super::workload`).
///
/// Laid out by access (`repr(C)` keeps the order written): what every packet of the flow
/// reads first (its id, nodes, the delays its data packets record), then the endpoints,
/// then what only an RTT sample, a trace or the results read. With 1000 flows a flow's
/// lines are cold at each of its packets, and a packet then touches the lines it needs, not
/// ones it shares with the name or the tracer's copies.
#[derive(Debug)]
#[repr(C)]
pub(crate) struct Flow {
    pub(super) id: u32,
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) finished: bool,
    /// One-way delays of the data packets that reached the receiver.
    pub(super) delays: DelayStats,
    pub(super) endpoints: Endpoints,
    /// The RTT samples the sender took (the `rtt` trace's `rtt_s`), ns.
    pub(super) rtts: LogHistogram,
    pub(super) start: SimTime,
    pub(super) stop: Option<SimTime>,
    /// Completion time alone on the path (a finite TCP transfer over links).
    pub(super) ideal_fct: Option<SimDuration>,
    /// Last (cwnd, ssthresh, inflated cwnd) reported to the tracer.
    pub(super) traced: Option<(Window, Window, Window)>,
    /// Last controller state reported to the tracer.
    pub(super) traced_cc: CcState,
    pub(super) name: String,
}

impl<T: Tracer> Driver for Simulation<T> {
    type Tracer = T;

    // Always inlined: the network's code then reaches its fields from one pointer, as it did
    // when it was the simulation's own code.
    #[inline(always)]
    fn parts(&mut self) -> (&mut Network, &mut Scheduler, &mut T) {
        (&mut self.network, &mut self.sched, &mut self.tracer)
    }

    /// Gives `packet`, which reached its destination, to its flow's endpoint there.
    fn deliver(&mut self, now: SimTime, packet: Packet, _id: PacketId) {
        let flow = packet.flow;
        // A retired flow has no packet left in the network (`super::workload`).
        let Some(slot) = self.workloads.slot(flow) else {
            debug_assert!(false, "packet {packet:?} of a retired flow");
            return;
        };
        let state = &mut self.flows[slot];
        if matches!(packet.kind, PacketKind::Data | PacketKind::Datagram) {
            state.delays.record((now - packet.sent_at).as_nanos());
            if T::ENABLED {
                self.tracer
                    .seq_event(now, flow, SeqEvent::Received, packet.seq);
            }
        }
        match (&mut state.endpoints, packet.kind) {
            (Endpoints::Tcp(tcp), PacketKind::Data) => {
                tcp.receiver.on_segment_ecn(now, packet.seq, packet.ecn);
                if !state.finished && tcp.receiver.stats().finished_at.is_some() {
                    state.finished = true;
                    self.unfinished -= 1;
                    if self.workloads.is_workload_flow(flow) {
                        self.workloads.draining.push(flow);
                    }
                }
                self.after_receiver(now, slot);
            }
            (Endpoints::Tcp(tcp), PacketKind::Ack) => {
                let rtt = tcp
                    .sender
                    .on_ack_flags(now, packet.seq, &packet.sack, packet.ecn);
                if T::ENABLED {
                    self.tracer
                        .seq_event(now, flow, SeqEvent::Acked, packet.seq);
                }
                if let Some(rtt) = rtt {
                    state.rtts.record(rtt.as_nanos());
                    if T::ENABLED {
                        let (srtt, rto) = tcp.sender.srtt_and_rto(rtt);
                        self.tracer.rtt_sample(now, flow, rtt, srtt, rto);
                    }
                }
                self.after_sender(now, slot);
                if self.workloads.is_workload_flow(flow) && self.flows[slot].finished {
                    self.try_retire(now, slot);
                }
            }
            (Endpoints::Tcp(tcp), PacketKind::Syn) => {
                tcp.receiver.on_syn_ecn(now, packet.ecn);
                self.after_receiver(now, slot);
            }
            (Endpoints::Tcp(tcp), PacketKind::SynAck) => {
                tcp.sender.on_syn_ack_ecn(now, packet.ecn);
                self.after_sender(now, slot);
            }
            (Endpoints::Cbr { sink, .. }, PacketKind::Datagram) => sink.on_packet(packet.size),
            _ => debug_assert!(
                false,
                "packet {packet:?} reached the wrong kind of endpoint"
            ),
        }
    }
}

impl<T: Tracer> Simulation<T> {
    /// The application of the flow in `slot` starts.
    pub(super) fn on_flow_start(&mut self, now: SimTime, slot: usize) {
        let state = &mut self.flows[slot];
        let stop = state.stop;
        match &mut state.endpoints {
            Endpoints::Tcp(tcp) => {
                tcp.sender.start(now);
                self.after_sender(now, slot);
            }
            Endpoints::Cbr { source, .. } => {
                source.start(now, stop);
                self.on_cbr_send(now, slot);
            }
        }
    }

    /// The application of the flow in `slot` stops offering data.
    pub(super) fn on_flow_stop(&mut self, now: SimTime, slot: usize) {
        match &mut self.flows[slot].endpoints {
            Endpoints::Tcp(tcp) => {
                tcp.sender.stop_offering();
                self.after_sender(now, slot);
            }
            Endpoints::Cbr { source, .. } => source.stop(),
        }
    }

    /// The constant-bit-rate source of the flow in `slot` (a scenario's flow: its slot is
    /// its id) may have a packet due.
    pub(super) fn on_cbr_send(&mut self, now: SimTime, slot: usize) {
        let state = &mut self.flows[slot];
        let flow = state.id;
        let Endpoints::Cbr { source, .. } = &mut state.endpoints else {
            return;
        };
        let Some(packet) = source.poll_datagram(now, flow, state.dst) else {
            return;
        };
        if let Some(at) = source.poll_timeout() {
            self.sched.schedule(at, Event::CbrSend { flow });
        }
        if T::ENABLED {
            self.tracer.seq_event(now, flow, SeqEvent::Sent, packet.seq);
        }
        let src = state.src;
        Network::inject(self, now, src, packet);
    }

    /// Sends what the TCP sender of the flow in `slot` wants to send, re-arms its timer,
    /// traces its window.
    fn after_sender(&mut self, now: SimTime, slot: usize) {
        let flow = self.flows[slot].id;
        loop {
            let state = &mut self.flows[slot];
            let Endpoints::Tcp(tcp) = &mut state.endpoints else {
                return;
            };
            let Some(tx) = tcp.sender.poll_transmit(now) else {
                break;
            };
            let kind = match tx.kind {
                SegmentKind::Data => PacketKind::Data,
                SegmentKind::Syn => PacketKind::Syn,
            };
            let packet = Packet {
                flow,
                kind,
                seq: tx.seq,
                size: tx.wire_bytes,
                dst: state.dst,
                retransmit: tx.retransmit,
                sent_at: now,
                sack: SackBlocks::EMPTY,
                ecn: tx.ecn,
            };
            if T::ENABLED && kind == PacketKind::Data {
                let event = if tx.retransmit {
                    SeqEvent::Retransmitted
                } else {
                    SeqEvent::Sent
                };
                self.tracer.seq_event(now, flow, event, tx.seq);
            }
            let src = state.src;
            Network::inject(self, now, src, packet);
            if tx.last {
                break;
            }
        }
        let state = &mut self.flows[slot];
        let Endpoints::Tcp(tcp) = &mut state.endpoints else {
            return;
        };
        let timer = Event::SenderTimer { flow: slot as u32 };
        let (retransmission, release) = tcp.sender.poll_timers();
        if let Some(at) = tcp.sender_timer.arm(retransmission) {
            self.sched.schedule(at, timer);
        }
        if let Some(at) = tcp.release_timer.arm(release) {
            self.sched.schedule(at, timer);
        }
        if T::ENABLED {
            let window = (
                tcp.sender.cwnd(),
                tcp.sender.ssthresh(),
                tcp.sender.inflated_cwnd(),
            );
            if state.traced != Some(window) {
                state.traced = Some(window);
                let (cwnd, ssthresh, inflated) = window;
                self.tracer
                    .cwnd_changed(now, flow, cwnd, ssthresh, inflated);
            }
            let cc = tcp.sender.cc_state();
            if state.traced_cc != cc {
                state.traced_cc = cc;
                self.tracer.cc_changed(now, flow, &cc);
            }
        }
    }

    /// Sends the ACKs the TCP receiver of the flow in `slot` wants to send (one, or two
    /// when a held or DCTCP ACK goes first) and re-arms its timer.
    fn after_receiver(&mut self, now: SimTime, slot: usize) {
        let flow = self.flows[slot].id;
        loop {
            let state = &mut self.flows[slot];
            let Endpoints::Tcp(tcp) = &mut state.endpoints else {
                return;
            };
            let Some(ack) = tcp.receiver.poll_transmit(now) else {
                break;
            };
            let packet = Packet {
                flow,
                kind: if ack.syn {
                    PacketKind::SynAck
                } else {
                    PacketKind::Ack
                },
                seq: ack.ack,
                size: tcp.receiver.ack_size(ack.sack.len()),
                dst: state.src,
                retransmit: false,
                sent_at: now,
                sack: ack.sack,
                ecn: ack.flags,
            };
            let receiver_node = state.dst;
            Network::inject(self, now, receiver_node, packet);
            if ack.last {
                break;
            }
        }
        let Endpoints::Tcp(tcp) = &mut self.flows[slot].endpoints else {
            return;
        };
        if let Some(at) = tcp.receiver_timer.arm(tcp.receiver.poll_timeout()) {
            let timer = Event::ReceiverTimer { flow: slot as u32 };
            self.sched.schedule(at, timer);
        }
    }

    /// The timer of the sender (RTO) of the flow in `slot` may be due.
    pub(super) fn on_sender_timer(&mut self, now: SimTime, slot: usize) {
        let Endpoints::Tcp(tcp) = &mut self.flows[slot].endpoints else {
            return;
        };
        if !(tcp.sender_timer.fire(now) || tcp.release_timer.fire(now)) {
            return; // stale entry, superseded by an earlier one
        }
        if matches!(tcp.sender.poll_timeout(), Some(due) if due <= now) {
            tcp.sender.on_timeout(now);
        }
        self.after_sender(now, slot);
    }

    /// The timer of the receiver (delayed ACK) of the flow in `slot` may be due.
    pub(super) fn on_receiver_timer(&mut self, now: SimTime, slot: usize) {
        let Endpoints::Tcp(tcp) = &mut self.flows[slot].endpoints else {
            return;
        };
        if !tcp.receiver_timer.fire(now) {
            return;
        }
        if matches!(tcp.receiver.poll_timeout(), Some(due) if due <= now) {
            tcp.receiver.on_timeout(now);
        }
        self.after_receiver(now, slot);
    }
}
