//! Set-up, run and tear-down on Linux.
//!
//! Order: check privileges and the kernel's congestion controls (nothing created yet);
//! remove stale namespaces; create each host's namespace, TUN device, sysctls, addresses and
//! routes; create every flow's sockets inside the right namespaces; then start the driver
//! and the applications on two threads that first drop every capability. The main thread
//! keeps its own to remove the namespaces, which the [`netns::Namespaces`] guard does
//! whatever happens.

mod apps;
mod driver;
mod netns;
mod probe;
mod sys;

use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use renolab_core::sim::{FlowResult, LinkResult, RunOutput, RunSummary, StopReason};
use renolab_core::time::SimTime;
use renolab_core::trace::{PcapSet, Recorder, TraceRequest, TraceSink, TRACES};

use crate::lateness::Lateness;
use crate::plan::{FlowRole, Plan};
use crate::{EmuError, Emulation, HostReport, KernelFlow, Offloads, Report, Request};
use apps::{FlowOutcome, FlowSockets, InfoTraces};
use driver::{Driver, Timing};
use netns::Namespaces;

/// CAP_NET_ADMIN (devices, routes, sysctls) and CAP_SYS_ADMIN (namespaces).
const CAP_NET_ADMIN: u64 = 1 << 12;
const CAP_SYS_ADMIN: u64 = 1 << 21;

/// Sysctls reported for every namespace: the TCP settings a comparison depends on.
const REPORTED_SYSCTLS: &[&str] = &[
    "net.ipv4.tcp_sack",
    "net.ipv4.tcp_dsack",
    "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_window_scaling",
    "net.ipv4.tcp_ecn",
    "net.ipv4.tcp_recovery",
    "net.ipv4.tcp_early_retrans",
    "net.ipv4.tcp_frto",
    "net.ipv4.tcp_reordering",
    "net.ipv4.tcp_no_metrics_save",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_adv_win_scale",
    "net.ipv4.tcp_autocorking",
    "net.ipv4.tcp_limit_output_bytes",
    "net.ipv4.tcp_pacing_ss_ratio",
    "net.ipv4.tcp_pacing_ca_ratio",
    "net.ipv4.tcp_mtu_probing",
    "net.ipv4.tcp_congestion_control",
    "net.core.default_qdisc",
];

/// Datagrams the kernel may queue in a TUN device for the emulator to read.
const TUN_QUEUE: &str = "65536";

/// Smallest TCP buffer maximum set in the namespaces (so that the scenario's window, not the
/// buffer, bounds the receive window): 64 MiB, or four times the largest window.
const MIN_BUFFER_MAX: u64 = 64 << 20;

pub fn unsupported_reason() -> Option<String> {
    match sys::effective_capabilities() {
        Ok(caps) if caps & CAP_NET_ADMIN != 0 && caps & CAP_SYS_ADMIN != 0 => {}
        _ => {
            return Some(
                "renolab emulate needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create network namespaces and TUN devices".to_string(),
            )
        }
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Some("renolab emulate needs /dev/net/tun (the tun module)".to_string());
    }
    if let Err(e) = netns::ip(&["-V"]) {
        return Some(e.to_string());
    }
    None
}

pub fn available_congestion_controls() -> Vec<String> {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

fn failed(what: &str) -> impl Fn(std::io::Error) -> EmuError + '_ {
    move |e| EmuError::Failed(format!("{what}: {e}"))
}

/// Checks what can be checked before anything is created.
fn preflight(plan: &Plan, request: &Request) -> Result<Vec<String>, EmuError> {
    if request.traces.pcap_dir.is_some() {
        let names = plan.scenario.links.iter().map(|l| l.name.as_str());
        renolab_core::trace::pcap::check_file_names(names).map_err(EmuError::Input)?;
    }
    for name in &request.traces.names {
        if !TRACES.iter().any(|(n, _)| n == name) {
            let allowed: Vec<&str> = TRACES.iter().map(|(n, _)| *n).collect();
            return Err(EmuError::Input(format!(
                "trace: unknown trace {name:?}; allowed: {}",
                allowed.join(", ")
            )));
        }
    }
    let available = available_congestion_controls();
    for (i, f) in plan.flows.iter().enumerate() {
        if let FlowRole::Tcp(t) = &f.role {
            if !available.iter().any(|a| a == &t.congestion) {
                return Err(EmuError::Input(format!(
                    "flow[{i}].variant: this kernel has no congestion control {:?}; it offers {} (and renolab's newreno = reno without SACK, sack = reno with SACK)",
                    t.congestion,
                    available.join(", ")
                )));
            }
        }
    }
    if let Some(reason) = unsupported_reason() {
        return Err(EmuError::Unsupported(reason));
    }
    // Three descriptors per TCP flow (listener, sender, accepted receiver), one TUN device
    // and namespace file per host, and room for the rest of the process.
    let tcp = (plan.flows.iter())
        .filter(|f| matches!(f.role, FlowRole::Tcp(_)))
        .count() as u64;
    sys::reserve_open_files(3 * tcp + 2 * plan.hosts.len() as u64 + 256)
        .map_err(|e| EmuError::Unsupported(e.to_string()))?;
    Ok(available)
}

/// A host's namespace, TUN device and the settings read back.
struct HostSetup {
    netns: File,
    tun: OwnedFd,
    sysctls: Vec<(String, String)>,
    offloads: Offloads,
}

fn setup_host(plan: &Plan, h: usize, spaces: &mut Namespaces) -> Result<HostSetup, EmuError> {
    let host = &plan.hosts[h];
    let netns = spaces
        .add(&host.netns)
        .map_err(failed("creating a namespace"))?;
    let largest_window = plan
        .flows
        .iter()
        .filter_map(|f| match &f.role {
            FlowRole::Tcp(t) => t.window_bytes,
            FlowRole::Cbr => None,
        })
        .max()
        .unwrap_or(0);
    let buffer_max = MIN_BUFFER_MAX.max(4 * largest_window).min(i32::MAX as u64);
    let (tun, sysctls) = netns::within(&netns, || {
        // IPv6 off before the device exists, so it sends no router or neighbour traffic.
        for key in [
            "net.ipv6.conf.all.disable_ipv6",
            "net.ipv6.conf.default.disable_ipv6",
        ] {
            if netns::read_sysctl(key).is_some() {
                netns::write_sysctl(key, "1")?;
            }
        }
        netns::write_sysctl("net.ipv4.tcp_no_metrics_save", "1")?;
        netns::write_sysctl("net.ipv4.tcp_sack", if host.sack { "1" } else { "0" })?;
        netns::write_sysctl(
            "net.ipv4.tcp_rmem",
            &format!("4096 {buffer_max} {buffer_max}"),
        )?;
        netns::write_sysctl("net.ipv4.tcp_wmem", &format!("4096 16384 {buffer_max}"))?;
        let tun = sys::open_tun(&host.device)?;
        let sysctls = REPORTED_SYSCTLS
            .iter()
            .filter_map(|k| netns::read_sysctl(k).map(|v| (k.to_string(), v)))
            .collect();
        Ok((tun, sysctls))
    })
    .map_err(failed(&format!("setting up namespace {}", host.netns)))?;
    let ns = host.netns.as_str();
    let dev = host.device.as_str();
    let ip = ipv4(host.ip);
    let mtu = plan.mtu.to_string();
    let fail = failed("configuring a namespace");
    netns::ip(&["-n", ns, "link", "set", "dev", "lo", "up"]).map_err(&fail)?;
    // A deep TUN ring: a sender may put a whole window into it at once (TCP small queues
    // allow tcp_limit_output_bytes, 4 MiB), and a full ring drops datagrams before the
    // emulator sees them (the default of 500 cost a 9180-byte-MTU flow 434 segments).
    netns::ip(&[
        "-n",
        ns,
        "link",
        "set",
        "dev",
        dev,
        "mtu",
        &mtu,
        "txqueuelen",
        TUN_QUEUE,
        "up",
    ])
    .map_err(&fail)?;
    // Offloads before any socket exists: a socket takes its device's features when it
    // connects (`sk_setup_caps()`).
    let offloads = netns::within(&netns, || sys::set_offloads(dev, host.gso))
        .map_err(failed(&format!("setting the offloads of {dev}")))?;
    if !host.gso {
        netns::ip(&["-n", ns, "link", "set", "dev", dev, "gso_max_segs", "1"]).map_err(&fail)?;
    }
    netns::ip(&["-n", ns, "addr", "add", &format!("{ip}/32"), "dev", dev]).map_err(&fail)?;
    netns::ip(&["-n", ns, "route", "add", "10.0.0.0/8", "dev", dev]).map_err(&fail)?;
    // Per-route settings of this host's flows (checked consistent by the plan).
    let mut routed = Vec::new();
    for f in &plan.flows {
        let FlowRole::Tcp(t) = &f.role else { continue };
        if t.src_host != h || (t.initial_window.is_none() && t.min_rto.is_none()) {
            continue;
        }
        let dst = ipv4(plan.hosts[t.dst_host].ip);
        if routed.contains(&dst) {
            continue;
        }
        let target = format!("{dst}/32");
        let mut args = vec!["-n", ns, "route", "add", target.as_str(), "dev", dev];
        let iw = t.initial_window.map(|w| w.to_string());
        if let Some(w) = &iw {
            args.extend(["initcwnd", w.as_str()]);
        }
        let rto = t.min_rto.map(|r| format!("{}ms", r.0.div_ceil(1_000_000)));
        if let Some(r) = &rto {
            args.extend(["rto_min", r.as_str()]);
        }
        netns::ip(&args).map_err(&fail)?;
        routed.push(dst);
    }
    Ok(HostSetup {
        netns,
        tun,
        sysctls,
        offloads,
    })
}

fn ipv4(ip: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3])
}

/// A TCP socket for either end of a flow, in the current namespace: its address reusable at
/// once, its segments of `mss` bytes.
fn flow_socket(mss: u32) -> std::io::Result<OwnedFd> {
    let s = sys::tcp_socket()?;
    sys::set_int(&s, libc::SOL_SOCKET, libc::SO_REUSEADDR, 1, "SO_REUSEADDR")?;
    sys::set_int(
        &s,
        libc::IPPROTO_TCP,
        libc::TCP_MAXSEG,
        mss as i32,
        "TCP_MAXSEG",
    )?;
    Ok(s)
}

/// The sockets of every TCP flow, each made inside its endpoint's namespace.
fn setup_sockets(plan: &Plan, hosts: &[HostSetup]) -> Result<Vec<FlowSockets>, EmuError> {
    let mut out = Vec::new();
    for (i, f) in plan.flows.iter().enumerate() {
        let FlowRole::Tcp(t) = &f.role else { continue };
        let (src_ip, dst_ip) = (plan.hosts[t.src_host].ip, plan.hosts[t.dst_host].ip);
        let fail = failed("creating a flow's sockets");
        let listener = netns::within(&hosts[t.dst_host].netns, || {
            let s = flow_socket(t.mss)?;
            if let Some(w) = t.window_bytes {
                let clamp = w.min(i32::MAX as u64) as i32;
                sys::set_int(
                    &s,
                    libc::IPPROTO_TCP,
                    libc::TCP_WINDOW_CLAMP,
                    clamp,
                    "TCP_WINDOW_CLAMP",
                )?;
            }
            sys::bind(&s, dst_ip, t.dst_port)?;
            sys::listen(&s)?;
            Ok(s)
        })
        .map_err(&fail)?;
        let client = netns::within(&hosts[t.src_host].netns, || {
            let s = flow_socket(t.mss)?;
            sys::set_congestion(&s, &t.congestion)?;
            sys::bind(&s, src_ip, t.src_port)?;
            Ok(s)
        })
        .map_err(&fail)?;
        out.push(FlowSockets {
            flow: i as u32,
            client,
            listener,
            dst: (dst_ip, t.dst_port),
            start: f.start,
            stop: f.stop,
            bytes: t.bytes,
        });
    }
    Ok(out)
}

/// Runs `plan`.
pub fn run(plan: &Plan, request: &Request, cancel: &AtomicBool) -> Result<Emulation, EmuError> {
    let available = preflight(plan, request)?;
    let started = std::time::Instant::now();
    let stale_removed = netns::remove_stale().map_err(failed("removing stale namespaces"))?;
    let mut spaces = Namespaces::default();
    let mut hosts = Vec::with_capacity(plan.hosts.len());
    for h in 0..plan.hosts.len() {
        hosts.push(setup_host(plan, h, &mut spaces)?);
    }
    let sockets = setup_sockets(plan, &hosts)?;
    let flow_of_socket: Vec<u32> = sockets.iter().map(|s| s.flow).collect();

    // Traces: cwnd, rtt and cc come from TCP_INFO (the applications' thread), the others
    // from the driver.
    let info_names = ["cwnd", "rtt", "cc"];
    let driver_request = TraceRequest {
        names: request
            .traces
            .names
            .iter()
            .filter(|n| !info_names.contains(&n.as_str()))
            .cloned()
            .collect(),
        pcap_dir: None,
        ..request.traces.clone()
    };
    let recorder = Recorder::new(&driver_request, None).map_err(EmuError::Input)?;
    let limit = request
        .traces
        .memory_limit
        .unwrap_or(renolab_core::trace::DEFAULT_MEMORY_LIMIT);
    let sink = |name: &str| -> Result<Option<TraceSink>, EmuError> {
        if !request.traces.names.iter().any(|n| n == name) {
            return Ok(None);
        }
        let fields = TRACES.iter().find(|(n, _)| *n == name).expect("known").1;
        let path = request
            .traces
            .dir
            .as_ref()
            .map(|d| d.join(format!(".{name}.bin")));
        let name = info_names
            .iter()
            .find(|n| **n == name)
            .expect("an info trace");
        TraceSink::new(name, fields, path, limit)
            .map(Some)
            .map_err(EmuError::Failed)
    };
    let mut info_traces = InfoTraces {
        cwnd: sink("cwnd")?,
        rtt: sink("rtt")?,
        cc: sink("cc")?,
    };
    let pcap = match &request.traces.pcap_dir {
        Some(dir) => {
            let names: Vec<String> = plan.scenario.links.iter().map(|l| l.name.clone()).collect();
            Some(PcapSet::create(dir, &names, Vec::new()).map_err(EmuError::Failed)?)
        }
        None => None,
    };

    let tun_fds: Vec<i32> = hosts.iter().map(|h| h.tun.as_raw_fd()).collect();
    let timing = Timing {
        spin_ns: request.spin.0,
        max_sleep_ns: 2_000_000,
    };
    let stop = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    let mut driver = Driver::new(plan, &tun_fds, recorder, pcap, timing);
    // Time starts once both threads are ready (priority raised, capabilities dropped): a
    // flow starting at 0 must not send its SYN before the driver reads.
    let origin = AtomicU64::new(0);
    let ready = AtomicUsize::new(0);
    let await_origin = || {
        ready.fetch_add(1, Ordering::AcqRel);
        loop {
            let t0 = origin.load(Ordering::Acquire);
            if t0 != 0 {
                return t0;
            }
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    };
    let interval = request.tcp_info_interval.0.max(100_000);
    let (driver_result, outcomes, end, stop_reason, host_timer) = std::thread::scope(|s| {
        let driver_thread = s.spawn(|| {
            sys::tight_timer_slack();
            if let Some(cpu) = request.cpu {
                sys::pin_to_cpu(cpu)?;
            }
            sys::raise_priority(request.realtime)?;
            sys::drop_thread_capabilities()?;
            let t0 = await_origin();
            driver.run(t0, &stop)
        });
        let probe_thread = s.spawn(|| {
            sys::tight_timer_slack();
            // A probe that cannot get its priority measures nothing useful: it says so by
            // recording nothing (its summary counts zero wake-ups).
            let ready = sys::raise_priority_to(request.realtime, probe::PROBE_PRIORITY).is_ok()
                && sys::drop_thread_capabilities().is_ok();
            // Not counted among the threads the origin waits for: it starts when they do.
            let t0 = loop {
                match origin.load(Ordering::Acquire) {
                    0 if !stop.load(Ordering::Relaxed) => {
                        std::thread::sleep(std::time::Duration::from_micros(50))
                    }
                    t0 => break t0,
                }
            };
            if ready && t0 != 0 {
                probe::run(t0, &stop)
            } else {
                Lateness::default()
            }
        });
        let app_thread = s.spawn(|| {
            sys::tight_timer_slack();
            let dropped = sys::drop_thread_capabilities();
            let t0 = await_origin();
            let outcomes = apps::run(sockets, t0, interval, &mut info_traces, &stop, &finished);
            (dropped, outcomes)
        });
        // The main thread keeps time and its capabilities.
        while ready.load(Ordering::Acquire) < 2
            && !driver_thread.is_finished()
            && !app_thread.is_finished()
        {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        let t0 = sys::clock_ns();
        origin.store(t0, Ordering::Release);
        let (end, reason) = loop {
            let now = SimTime(sys::clock_ns() - t0);
            if cancel.load(Ordering::Relaxed) {
                break (now, StopReason::Interrupted);
            }
            if driver_thread.is_finished() {
                break (now, StopReason::TimeLimit); // it failed; its error says why
            }
            if plan.stop_when_finished && finished.load(Ordering::Relaxed) {
                break (now, StopReason::AllFlowsFinished);
            }
            if now >= plan.stop_at {
                let reason = if plan.stop_when_finished {
                    StopReason::TimeLimit
                } else {
                    StopReason::Duration
                };
                break (plan.stop_at, reason);
            }
            let left = plan.stop_at.0 - now.0;
            std::thread::sleep(std::time::Duration::from_nanos(left.min(1_000_000)));
        };
        stop.store(true, Ordering::Relaxed);
        let driver_result = driver_thread
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the driver thread panicked")));
        let outcomes = app_thread.join();
        let host_timer = probe_thread.join().unwrap_or_default();
        (driver_result, outcomes, end, reason, host_timer)
    });
    let wall = started.elapsed().as_secs_f64();
    // Sockets are closed (the applications returned them); the namespaces go now.
    let host_sysctls: Vec<(Vec<(String, String)>, Offloads)> = hosts
        .iter()
        .map(|h| (h.sysctls.clone(), h.offloads))
        .collect();
    let tun_dropped: Vec<Option<u64>> = plan
        .hosts
        .iter()
        .map(|h| tun_tx_dropped(&h.netns, &h.device))
        .collect();
    drop(hosts);
    spaces.remove_all();
    // Interrupted (Ctrl-C, SIGTERM): the threads stopped as at the end of a run, and what
    // they collected up to then is returned like a finished run's, with stop reason
    // "interrupted", for the caller to keep.
    driver_result.map_err(failed("the driver"))?;
    let (dropped, outcomes) =
        outcomes.map_err(|_| EmuError::Failed("the applications' thread panicked".into()))?;
    dropped.map_err(failed("dropping capabilities"))?;
    let mut by_flow: Vec<Option<FlowOutcome>> = vec![None; plan.flows.len()];
    for (flow, o) in flow_of_socket.into_iter().zip(outcomes) {
        by_flow[flow as usize] = Some(o);
    }
    let report_counts = std::mem::take(&mut driver.report);
    let output = collect(plan, &driver, &by_flow, end, stop_reason, wall);
    let (recorder, pcap) = driver.into_traces();
    let (mut traces, mut failures) = recorder.finish();
    failures.extend(pcap.and_then(|p| p.finish()));
    for (name, sink) in [
        ("cwnd", info_traces.cwnd),
        ("rtt", info_traces.rtt),
        ("cc", info_traces.cc),
    ] {
        if let Some(sink) = sink {
            sink.finish_into(name, &mut traces, &mut failures);
        }
    }
    let mut output = output;
    output.summary.events = report_counts.events;
    output.summary.peak_packets = report_counts.peak_packets;
    output.traces = traces;
    output.trace_failures = failures;
    let flows = kernel_flows(plan, &by_flow);
    let report = Report {
        lateness: report_counts.lateness.summary(),
        host_timer: host_timer.summary(),
        kernel_release: sys::kernel_release(),
        congestion_available: available,
        hosts: plan
            .hosts
            .iter()
            .zip(host_sysctls)
            .zip(tun_dropped)
            .map(|((h, (sysctls, offloads)), dropped)| HostReport {
                node: h.name.clone(),
                netns: h.netns.clone(),
                device: h.device.clone(),
                ip: ipv4(h.ip),
                sysctls,
                tun_tx_dropped: dropped,
                offloads: Some(offloads),
            })
            .collect(),
        mtu: plan.mtu,
        notes: plan.notes.clone(),
        stale_removed,
        ingress_packets: report_counts.ingress,
        stray_packets: report_counts.stray,
        oversize_packets: report_counts.oversize,
        write_errors: report_counts.write_errors,
        driver_busy_max: report_counts.busy_max,
        spin_suspended_s: report_counts.spin_suspended_ns as f64 / 1e9,
        tcp_info_interval_us: interval as f64 / 1e3,
        spin_us: request.spin.0 as f64 / 1e3,
        cpu: request.cpu,
        realtime: request.realtime,
        setup_and_teardown_s: wall,
    };
    Ok(Emulation {
        output,
        flows,
        report,
    })
}

/// The simulator's per-flow, per-link and summary rows, from the network's counters, the
/// driver's and the applications' outcomes.
fn collect(
    plan: &Plan,
    driver: &Driver,
    outcomes: &[Option<FlowOutcome>],
    end: SimTime,
    stop_reason: StopReason,
    wall_s: f64,
) -> RunOutput {
    let sc = &plan.scenario;
    let network = driver.network();
    let flows: Vec<FlowResult> = plan
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let track = &driver.flows[i];
            // The kernels' ECN is not observed here: no marks, no reductions.
            let mut row = FlowResult::counted(
                f.name.clone(),
                sc.nodes[f.src as usize].clone(),
                sc.nodes[f.dst as usize].clone(),
                &network.flow_counters()[i],
                &track.delays,
                end,
            );
            row.start = f.start;
            row.ideal_fct = f.ideal_fct;
            match &f.role {
                FlowRole::Tcp(t) => {
                    row.size_bytes = t.bytes;
                    row.first_send = track.first_data;
                    row.segments_sent = track.segments_sent;
                    if let Some(o) = &outcomes[i] {
                        row.variant = "kernel";
                        row.bytes_delivered = o.bytes_delivered;
                        row.finish = o.finished;
                        row.segments_delivered = o
                            .bytes_delivered
                            .div_ceil(track.segment_bytes.max(1) as u64);
                        if let Some(info) = &o.last {
                            row.retransmits = info.total_retrans as u64;
                            row.timeouts = info.total_rto.unwrap_or(0) as u64;
                        }
                    }
                }
                FlowRole::Cbr => {
                    if let Some(cbr) = &driver.cbr[i] {
                        row.set_cbr(&cbr.source, &cbr.sink, f.start);
                    }
                }
            }
            row
        })
        .collect();
    let links = network
        .dirs()
        .iter()
        .map(|dir| LinkResult::of(dir, &sc.nodes, end))
        .collect();
    let summary = RunSummary {
        seed: sc.seed,
        events: 0,
        sim_time: end,
        stop_reason,
        core_wall_time_s: wall_s,
        packets_delivered: flows.iter().map(|f| f.segments_delivered).sum(),
        peak_packets: 0,
        peak_flows: flows.len() as u64,
    };
    RunOutput {
        flows,
        links,
        stations: Vec::new(),
        summary,
        traces: Vec::new(),
        trace_failures: Vec::new(),
    }
}

/// What the kernel did for each flow.
fn kernel_flows(plan: &Plan, outcomes: &[Option<FlowOutcome>]) -> Vec<KernelFlow> {
    plan.flows
        .iter()
        .zip(outcomes)
        .map(|(f, o)| match (&f.role, o) {
            (FlowRole::Tcp(t), Some(o)) => KernelFlow {
                variant: t.requested.clone(),
                congestion: Some(t.congestion.clone()),
                sack: Some(t.sack),
                timeouts: o.last.as_ref().and_then(|i| i.total_rto).map(u64::from),
                handshake_rtt_us: o.at_handshake.as_ref().map(|i| i.rtt_us as f64),
                established_s: o.established.map(|t| t.as_secs_f64()),
                tcp_info: o.last,
                error: o.error.clone(),
            },
            _ => KernelFlow {
                variant: "cbr".to_string(),
                ..KernelFlow::default()
            },
        })
        .collect()
}

/// Datagrams the kernel dropped in a TUN device before the emulator read them (its ring was
/// full): losses the emulator's counters cannot see, reported so that none go unnoticed.
fn tun_tx_dropped(netns: &str, device: &str) -> Option<u64> {
    let out = std::process::Command::new(netns::ip_path().ok()?)
        .args(["-n", netns, "-s", "-j", "link", "show", "dev", device])
        .env_clear()
        .output()
        .ok()?;
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    doc.get(0)?
        .get("stats64")?
        .get("tx")?
        .get("dropped")?
        .as_u64()
}
