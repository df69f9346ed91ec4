//! The applications: one real socket pair per TCP flow. The sender connects at the flow's
//! start, writes `bytes` (then closes its half) or writes until `stop`; the receiver reads
//! and discards. `TCP_INFO` of every sender is sampled on a fixed interval for the `cwnd`,
//! `rtt` and `cc` traces, and once at the end for the flow's counters.
//!
//! One thread serves every flow with `ppoll`: the work per byte is the kernel's, and a
//! thread per flow would only compete with the driver for the CPU. The receivers are read
//! first and a sender gets one bounded `write` per wake-up, so a reader is never kept
//! waiting behind a sender filling its buffer: a Linux receiver whose application is late
//! holds its ACKs back (`__tcp_ack_snd_check()` waits for the window to open, and segments
//! that arrive while `recvmsg()` owns the socket are coalesced in the backlog by
//! `tcp_add_backlog()`), and the stretch ACKs that follow are this program's timing, not
//! TCP's.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};

use renolab_core::tcp::cc::CcState;
use renolab_core::time::SimTime;
use renolab_core::trace::{cc_record, Record, TraceSink};

use super::sys;
use crate::tcp_info::{cc_state, BbrInfo, TcpInfo};

/// Bytes the sender offers per `write`, one `write` per wake-up: small enough that the
/// copy into the socket (and the transmissions `tcp_sendmsg()` makes on the way) keeps the
/// thread from the receivers for tens of microseconds, not milliseconds.
const CHUNK: usize = 64 * 1024;
/// Bytes a receiver reads per `read` (as many reads as there is data).
const READ_CHUNK: usize = 256 * 1024;

/// The sockets of one TCP flow, made in set-up.
pub struct FlowSockets {
    /// Index of the flow in the scenario.
    pub flow: u32,
    /// The sender's socket (bound, not connected).
    pub client: OwnedFd,
    /// The receiver's listening socket.
    pub listener: OwnedFd,
    /// Receiver address and port.
    pub dst: ([u8; 4], u16),
    /// When the application starts.
    pub start: SimTime,
    /// When it stops offering data.
    pub stop: Option<SimTime>,
    /// Bytes to send, if finite.
    pub bytes: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Waiting,
    Connecting,
    Sending,
    Sent,
    Failed,
}

/// What the application side of a flow reports.
#[derive(Clone, Debug, Default)]
pub struct FlowOutcome {
    /// Bytes the receiving application read.
    pub bytes_delivered: u64,
    /// When it read the last byte of a finite transfer.
    pub finished: Option<SimTime>,
    /// When the connection was established (the sender saw the SYN-ACK).
    pub established: Option<SimTime>,
    /// The sender's `TCP_INFO` right after the handshake (its RTT is the handshake's).
    pub at_handshake: Option<TcpInfo>,
    /// The sender's last `TCP_INFO`.
    pub last: Option<TcpInfo>,
    /// Why the connection failed, if it did.
    pub error: Option<String>,
}

struct App {
    s: FlowSockets,
    state: State,
    server: Option<OwnedFd>,
    /// The receiver read the end of the stream: its socket is no longer polled.
    eof: bool,
    sent: u64,
    out: FlowOutcome,
    traced: Option<(u32, u32)>,
    traced_rtt: Option<u32>,
    traced_cc: Option<CcState>,
    /// Sampled after the receiver read the whole transfer: not sampled again.
    sampled_last: bool,
}

impl App {
    /// A flow's application before its start: nothing connected, sent or traced.
    fn new(s: FlowSockets) -> App {
        App {
            s,
            state: State::Waiting,
            server: None,
            eof: false,
            sent: 0,
            out: FlowOutcome::default(),
            traced: None,
            traced_rtt: None,
            traced_cc: None,
            sampled_last: false,
        }
    }
}

/// The `cwnd`, `rtt` and `cc` traces, fed from `TCP_INFO` (and `TCP_CC_INFO`).
pub struct InfoTraces {
    /// `cwnd` records (time, flow, cwnd, ssthresh and the inflated cwnd, in segments).
    pub cwnd: Option<TraceSink>,
    /// `rtt` records (time, flow, srtt as the sample and as srtt, rto).
    pub rtt: Option<TraceSink>,
    /// `cc` records: pacing and delivery rates, min RTT; BBR's estimate, gains and mode.
    pub cc: Option<TraceSink>,
}

/// Runs the applications until `stop` is set; sets `finished` once every finite transfer
/// has been read in full. Returns each flow's outcome, in the order of `flows`.
pub fn run(
    flows: Vec<FlowSockets>,
    t0: u64,
    interval_ns: u64,
    traces: &mut InfoTraces,
    stop: &AtomicBool,
    finished: &AtomicBool,
) -> Vec<FlowOutcome> {
    let mut apps: Vec<App> = flows.into_iter().map(App::new).collect();
    let zeros = vec![0u8; CHUNK];
    let mut sink = vec![0u8; READ_CHUNK];
    let mut fds: Vec<libc::pollfd> = Vec::new();
    let mut owners: Vec<(usize, u8)> = Vec::new(); // (app, 0 listener / 1 client / 2 server)
    let mut next_sample = 0u64;
    let now = || SimTime(sys::clock_ns().saturating_sub(t0));
    while !stop.load(Ordering::Relaxed) {
        let t = now();
        for a in apps.iter_mut() {
            if a.state == State::Waiting && t >= a.s.start {
                match sys::connect(&a.s.client, a.s.dst.0, a.s.dst.1) {
                    Ok(()) => a.state = State::Connecting,
                    Err(e) => fail(a, e.to_string()),
                }
            }
            if a.state == State::Sending && a.s.stop.is_some_and(|s| t >= s) {
                a.state = State::Sent; // stop offering data; the connection lives on
            }
        }
        // Sample on a fixed grid, a finished transfer one last time: a workload's hundreds
        // of finished flows would otherwise cost a system call each every interval.
        if t.0 >= next_sample {
            for a in apps.iter_mut() {
                if matches!(a.state, State::Sending | State::Sent) && !a.sampled_last {
                    sample(a, a.s.flow, t, traces);
                    a.sampled_last = a.out.finished.is_some();
                }
            }
            next_sample = (t.0 / interval_ns + 1) * interval_ns;
        }
        fds.clear();
        owners.clear();
        for (i, a) in apps.iter().enumerate() {
            // A listener has nothing to accept before its flow connects.
            if a.server.is_none() && a.state != State::Waiting {
                fds.push(pollfd(&a.s.listener, libc::POLLIN));
                owners.push((i, 0));
            }
            match a.state {
                State::Connecting | State::Sending => {
                    fds.push(pollfd(&a.s.client, libc::POLLOUT));
                    owners.push((i, 1));
                }
                _ => {}
            }
            if let Some(server) = a.server.as_ref().filter(|_| !a.eof) {
                fds.push(pollfd(server, libc::POLLIN));
                owners.push((i, 2));
            }
        }
        let mut timeout = next_sample.saturating_sub(now().0).min(2_000_000);
        for a in &apps {
            if a.state == State::Waiting {
                timeout = timeout.min(a.s.start.0.saturating_sub(now().0));
            }
        }
        if sys::wait(&mut fds, timeout).is_err() {
            continue;
        }
        // Receivers first (see the module's documentation), then senders and listeners.
        for readers in [true, false] {
            for (k, fd) in fds.iter().enumerate() {
                let (i, which) = owners[k];
                if fd.revents == 0 || (which == 2) != readers {
                    continue;
                }
                let a = &mut apps[i];
                match which {
                    0 => match sys::accept(&a.s.listener) {
                        Ok(Some(server)) => a.server = Some(server),
                        Ok(None) => {}
                        Err(e) => fail(a, format!("accept: {e}")),
                    },
                    1 => on_writable(a, now(), &zeros),
                    _ => on_readable(a, now(), &mut sink),
                }
            }
        }
        let done = apps
            .iter()
            .all(|a| a.s.bytes.is_none() || a.out.finished.is_some() || a.state == State::Failed);
        if done && apps.iter().any(|a| a.s.bytes.is_some()) {
            finished.store(true, Ordering::Relaxed);
        }
    }
    apps.into_iter()
        .map(|mut a| {
            if a.out.established.is_some() {
                if let Some(info) = read_info(&a.s.client) {
                    a.out.last = Some(info);
                }
            }
            a.out
        })
        .collect()
}

fn pollfd(fd: &OwnedFd, events: libc::c_short) -> libc::pollfd {
    libc::pollfd {
        fd: fd.as_raw_fd(),
        events,
        revents: 0,
    }
}

fn fail(a: &mut App, why: String) {
    a.state = State::Failed;
    a.out.error.get_or_insert(why);
}

fn on_writable(a: &mut App, t: SimTime, zeros: &[u8]) {
    if a.state == State::Connecting {
        match sys::socket_error(&a.s.client) {
            Ok(0) => {
                a.out.established = Some(t);
                a.out.at_handshake = read_info(&a.s.client);
                a.state = State::Sending;
            }
            Ok(e) => {
                return fail(
                    a,
                    format!("connect: {}", std::io::Error::from_raw_os_error(e)),
                )
            }
            Err(e) => return fail(a, e.to_string()),
        }
    }
    // One write per wake-up: the next poll finds the socket still writable if it is.
    if a.state == State::Sending {
        let want = match a.s.bytes {
            Some(total) => (total - a.sent).min(zeros.len() as u64) as usize,
            None => zeros.len(),
        };
        if want == 0 {
            sys::shutdown_write(&a.s.client);
            a.state = State::Sent;
            return;
        }
        match sys::write_some(a.s.client.as_raw_fd(), &zeros[..want]) {
            Ok(n) => a.sent += n as u64,
            Err(e) => fail(a, format!("write: {e}")),
        }
    }
}

fn on_readable(a: &mut App, t: SimTime, sink: &mut [u8]) {
    let Some(server) = &a.server else { return };
    loop {
        match sys::read_packet(server.as_raw_fd(), sink) {
            Ok(Some(0)) => {
                a.eof = true;
                break;
            }
            Ok(None) => break,
            Ok(Some(n)) => a.out.bytes_delivered += n as u64,
            Err(_) => break,
        }
    }
    if let Some(total) = a.s.bytes {
        if a.out.finished.is_none() && a.out.bytes_delivered >= total {
            a.out.finished = Some(t);
        }
    }
}

/// Samples the sender's `TCP_INFO`, recording cwnd/ssthresh and RTT when they changed.
fn sample(a: &mut App, flow: u32, t: SimTime, traces: &mut InfoTraces) {
    let Some(info) = read_info(&a.s.client) else {
        return;
    };
    let window = (info.snd_cwnd, info.snd_ssthresh);
    if a.traced != Some(window) {
        a.traced = Some(window);
        if let Some(s) = &mut traces.cwnd {
            s.push(
                Record::new()
                    .u64(t.0)
                    .u32(flow)
                    .f64(info.snd_cwnd as f64)
                    .f64(info.ssthresh_segments())
                    // Linux inflates no window in recovery (PRR sets snd_cwnd itself).
                    .f64(info.snd_cwnd as f64),
            );
        }
    }
    if a.traced_rtt != Some(info.rtt_us) {
        a.traced_rtt = Some(info.rtt_us);
        if let Some(s) = &mut traces.rtt {
            let srtt = info.rtt_us as u64 * 1_000;
            s.push(
                Record::new()
                    .u64(t.0)
                    .u32(flow)
                    .u64(srtt)
                    .u64(srtt)
                    .u64(info.rto_us as u64 * 1_000),
            );
        }
    }
    if let Some(s) = &mut traces.cc {
        let mut buf = [0u8; 64];
        let bbr = sys::tcp_cc_info(&a.s.client, &mut buf)
            .ok()
            .and_then(|len| BbrInfo::parse(&buf[..len.min(buf.len())]));
        let cc = cc_state(&info, bbr.as_ref());
        if a.traced_cc != Some(cc) {
            a.traced_cc = Some(cc);
            s.push(cc_record(t, flow, &cc));
        }
    }
    a.out.last = Some(info);
}

/// The sender's `TCP_INFO`, if the kernel gives it.
fn read_info(fd: &OwnedFd) -> Option<TcpInfo> {
    let mut buf = [0u8; 512];
    let len = sys::tcp_info(fd, &mut buf).ok()?;
    TcpInfo::parse(&buf[..len.min(buf.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::FromRawFd;

    /// A connected, non-blocking pair of Unix stream sockets.
    fn socket_pair() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors socketpair(2) writes.
        let r = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        };
        assert_eq!(r, 0, "socketpair: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just created and are owned by nobody else.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    #[test]
    fn a_sender_writes_one_chunk_per_wake_up_so_readers_are_not_kept_waiting() {
        let (client, _peer) = socket_pair();
        let (listener, _other) = socket_pair();
        // The socket takes far more than one chunk: writing until it is full (what the
        // thread did before) would write more than CHUNK here.
        let big = 4 * CHUNK as libc::c_int;
        // SAFETY: a valid socket and a pointer to a c_int of the length passed.
        unsafe {
            libc::setsockopt(
                client.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                (&big as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
        let mut a = App::new(FlowSockets {
            flow: 0,
            client,
            listener,
            dst: ([127, 0, 0, 1], 1),
            start: SimTime(0),
            stop: None,
            bytes: None,
        });
        a.state = State::Sending;
        let zeros = vec![0u8; CHUNK];
        on_writable(&mut a, SimTime(0), &zeros);
        assert_eq!(a.sent, CHUNK as u64);
        on_writable(&mut a, SimTime(0), &zeros);
        assert_eq!(a.sent, 2 * CHUNK as u64);
    }
}
