//! A resolved flow as JSON, every default explicit (what `renolab check --resolved` prints).

use serde_json::{json, Value};

use crate::scenario::{fmt_duration, fmt_rate, FlowSpec, Start, TcpSpec, Traffic};
use crate::tcp::cc::Variant;
use crate::tcp::recovery::newreno::HOE_SENDING;
use crate::tcp::recovery::RecoveryKind;

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

/// A TCP flow's settings as JSON (a flow's, or a workload's flows').
pub(in crate::scenario) fn tcp_json(t: &TcpSpec) -> Value {
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
    // Only under the Linux sender, so that other profiles' resolved scenarios read as
    // they always did.
    if s.dialect == crate::tcp::Dialect::Linux {
        options["gso"] = json!(s.gso.enabled);
        options["min_tso_segs"] = json!(s.gso.min_tso_segs);
        options["pacing_shift"] = json!(s.gso.pacing_shift);
    }
    if let Some(phase) = s.clock_phase {
        options["clock_phase"] = json!(fmt_duration(phase));
    }
    // Only when on, so that resolved scenarios without ECN read as they always did.
    if s.accecn {
        options["ecn"] = json!("accecn");
    } else if s.ecn {
        options["ecn"] = json!(true);
    }
    if let RecoveryKind::NewReno(c) = s.recovery {
        for (key, value) in c.describe() {
            options[key] = value;
        }
        if t.variant == Variant::Custom {
            options[HOE_SENDING.name] = json!(c.hoe_sending);
        }
    }
    for (key, value) in t.variant.describe() {
        options[key] = value;
    }
    // A legacy option naming the recovery shows the recovery resolved.
    if let Some((option, names)) = t.variant.declaration().and_then(|d| d.recovery.alias) {
        let shown = names
            .iter()
            .find(|(_, recovery)| *recovery == s.recovery.name())
            .or(names.last())
            .map_or("", |(value, _)| *value);
        options[option.name] = json!(shown);
    }
    if let (Some(c), Value::Object(o)) = (&t.custom, &mut options) {
        o.extend(c.args.iter().map(|(k, v)| (k.clone(), v.clone())));
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
