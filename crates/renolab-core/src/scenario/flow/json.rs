//! A resolved flow as JSON, every default explicit (what `renolab check --resolved` prints).

use serde_json::{json, Value};

use crate::scenario::{fmt_duration, fmt_rate, FlowSpec, Start, TcpSpec, Traffic, Variant};
use crate::tcp::cc::bbr::gain_value;
use crate::tcp::recovery::{RecoveryKind, RetransmitGuard, TimerReset};

/// The resolved flow as JSON, every default explicit.
pub(in crate::scenario) fn flow_json(f: &FlowSpec, nodes: &[String]) -> Value {
    let mut v = json!({
        "name": f.name,
        "src": nodes[f.src as usize],
        "dst": nodes[f.dst as usize],
        "start": match f.start {
            Start::At(t) => json!(fmt_duration(t)),
            Start::Uniform { lo, hi } => json!({"uniform": [fmt_duration(lo), fmt_duration(hi)]}),
        },
    });
    if let Some(stop) = f.stop {
        v["stop"] = json!(fmt_duration(stop));
    }
    let fields = match &f.traffic {
        Traffic::Tcp(tcp) => tcp_json(tcp),
        Traffic::Cbr(c) => json!({
            "kind": "cbr",
            "rate": fmt_rate(c.rate),
            "packet_bytes": c.packet_bytes,
            "jitter": c.jitter,
        }),
    };
    if let (Value::Object(a), Value::Object(b)) = (&mut v, fields) {
        a.extend(b);
    }
    v
}

fn tcp_json(t: &TcpSpec) -> Value {
    let s = &t.sender;
    let mut options = json!({
        "initial_window": s.initial_window,
        "initial_ssthresh": s.initial_ssthresh,
        "window": s.receiver_window,
        "dupack_threshold": s.dupack_threshold,
        "initial_rto": fmt_duration(s.rto.initial),
        "min_rto": fmt_duration(s.rto.min),
        "max_rto": fmt_duration(s.rto.max),
        "clock_granularity": fmt_duration(s.rto.granularity),
        "handshake": s.handshake,
        "limited_transmit": s.limited_transmit,
        "pacing": s.pacing,
    });
    if let Some(phase) = s.clock_phase {
        options["clock_phase"] = json!(fmt_duration(phase));
    }
    // Only when on, so that resolved scenarios without ECN read as they always did.
    if s.ecn {
        options["ecn"] = json!(true);
    }
    if let RecoveryKind::NewReno(c) = s.recovery {
        options["partial_window_deflation"] = json!(c.partial_window_deflation);
        options["timer_reset"] = json!(match c.timer_reset {
            TimerReset::SlowButSteady => "slow_but_steady",
            TimerReset::Impatient => "impatient",
        });
        options["careful"] = match c.careful {
            RetransmitGuard::AfterRecover => json!(true),
            RetransmitGuard::Heuristic => json!("less"),
            RetransmitGuard::Off => json!(false),
        };
        if t.variant == Variant::Custom {
            options["hoe_sending"] = json!(c.hoe_sending);
        }
    }
    match t.variant {
        Variant::NewReno {
            ssthresh_estimation,
        } => {
            options["ssthresh_estimation"] = json!(ssthresh_estimation);
        }
        Variant::Sack => {
            options["sack_recovery"] = json!(match s.recovery {
                RecoveryKind::Sack => "ns2",
                _ => "rfc6675",
            });
        }
        Variant::Vegas(c) => {
            options["alpha"] = json!(c.alpha);
            options["beta"] = json!(c.beta);
            options["gamma"] = json!(c.gamma);
        }
        Variant::Cubic(c) => {
            // The values the kernel arithmetic uses (0.7 is 717/1024).
            options["beta"] = json!(c.beta_f64());
            options["c"] = json!(c.c_f64());
            options["fast_convergence"] = json!(c.fast_convergence);
            options["hystart"] = json!(c.hystart.name());
        }
        Variant::Bbr(c) => {
            for (key, units) in [
                ("high_gain", c.high_gain),
                ("drain_gain", c.drain_gain),
                ("cwnd_gain", c.cwnd_gain),
                ("full_bw_thresh", c.full_bw_thresh),
                ("extra_acked_gain", c.extra_acked_gain),
                ("lt_loss_thresh", c.lt_loss_thresh),
            ] {
                options[key] = json!(gain_value(units));
            }
            for (key, n) in [
                ("bw_rtts", c.bw_rtts),
                ("min_rtt_win_sec", c.min_rtt_win_sec),
                ("probe_rtt_mode_ms", c.probe_rtt_mode_ms),
                ("cwnd_min_target", c.cwnd_min_target),
                ("full_bw_cnt", c.full_bw_cnt),
                ("extra_acked_win_rtts", c.extra_acked_win_rtts),
                ("extra_acked_max_us", c.extra_acked_max_us),
                ("lt_intvl_min_rtts", c.lt_intvl_min_rtts),
                ("lt_bw_max_rtts", c.lt_bw_max_rtts),
                ("pacing_margin_percent", c.pacing_margin_percent),
            ] {
                options[key] = json!(n);
            }
        }
        Variant::Custom => {
            if let (Some(c), Value::Object(o)) = (&t.custom, &mut options) {
                o.extend(c.args.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        Variant::Tahoe | Variant::Reno | Variant::Dctcp => {}
    }
    let variant = match &t.custom {
        Some(c) => c.reference.as_str(),
        None => t.variant.name(),
    };
    let mut v = json!({
        "kind": "tcp",
        "variant": variant,
        "recovery": s.recovery.name(),
        "profile": t.profile,
        "mss": t.mss,
        "header_bytes": s.header_bytes,
        "receiver": {
            "delayed_ack": t.receiver.delayed_ack,
            "ack_every": t.receiver.ack_every,
            "delack_timeout": fmt_duration(t.receiver.delack_timeout),
            "ack_bytes": t.receiver.ack_bytes,
        },
        "options": options,
    });
    if let Some(b) = t.bytes {
        v["bytes"] = json!(b);
    }
    v
}
