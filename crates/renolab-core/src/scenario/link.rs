//! `[[link]]` tables: duplex links, their queues, loss models and extra latency, per
//! direction; what may change during a run is read in [`super::varying`].

use serde_json::{json, Value};

use super::profile::Profile;
use super::reader::Table;
use super::varying::{self, parse_schedule};
use super::{
    check_name, fmt_duration, DirSpec, FlowSpec, LatencySpec, LinkSpec, LossKind, LossSpec, Names,
    QueueSpec, Result, ScenarioError,
};
use crate::loss::{AppliesTo, GilbertElliottConfig, LatencyDist};
use crate::queue::{
    CoDelConfig, DualPi2Config, EcnMask, FqCoDelConfig, QWeight, QueueLimit, RedConfig, StepThresh,
};
use crate::schedule::Schedule;
use crate::time::{SimDuration, SimTime};
use crate::units::BitsPerSec;

/// Queue disciplines.
pub const QUEUE_KINDS: &[&str] = &["droptail", "red", "codel", "fq_codel", "dualpi2"];
/// Loss models.
pub const LOSS_KINDS: &[&str] = &["drop", "uniform", "ber", "gilbert_elliott", "periodic"];
/// Extra-latency distributions.
pub const LATENCY_KINDS: &[&str] = &["fixed", "uniform", "normal", "lognormal"];

const DIR_KEYS: &[&str] = &["rate", "delay", "queue", "loss", "latency"];

/// Largest `limit_bytes` of a queue: 1 TiB.
const MAX_QUEUE_BYTES: u64 = 1 << 40;
/// Largest packet size a queue setting takes (`mean_pktsize`, `mtu`, `quantum`): 1 MiB, far
/// above any link's MTU.
const MAX_PACKET_SETTING: u64 = 1 << 20;

pub(super) fn parse_link(
    t: &Table<'_>,
    nodes: &Names,
    flows: &Names,
    profile: Profile,
) -> Result<LinkSpec> {
    let mut allowed = vec!["name", "from", "to", "reverse"];
    allowed.extend_from_slice(DIR_KEYS);
    allowed.push("outages");
    t.only(&allowed)?;
    let node = |key: &str| -> u32 {
        let name = t.req_str(key).unwrap_or_default();
        nodes.position(name).unwrap_or(0)
    };
    let (from, to) = (node("from"), node("to"));
    if from == to {
        return Err(ScenarioError::new(
            t.field("to"),
            "a link must join two different nodes",
        ));
    }
    let name = match t.str("name")? {
        Some(n) => {
            check_name(n).map_err(|m| ScenarioError::new(t.field("name"), m))?;
            n.to_string()
        }
        None => format!("{}-{}", nodes[from as usize], nodes[to as usize]),
    };
    let forward = parse_dir(t, None, flows, profile)?;
    let reverse = match t.table("reverse")? {
        Some(r) => {
            r.only(DIR_KEYS)?;
            parse_dir(&r, Some(&forward), flows, profile)?
        }
        None => forward.clone(),
    };
    Ok(LinkSpec {
        name,
        from,
        to,
        forward,
        reverse,
        outages: varying::parse_outages(t)?,
    })
}

/// A direction's settings; `base` supplies what a `reverse` table leaves out.
fn parse_dir(
    t: &Table<'_>,
    base: Option<&DirSpec>,
    flows: &Names,
    profile: Profile,
) -> Result<DirSpec> {
    let rate = match varying::parse_rate(t)? {
        Some(r) => r,
        None => match base {
            Some(b) => b.rate.clone(),
            None => {
                return Err(ScenarioError::new(
                    t.field("rate"),
                    "is required, e.g. \"10Mbps\"",
                ))
            }
        },
    };
    let delay = match varying::parse_delay(t)? {
        Some(d) => d,
        None => base.map_or(Schedule::constant(SimDuration::ZERO), |b| b.delay.clone()),
    };
    // RED sizes itself by one rate and delay: those at the start (a trace's mean rate).
    let (nominal_rate, initial_delay) = (rate.nominal(), *delay.at(SimTime::ZERO));
    let mut queue = match t.table("queue")? {
        Some(q) => parse_queue(&q, profile, nominal_rate, initial_delay)?,
        None => base.map_or(
            QueueSpec::DropTail {
                limit: QueueLimit::Packets(100),
                counts_transmitting: profile.queue_limit_counts_transmitting,
                ecn_threshold: None,
            },
            |b| b.queue,
        ),
    };
    if let QueueSpec::Red(cfg) = &mut queue {
        // An inherited RED queue serves this direction's link.
        cfg.link_rate = nominal_rate;
        cfg.link_delay = initial_delay;
    }
    let losses = match t.get("loss") {
        Some(_) => t
            .tables("loss")?
            .iter()
            .map(|l| parse_loss(l, flows))
            .collect::<Result<_>>()?,
        None => base.map_or_else(Vec::new, |b| b.losses.clone()),
    };
    let latency = match t.table("latency")? {
        Some(l) => Some(parse_latency(&l)?),
        None => base.and_then(|b| b.latency),
    };
    Ok(DirSpec {
        rate,
        delay,
        queue,
        losses,
        latency,
    })
}

fn required_kind<'a>(t: &Table<'a>, kinds: &[&str]) -> Result<&'a str> {
    t.choice("kind", kinds)?.ok_or_else(|| {
        ScenarioError::new(
            t.field("kind"),
            format!("is required; allowed: {}", kinds.join(", ")),
        )
    })
}

/// A queue's `limit` (packets) or `limit_bytes`, or `default`.
pub(super) fn parse_queue_limit(q: &Table<'_>, default: QueueLimit) -> Result<QueueLimit> {
    let packets = q.int("limit", 1, u32::MAX as u64)?;
    let bytes = q.bytes("limit_bytes", 1, MAX_QUEUE_BYTES)?;
    match (packets, bytes) {
        (Some(_), Some(_)) => Err(ScenarioError::new(
            q.path(),
            "give `limit` (packets) or `limit_bytes`, not both",
        )),
        (Some(p), None) => Ok(QueueLimit::Packets(p as u32)),
        (None, Some(b)) => Ok(QueueLimit::Bytes(b)),
        (None, None) => Ok(default),
    }
}

fn checked<T>(
    q: &Table<'_>,
    value: T,
    validate: impl Fn(&T) -> std::result::Result<(), String>,
) -> Result<T> {
    validate(&value).map_err(|m| ScenarioError::new(q.path(), m))?;
    Ok(value)
}

fn parse_queue(
    q: &Table<'_>,
    profile: Profile,
    rate: BitsPerSec,
    delay: SimDuration,
) -> Result<QueueSpec> {
    match required_kind(q, QUEUE_KINDS)? {
        "droptail" => {
            q.only(&[
                "kind",
                "limit",
                "limit_bytes",
                "counts_transmitting",
                "ecn_threshold",
            ])?;
            let limit = parse_queue_limit(q, QueueLimit::Packets(100))?;
            let counts_transmitting = q
                .bool("counts_transmitting")?
                .unwrap_or(profile.queue_limit_counts_transmitting);
            // DCTCP's step marking: K packets, or bytes with `limit_bytes`.
            let max_threshold = match limit {
                QueueLimit::Packets(n) => n as u64,
                QueueLimit::Bytes(b) => b,
            };
            let ecn_threshold = q.int("ecn_threshold", 1, max_threshold)?;
            Ok(QueueSpec::DropTail {
                limit,
                counts_transmitting,
                ecn_threshold,
            })
        }
        "red" => {
            q.only(&[
                "kind",
                "limit",
                "min_th",
                "max_th",
                "limit_bytes",
                "min_th_bytes",
                "max_th_bytes",
                "max_p",
                "w_q",
                "gentle",
                "wait",
                "byte_mode",
                "queue_in_bytes",
                "mean_pktsize",
                "target_delay",
                "ecn",
                "mark_p",
            ])?;
            let mut c = RedConfig::ns2(rate, delay);
            // The unit RED counts in: the profile's, unless the scenario says (`queue_in_bytes`,
            // or the `*_bytes` keys). ns-2 counts bytes in units of `mean_pktsize`; a user
            // who writes `limit = 100` outside the ns2 profile means 100 packets.
            c.queue_in_bytes = profile.red_counts_bytes;
            c.bytes = profile.red_counts_bytes;
            let byte_keys = ["limit_bytes", "min_th_bytes", "max_th_bytes"];
            let packet_keys = ["limit", "min_th", "max_th"];
            let given = |keys: [&'static str; 3]| keys.into_iter().find(|k| q.get(k).is_some());
            let explicit_unit = q.bool("queue_in_bytes")?;
            if let Some(byte_key) = given(byte_keys) {
                match (explicit_unit, given(packet_keys)) {
                    (Some(false), _) => {
                        return Err(ScenarioError::new(
                            q.field(byte_key),
                            "is in bytes, but queue_in_bytes = false counts packets; drop one of them",
                        ))
                    }
                    (None, Some(packet_key)) => {
                        return Err(ScenarioError::new(
                            q.field(packet_key),
                            format!("is in packets, but {byte_key} is in bytes; give RED's limit and thresholds in packets (limit, min_th, max_th) or in bytes (limit_bytes, min_th_bytes, max_th_bytes)"),
                        ))
                    }
                    _ => c.queue_in_bytes = true,
                }
            }
            c.mean_pktsize = q
                .int("mean_pktsize", 1, MAX_PACKET_SETTING)?
                .map_or(c.mean_pktsize, |n| n as u32);
            let mean = c.mean_pktsize as f64;
            c.limit = q
                .int("limit", 1, u32::MAX as u64)?
                .map_or(c.limit, |n| n as u32);
            c.limit_bytes = q.bytes("limit_bytes", 1, MAX_QUEUE_BYTES)?;
            c.min_thresh = q.float("min_th", 0.0, 1e9)?.or(c.min_thresh);
            c.max_thresh = q.float("max_th", 0.0, 1e9)?.or(c.max_thresh);
            // Byte thresholds become ns-2's: in units of mean_pktsize bytes.
            if let Some(b) = q.float("min_th_bytes", 0.0, 1e12)? {
                c.min_thresh = Some(b / mean);
            }
            if let Some(b) = q.float("max_th_bytes", 0.0, 1e12)? {
                c.max_thresh = Some(b / mean);
            }
            if let Some(p) = q.float("max_p", 1e-9, 1.0)? {
                c.linterm = 1.0 / p; // ns-2's linterm_ = 1 / max_p
            }
            if let Some(w) = q.get("w_q") {
                let w = w.as_f64().filter(|w| *w == -2.0 || *w == -1.0 || (0.0..=1.0).contains(w)).ok_or_else(|| {
                    ScenarioError::new(
                        q.field("w_q"),
                        format!("{w} is not allowed; use a weight in (0, 1], or ns-2's codes -1 (ten RTTs, default), 0 (1 - exp(-1/C)), -2 (1 - exp(-10/C))"),
                    )
                })?;
                c.q_weight = QWeight::from_ns2(w);
            }
            c.gentle = q.bool("gentle")?.unwrap_or(c.gentle);
            c.wait = q.bool("wait")?.unwrap_or(c.wait);
            c.bytes = q.bool("byte_mode")?.unwrap_or(c.bytes);
            c.queue_in_bytes = explicit_unit.unwrap_or(c.queue_in_bytes);
            c.target_delay = q
                .duration_ns("target_delay")?
                .map_or(c.target_delay, SimDuration);
            c.ecn = q.bool("ecn")?.unwrap_or(c.ecn);
            c.mark_p = q.float("mark_p", 0.0, 1.0)?.unwrap_or(c.mark_p);
            if let (Some(lo), Some(hi)) = (c.min_thresh, c.max_thresh) {
                if hi <= lo {
                    let (max_key, min_key) = if q.get("max_th_bytes").is_some() {
                        ("max_th_bytes", "min_th_bytes")
                    } else {
                        ("max_th", "min_th")
                    };
                    let unit = if max_key == "max_th" { 1.0 } else { mean };
                    return Err(ScenarioError::new(
                        q.field(max_key),
                        format!("({}) must be above {min_key} ({})", hi * unit, lo * unit),
                    ));
                }
            }
            Ok(QueueSpec::Red(checked(q, c, RedConfig::validate)?))
        }
        "codel" => {
            q.only(&[
                "kind",
                "limit",
                "limit_bytes",
                "target",
                "interval",
                "mtu",
                "ecn",
            ])?;
            let d = CoDelConfig::default();
            let c = CoDelConfig {
                target: q.duration_ns("target")?.map_or(d.target, SimDuration),
                interval: q.duration_ns("interval")?.map_or(d.interval, SimDuration),
                mtu: q
                    .int("mtu", 1, MAX_PACKET_SETTING)?
                    .map_or(d.mtu, |n| n as u32),
                limit: parse_queue_limit(q, d.limit)?,
                ecn: q.bool("ecn")?.unwrap_or(d.ecn),
            };
            Ok(QueueSpec::CoDel(checked(q, c, CoDelConfig::validate)?))
        }
        "fq_codel" => {
            q.only(&[
                "kind",
                "limit",
                "limit_bytes",
                "flows",
                "quantum",
                "target",
                "interval",
                "mtu",
                "drop_batch",
                "ecn",
            ])?;
            let d = FqCoDelConfig::default();
            let c = FqCoDelConfig {
                flows: q.int("flows", 1, 65_536)?.map_or(d.flows, |n| n as u32),
                quantum: q
                    .int("quantum", 1, MAX_PACKET_SETTING)?
                    .map_or(d.quantum, |n| n as u32),
                limit: parse_queue_limit(q, d.limit)?,
                drop_batch: q
                    .int("drop_batch", 1, 1 << 16)?
                    .map_or(d.drop_batch, |n| n as u32),
                target: q.duration_ns("target")?.map_or(d.target, SimDuration),
                interval: q.duration_ns("interval")?.map_or(d.interval, SimDuration),
                mtu: q
                    .int("mtu", 1, MAX_PACKET_SETTING)?
                    .map_or(d.mtu, |n| n as u32),
                ecn: q.bool("ecn")?.unwrap_or(d.ecn),
            };
            Ok(QueueSpec::FqCoDel(checked(q, c, FqCoDelConfig::validate)?))
        }
        "dualpi2" => parse_dualpi2(q),
        _ => unreachable!("choice() only returns allowed kinds"),
    }
}

/// A `dualpi2` queue: the keys of Linux's `tc qdisc ... dualpi2` with its defaults.
fn parse_dualpi2(q: &Table<'_>) -> Result<QueueSpec> {
    q.only(&[
        "kind",
        "limit",
        "limit_bytes",
        "target",
        "tupdate",
        "alpha",
        "beta",
        "step_thresh",
        "min_qlen_step",
        "coupling",
        "drop_overload",
        "drop_early",
        "c_protection",
        "ecn_mask",
        "mtu",
    ])?;
    let d = DualPi2Config::default();
    let gains = (DualPi2Config::MIN_GAIN_HZ, DualPi2Config::MAX_GAIN_HZ);
    // A duration ("1ms": sojourn time) or a whole number (packets in the L queue).
    let step_thresh = match q.get("step_thresh") {
        None => d.step_thresh,
        Some(serde_json::Value::String(_)) => {
            StepThresh::Delay(SimDuration(q.duration_ns("step_thresh")?.unwrap_or(0)))
        }
        Some(v) if v.is_u64() => {
            StepThresh::Packets(q.int("step_thresh", 0, u32::MAX as u64)?.unwrap_or(0) as u32)
        }
        Some(v) => {
            return Err(ScenarioError::new(
                q.field("step_thresh"),
                format!("expected a duration such as \"1ms\" or a number of packets, got {v}"),
            ))
        }
    };
    let ecn_mask = match q.choice("ecn_mask", &EcnMask::NAMES)? {
        Some(name) => EcnMask::from_name(name).unwrap_or(d.ecn_mask),
        None => d.ecn_mask,
    };
    let c = DualPi2Config {
        limit: parse_queue_limit(q, d.limit)?,
        target: q.duration_ns("target")?.map_or(d.target, SimDuration),
        tupdate: q.duration_ns("tupdate")?.map_or(d.tupdate, SimDuration),
        alpha: q.float("alpha", gains.0, gains.1)?.unwrap_or(d.alpha),
        beta: q.float("beta", gains.0, gains.1)?.unwrap_or(d.beta),
        step_thresh,
        min_qlen_step: q
            .int("min_qlen_step", 0, u32::MAX as u64)?
            .map_or(d.min_qlen_step, |n| n as u32),
        coupling: q.int("coupling", 1, 255)?.map_or(d.coupling, |n| n as u8),
        drop_overload: q.bool("drop_overload")?.unwrap_or(d.drop_overload),
        drop_early: q.bool("drop_early")?.unwrap_or(d.drop_early),
        c_protection: q
            .int("c_protection", 0, 100)?
            .map_or(d.c_protection, |n| n as u8),
        ecn_mask,
        mtu: q
            .int("mtu", 1, MAX_PACKET_SETTING)?
            .map_or(d.mtu, |n| n as u32),
    };
    Ok(QueueSpec::DualPi2(checked(q, c, DualPi2Config::validate)?))
}

/// A loss model table (`loss = { kind = ... }`), or a schedule of them (`loss = { schedule
/// = [["0s", { kind = ... }], ...] }`).
pub(super) fn parse_loss(l: &Table<'_>, flows: &Names) -> Result<LossSpec> {
    if l.get("schedule").is_none() {
        return parse_loss_model(l, flows);
    }
    l.only(&["schedule"])?;
    let models = parse_schedule(
        l,
        r#"["10s", { kind = "uniform", p = 0.01 }]"#,
        |path, v| {
            let model = Table::new(path, v)?;
            if model.get("schedule").is_some() {
                return Err(ScenarioError::new(
                    model.field("schedule"),
                    "a scheduled loss model's steps are loss models, not schedules",
                ));
            }
            parse_loss_model(&model, flows)
        },
    )?;
    Ok(LossSpec {
        kind: LossKind::Schedule(models),
        applies_to: AppliesTo::All,
    })
}

/// One loss model (`{ kind = ... }`).
fn parse_loss_model(l: &Table<'_>, flows: &Names) -> Result<LossSpec> {
    let applies_to = match l.choice("applies_to", &["data", "ack", "all"])? {
        Some("data") => AppliesTo::Data,
        Some("ack") => AppliesTo::Ack,
        _ => AppliesTo::All,
    };
    let probability = |key: &str| -> Result<f64> {
        l.float(key, 0.0, 1.0)?
            .ok_or_else(|| ScenarioError::new(l.field(key), "is required, from 0 to 1"))
    };
    let kind = match required_kind(l, LOSS_KINDS)? {
        "drop" => {
            l.only(&["kind", "flow", "segments", "packets", "applies_to"])?;
            let flow = match l.str("flow")? {
                Some(name) => Some(flows.position(name).ok_or_else(|| {
                    ScenarioError::new(
                        l.field("flow"),
                        format!("unknown flow {name:?}; flows: {}", flows.join(", ")),
                    )
                })?),
                None => None,
            };
            let segments: Vec<u32> = l
                .ints("segments", 0, u32::MAX as u64)?
                .into_iter()
                .map(|s| s as u32)
                .collect();
            if !segments.is_empty() && flow.is_none() {
                return Err(ScenarioError::new(
                    l.field("flow"),
                    "is required when `segments` are listed",
                ));
            }
            let packets = l.ints("packets", 0, u64::MAX)?;
            LossKind::Drop {
                flow,
                segments,
                packets,
            }
        }
        "uniform" => {
            l.only(&["kind", "p", "applies_to"])?;
            LossKind::Uniform {
                p: probability("p")?,
            }
        }
        "ber" => {
            l.only(&["kind", "ber", "applies_to"])?;
            LossKind::Ber {
                ber: probability("ber")?,
            }
        }
        "gilbert_elliott" => {
            l.only(&[
                "kind",
                "p_gb",
                "p_bg",
                "loss_good",
                "loss_bad",
                "applies_to",
            ])?;
            let c = GilbertElliottConfig {
                p_gb: probability("p_gb")?,
                p_bg: probability("p_bg")?,
                loss_good: l.float("loss_good", 0.0, 1.0)?.unwrap_or(0.0),
                loss_bad: l.float("loss_bad", 0.0, 1.0)?.unwrap_or(1.0),
            };
            LossKind::GilbertElliott(checked(l, c, GilbertElliottConfig::validate)?)
        }
        "periodic" => {
            l.only(&["kind", "every", "offset", "applies_to"])?;
            let every = l.int("every", 1, u64::MAX)?.ok_or_else(|| {
                ScenarioError::new(
                    l.field("every"),
                    "is required: drop every N-th packet, e.g. 1000",
                )
            })?;
            LossKind::Periodic {
                every,
                offset: l.int("offset", 0, u64::MAX)?.unwrap_or(0),
            }
        }
        _ => unreachable!("choice() only returns allowed kinds"),
    };
    Ok(LossSpec { kind, applies_to })
}

fn parse_latency(l: &Table<'_>) -> Result<LatencySpec> {
    let dur = |key: &str| -> Result<SimDuration> {
        l.duration_ns(key)?
            .map(SimDuration)
            .ok_or_else(|| ScenarioError::new(l.field(key), "is required, e.g. \"1ms\""))
    };
    let dist = match required_kind(l, LATENCY_KINDS)? {
        "fixed" => {
            l.only(&["kind", "delay", "reorder"])?;
            LatencyDist::Fixed(dur("delay")?)
        }
        "uniform" => {
            l.only(&["kind", "min", "max", "reorder"])?;
            let (lo, hi) = (dur("min")?, dur("max")?);
            if hi < lo {
                return Err(ScenarioError::new(l.field("max"), "must not be below min"));
            }
            LatencyDist::Uniform { lo, hi }
        }
        "normal" => {
            l.only(&["kind", "mean", "sd", "reorder"])?;
            LatencyDist::Normal {
                mean: dur("mean")?,
                sd: dur("sd")?,
            }
        }
        "lognormal" => {
            l.only(&["kind", "median", "p99", "reorder"])?;
            let (median, p99) = (dur("median")?, dur("p99")?);
            if median.0 == 0 {
                return Err(ScenarioError::new(l.field("median"), "must be above 0"));
            }
            if p99 < median {
                return Err(ScenarioError::new(
                    l.field("p99"),
                    "must not be below median",
                ));
            }
            LatencyDist::LogNormal { median, p99 }
        }
        _ => unreachable!("choice() only returns allowed kinds"),
    };
    Ok(LatencySpec {
        dist,
        reorder: l.bool("reorder")?.unwrap_or(false),
    })
}

fn limit_json(v: &mut Value, limit: QueueLimit) {
    match limit {
        QueueLimit::Packets(n) => v["limit"] = json!(n),
        QueueLimit::Bytes(b) => v["limit_bytes"] = json!(b),
    }
}

pub(super) fn dir_json(d: &DirSpec, flows: &[FlowSpec]) -> Value {
    let queue = match d.queue {
        QueueSpec::DropTail {
            limit,
            counts_transmitting,
            ecn_threshold,
        } => {
            let mut v = json!({"kind": "droptail", "counts_transmitting": counts_transmitting});
            limit_json(&mut v, limit);
            if let Some(k) = ecn_threshold {
                v["ecn_threshold"] = json!(k);
            }
            v
        }
        QueueSpec::Red(c) => {
            let w_q = match c.q_weight {
                QWeight::Fixed(w) => w,
                QWeight::OneOverCapacity => 0.0,
                QWeight::TenRtts => -1.0,
                QWeight::TenOverCapacity => -2.0,
            };
            let mut v = json!({
                "kind": "red", "max_p": 1.0 / c.linterm, "w_q": w_q, "gentle": c.gentle,
                "wait": c.wait, "byte_mode": c.bytes, "queue_in_bytes": c.queue_in_bytes,
                "mean_pktsize": c.mean_pktsize, "target_delay": fmt_duration(c.target_delay),
            });
            match c.limit_bytes {
                Some(b) => v["limit_bytes"] = json!(b),
                None => v["limit"] = json!(c.limit),
            }
            if let Some(t) = c.min_thresh {
                v["min_th"] = json!(t);
            }
            if let Some(t) = c.max_thresh {
                v["max_th"] = json!(t);
            }
            // ECN keys only when marking, so that resolved scenarios without ECN read as
            // they always did.
            if c.ecn {
                v["ecn"] = json!(true);
                v["mark_p"] = json!(c.mark_p);
            }
            v
        }
        QueueSpec::CoDel(c) => {
            let mut v = json!({"kind": "codel", "target": fmt_duration(c.target), "interval": fmt_duration(c.interval), "mtu": c.mtu});
            limit_json(&mut v, c.limit);
            if c.ecn {
                v["ecn"] = json!(true);
            }
            v
        }
        QueueSpec::FqCoDel(c) => {
            let mut v = json!({
                "kind": "fq_codel", "flows": c.flows, "quantum": c.quantum, "drop_batch": c.drop_batch,
                "target": fmt_duration(c.target), "interval": fmt_duration(c.interval), "mtu": c.mtu,
            });
            limit_json(&mut v, c.limit);
            if c.ecn {
                v["ecn"] = json!(true);
            }
            v
        }
        QueueSpec::DualPi2(c) => {
            let step_thresh = match c.step_thresh {
                StepThresh::Delay(d) => json!(fmt_duration(d)),
                StepThresh::Packets(n) => json!(n),
            };
            let mut v = json!({
                "kind": "dualpi2", "target": fmt_duration(c.target),
                "tupdate": fmt_duration(c.tupdate), "alpha": c.alpha, "beta": c.beta,
                "step_thresh": step_thresh, "min_qlen_step": c.min_qlen_step,
                "coupling": c.coupling, "drop_overload": c.drop_overload,
                "drop_early": c.drop_early, "c_protection": c.c_protection,
                "ecn_mask": c.ecn_mask.name(), "mtu": c.mtu,
            });
            limit_json(&mut v, c.limit);
            v
        }
    };
    let losses: Vec<Value> = d.losses.iter().map(|l| loss_json(l, flows)).collect();
    let mut v = json!({
        "rate": varying::rate_json(&d.rate),
        "delay": varying::delay_json(&d.delay),
        "queue": queue,
        "loss": losses,
    });
    if let Some(l) = d.latency {
        v["latency"] = match l.dist {
            LatencyDist::Fixed(d) => json!({"kind": "fixed", "delay": fmt_duration(d)}),
            LatencyDist::Uniform { lo, hi } => {
                json!({"kind": "uniform", "min": fmt_duration(lo), "max": fmt_duration(hi)})
            }
            LatencyDist::Normal { mean, sd } => {
                json!({"kind": "normal", "mean": fmt_duration(mean), "sd": fmt_duration(sd)})
            }
            LatencyDist::LogNormal { median, p99 } => {
                json!({"kind": "lognormal", "median": fmt_duration(median), "p99": fmt_duration(p99)})
            }
        };
        v["latency"]["reorder"] = json!(l.reorder);
    }
    v
}

/// A loss model as the resolved scenario writes it.
pub(super) fn loss_json(l: &LossSpec, flows: &[FlowSpec]) -> Value {
    let mut v = match &l.kind {
        LossKind::Drop {
            flow,
            segments,
            packets,
        } => {
            let mut v = json!({"kind": "drop", "segments": segments, "packets": packets});
            if let Some(f) = flow {
                v["flow"] = json!(flows[*f as usize].name);
            }
            v
        }
        LossKind::Uniform { p } => json!({"kind": "uniform", "p": p}),
        LossKind::Ber { ber } => json!({"kind": "ber", "ber": ber}),
        LossKind::GilbertElliott(c) => json!({
            "kind": "gilbert_elliott", "p_gb": c.p_gb, "p_bg": c.p_bg,
            "loss_good": c.loss_good, "loss_bad": c.loss_bad,
        }),
        LossKind::Periodic { every, offset } => {
            json!({"kind": "periodic", "every": every, "offset": offset})
        }
        LossKind::Schedule(models) => {
            return varying::schedule_json(models, |m| loss_json(m, flows));
        }
    };
    v["applies_to"] = json!(match l.applies_to {
        AppliesTo::Data => "data",
        AppliesTo::Ack => "ack",
        AppliesTo::All => "all",
    });
    v
}
