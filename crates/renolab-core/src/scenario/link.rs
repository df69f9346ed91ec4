//! `[[link]]` tables: duplex links, their queues and loss models, per direction.

use serde_json::{json, Value};

use super::profile::Profile;
use super::reader::Table;
use super::{
    check_name, fmt_duration, fmt_rate, DirSpec, FlowSpec, LinkSpec, LossSpec, QueueSpec, Result,
    ScenarioError,
};
use crate::queue::QueueLimit;
use crate::time::SimDuration;

/// Queue disciplines.
pub const QUEUE_KINDS: &[&str] = &["droptail"];
/// Loss models.
pub const LOSS_KINDS: &[&str] = &["drop", "uniform"];

const DIR_KEYS: &[&str] = &["rate", "delay", "queue", "loss"];

pub(super) fn parse_link(
    t: &Table<'_>,
    nodes: &[String],
    flows: &[String],
    profile: Profile,
) -> Result<LinkSpec> {
    let mut allowed = vec!["name", "from", "to", "reverse"];
    allowed.extend_from_slice(DIR_KEYS);
    t.only(&allowed)?;
    let node = |key: &str| -> u32 {
        let name = t.req_str(key).unwrap_or_default();
        nodes.iter().position(|n| n == name).unwrap_or(0) as u32
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
    })
}

/// A direction's settings; `base` supplies what a `reverse` table leaves out.
fn parse_dir(
    t: &Table<'_>,
    base: Option<&DirSpec>,
    flows: &[String],
    profile: Profile,
) -> Result<DirSpec> {
    let rate = match t.get("rate") {
        Some(v) => {
            let text = v.as_str().ok_or_else(|| {
                ScenarioError::new(
                    t.field("rate"),
                    format!("expected a rate such as \"10Mbps\", got {v}"),
                )
            })?;
            crate::units::parse_rate(text).map_err(|m| ScenarioError::new(t.field("rate"), m))?
        }
        None => match base {
            Some(b) => b.rate,
            None => {
                return Err(ScenarioError::new(
                    t.field("rate"),
                    "is required, e.g. \"10Mbps\"",
                ))
            }
        },
    };
    let delay = match t.duration_ns("delay")? {
        Some(d) => SimDuration(d),
        None => base.map_or(SimDuration::ZERO, |b| b.delay),
    };
    let queue = match t.table("queue")? {
        Some(q) => parse_queue(&q, profile)?,
        None => base.map_or(
            QueueSpec::DropTail {
                limit: QueueLimit::Packets(100),
                counts_transmitting: profile.queue_limit_counts_transmitting,
            },
            |b| b.queue,
        ),
    };
    let losses = match t.get("loss") {
        Some(_) => t
            .tables("loss")?
            .iter()
            .map(|l| parse_loss(l, flows))
            .collect::<Result<_>>()?,
        None => base.map_or_else(Vec::new, |b| b.losses.clone()),
    };
    Ok(DirSpec {
        rate,
        delay,
        queue,
        losses,
    })
}

fn parse_queue(q: &Table<'_>, profile: Profile) -> Result<QueueSpec> {
    let kind = q.choice("kind", QUEUE_KINDS)?.ok_or_else(|| {
        ScenarioError::new(
            q.field("kind"),
            format!("is required; allowed: {}", QUEUE_KINDS.join(", ")),
        )
    })?;
    match kind {
        "droptail" => {
            q.only(&["kind", "limit", "limit_bytes", "counts_transmitting"])?;
            let packets = q.int("limit", 1, u32::MAX as u64)?;
            let bytes = q.bytes("limit_bytes", 1, 1 << 40)?;
            let limit = match (packets, bytes) {
                (Some(_), Some(_)) => {
                    return Err(ScenarioError::new(
                        q.path(),
                        "give `limit` (packets) or `limit_bytes`, not both",
                    ))
                }
                (Some(p), None) => QueueLimit::Packets(p as u32),
                (None, Some(b)) => QueueLimit::Bytes(b),
                (None, None) => QueueLimit::Packets(100),
            };
            let counts_transmitting = q
                .bool("counts_transmitting")?
                .unwrap_or(profile.queue_limit_counts_transmitting);
            Ok(QueueSpec::DropTail {
                limit,
                counts_transmitting,
            })
        }
        _ => unreachable!("choice() only returns allowed kinds"),
    }
}

fn parse_loss(l: &Table<'_>, flows: &[String]) -> Result<LossSpec> {
    let kind = l.choice("kind", LOSS_KINDS)?.ok_or_else(|| {
        ScenarioError::new(
            l.field("kind"),
            format!("is required; allowed: {}", LOSS_KINDS.join(", ")),
        )
    })?;
    match kind {
        "drop" => {
            l.only(&["kind", "flow", "segments", "packets"])?;
            let flow = match l.str("flow")? {
                Some(name) => Some(flows.iter().position(|f| f == name).ok_or_else(|| {
                    ScenarioError::new(
                        l.field("flow"),
                        format!("unknown flow {name:?}; flows: {}", flows.join(", ")),
                    )
                })? as u32),
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
            Ok(LossSpec::Drop {
                flow,
                segments,
                packets,
            })
        }
        "uniform" => {
            l.only(&["kind", "p"])?;
            let p = l
                .float("p", 0.0, 1.0)?
                .ok_or_else(|| ScenarioError::new(l.field("p"), "is required, from 0 to 1"))?;
            Ok(LossSpec::Uniform { p })
        }
        _ => unreachable!("choice() only returns allowed kinds"),
    }
}

pub(super) fn dir_json(d: &DirSpec, flows: &[FlowSpec]) -> Value {
    let queue = match d.queue {
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(n),
            counts_transmitting,
        } => {
            json!({"kind": "droptail", "limit": n, "counts_transmitting": counts_transmitting})
        }
        QueueSpec::DropTail {
            limit: QueueLimit::Bytes(b),
            counts_transmitting,
        } => {
            json!({"kind": "droptail", "limit_bytes": b, "counts_transmitting": counts_transmitting})
        }
    };
    let losses: Vec<Value> = d
        .losses
        .iter()
        .map(|l| match l {
            LossSpec::Drop {
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
            LossSpec::Uniform { p } => json!({"kind": "uniform", "p": p}),
        })
        .collect();
    json!({
        "rate": fmt_rate(d.rate),
        "delay": fmt_duration(d.delay),
        "queue": queue,
        "loss": losses,
    })
}
