//! `cargo run --release -p renolab-emu --example emulate -- SCENARIO.json [TRACE...]`: runs
//! an emulation from Rust and prints its per-flow rows, its lateness and its notes (as root).

use std::sync::atomic::AtomicBool;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: emulate SCENARIO.json [TRACE...]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let mut request = renolab_emu::Request::default();
    request.traces.names = args.collect();
    request.realtime = std::env::var_os("NO_RT").is_none();
    if let Some(cpu) = std::env::var("CPU").ok().and_then(|c| c.parse().ok()) {
        request.cpu = Some(cpu);
    }
    match renolab_emu::emulate(&text, &request, &AtomicBool::new(false)) {
        Ok(e) => {
            for (row, k) in e.output.flows.iter().zip(&e.flows) {
                println!(
                    "{} {} ({:?}): {} bytes, {:.3} Mb/s, retransmits {}, drops {}, handshake RTT {:?} us",
                    row.flow,
                    k.variant,
                    k.congestion,
                    row.bytes_delivered,
                    row.throughput_bps() / 1e6,
                    row.retransmits,
                    row.drops,
                    k.handshake_rtt_us
                );
            }
            for l in &e.output.links {
                println!(
                    "{}: {} packets, {} queue drops, utilisation {:.3}",
                    l.link, l.packets_sent, l.queue_drops, l.utilisation
                );
            }
            println!("lateness: {:?}", e.report.lateness);
            println!("host timer: {:?}", e.report.host_timer);
            println!(
                "packets: in {}, stray {}, oversize {}",
                e.report.ingress_packets, e.report.stray_packets, e.report.oversize_packets
            );
            for n in &e.report.notes {
                println!("note: {n}");
            }
        }
        Err(err) => {
            eprintln!("error: {err}");
            std::process::exit(1);
        }
    }
}
