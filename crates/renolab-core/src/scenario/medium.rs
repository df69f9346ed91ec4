//! `[[medium]]` tables: shared wireless media with an 802.11 MAC, their nodes (stations),
//! rates, interface queues and per-station loss models.
//!
//! ```toml
//! [[medium]]
//! name = "wlan"
//! kind = "wifi"
//! standard = "802.11b"          # or "802.11g"
//! data_rate = "11Mbps"          # data frames
//! basic_rate = "1Mbps"          # control frames (Ack, RTS, CTS)
//! nodes = ["ap", "sta1", "sta2"]
//! loss = { kind = "ber", ber = 1e-6 }      # at every station's receiver
//! [medium.station.sta1]                     # one station's own settings
//! loss = { kind = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3 }
//! queue = { kind = "droptail", limit = 50 }
//! ```

use serde_json::{json, Value};

use super::link::{loss_json, parse_loss, parse_queue_limit};
use super::reader::Table;
use super::{check_name, FlowSpec, LossSpec, Names, Result, ScenarioError};
use crate::net::wifi::{phy, MacConfig, Phy, Standard, STANDARDS};
use crate::queue::QueueLimit;
use crate::units::BitsPerSec;

/// Kinds of media.
pub const MEDIUM_KINDS: &[&str] = &["wifi"];

/// A station's interface queue unless the scenario says otherwise: ns-3's `WifiMacQueue`
/// default, 500 packets (the frame being sent counted).
pub const DEFAULT_STATION_QUEUE: QueueLimit = QueueLimit::Packets(500);
/// Largest `rts_threshold`: dot11RTSThreshold's range ends at 65536 (Annex C); a frame is
/// never longer.
const MAX_RTS_THRESHOLD: u64 = 65_535;
/// Largest retry limit: dot11ShortRetryLimit and dot11LongRetryLimit are 1 to 255.
const MAX_RETRY_LIMIT: u64 = 255;
/// Most nodes a medium may join (routing expands a medium once per destination).
pub const MAX_MEDIUM_NODES: usize = 10_000;

const MEDIUM_KEYS: &[&str] = &[
    "name",
    "kind",
    "standard",
    "data_rate",
    "basic_rate",
    "nodes",
    "queue",
    "loss",
    "rts_threshold",
    "short_retry_limit",
    "long_retry_limit",
    "station",
];
const STATION_KEYS: &[&str] = &["queue", "loss"];

/// One node's station on a medium.
#[derive(Clone, Debug, PartialEq)]
pub struct StationSpec {
    /// The node.
    pub node: u32,
    /// Its interface queue's limit (the frame being sent counted).
    pub queue: QueueLimit,
    /// Loss models judging the frames addressed to it.
    pub losses: Vec<LossSpec>,
}

/// A shared medium.
#[derive(Clone, Debug, PartialEq)]
pub struct MediumSpec {
    /// Name.
    pub name: String,
    /// The 802.11 standard.
    pub standard: Standard,
    /// Rate of data frames.
    pub data_rate: BitsPerSec,
    /// Rate of control frames.
    pub basic_rate: BitsPerSec,
    /// MPDUs longer than this many bytes go after RTS/CTS; `None`: never.
    pub rts_threshold: Option<u32>,
    /// dot11ShortRetryLimit.
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit.
    pub long_retry_limit: u32,
    /// Its stations, one per node, in the order of `nodes`.
    pub stations: Vec<StationSpec>,
}

impl MediumSpec {
    /// The PHY timing (the rates were checked against the standard).
    pub fn phy(&self) -> Phy {
        Phy::new(self.standard, self.data_rate.0, self.basic_rate.0)
            .expect("validated rates of the standard")
    }

    /// The MAC settings.
    pub fn mac(&self) -> MacConfig {
        MacConfig {
            phy: self.phy(),
            rts_threshold: self.rts_threshold,
            short_retry_limit: self.short_retry_limit,
            long_retry_limit: self.long_retry_limit,
        }
    }

    /// Its nodes, in order.
    pub fn nodes(&self) -> Vec<u32> {
        self.stations.iter().map(|s| s.node).collect()
    }

    /// The position of `node`'s station, if the node is on this medium.
    pub fn station_of(&self, node: u32) -> Option<u32> {
        self.stations
            .iter()
            .position(|s| s.node == node)
            .map(|p| p as u32)
    }
}

/// A rate in megabits, as the standards name them (`"5.5Mbps"`).
pub fn fmt_wifi_rate(bps: u64) -> String {
    format!("{}Mbps", bps as f64 / 1e6)
}

/// The node names a `[[medium]]` table joins (for numbering nodes before anything else is
/// parsed).
pub(super) fn node_names<'a>(t: &Table<'a>) -> Result<Vec<&'a str>> {
    let field = t.field("nodes");
    let items = match t.get("nodes") {
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(ScenarioError::new(
                field,
                "expected an array of node names, e.g. [\"ap\", \"sta1\"]",
            ))
        }
        None => {
            return Err(ScenarioError::new(
                field,
                "is required: the names of the nodes on the medium, e.g. [\"ap\", \"sta1\"]",
            ))
        }
    };
    if items.len() < 2 {
        return Err(ScenarioError::new(
            field,
            "a medium needs at least two nodes",
        ));
    }
    if items.len() > MAX_MEDIUM_NODES {
        return Err(ScenarioError::new(
            field,
            format!(
                "{} nodes is more than the {MAX_MEDIUM_NODES} a medium may join",
                items.len()
            ),
        ));
    }
    let mut names: Vec<&str> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("{field}[{i}]");
        let name = item.as_str().ok_or_else(|| {
            ScenarioError::new(&path, format!("expected a node name, got {item}"))
        })?;
        check_name(name).map_err(|m| ScenarioError::new(&path, m))?;
        if names.contains(&name) {
            return Err(ScenarioError::new(
                path,
                format!("{name:?} is already on this medium"),
            ));
        }
        names.push(name);
    }
    Ok(names)
}

/// The medium of table `t`, whose nodes `nodes` numbers; `flows` for drop lists.
pub(super) fn parse_medium(t: &Table<'_>, nodes: &Names, flows: &Names) -> Result<MediumSpec> {
    t.only(MEDIUM_KEYS)?;
    let name = t.req_str("name")?;
    check_name(name).map_err(|m| ScenarioError::new(t.field("name"), m))?;
    t.choice("kind", MEDIUM_KINDS)?.ok_or_else(|| {
        ScenarioError::new(
            t.field("kind"),
            format!("is required; allowed: {}", MEDIUM_KINDS.join(", ")),
        )
    })?;
    let standard = t
        .choice("standard", STANDARDS)?
        .and_then(Standard::by_name)
        .unwrap_or(Standard::B);
    let rate = |key: &str, default: u64| -> Result<BitsPerSec> {
        let Some(v) = t.get(key) else {
            return Ok(BitsPerSec(default));
        };
        let allowed = || {
            let rates: Vec<String> = standard.rates().iter().map(|&r| fmt_wifi_rate(r)).collect();
            rates.join(", ")
        };
        let text = v.as_str().ok_or_else(|| {
            ScenarioError::new(
                t.field(key),
                format!("expected a rate such as \"11Mbps\", got {v}"),
            )
        })?;
        let bps =
            crate::units::parse_rate(text).map_err(|m| ScenarioError::new(t.field(key), m))?;
        if standard.modulation(bps.0).is_none() {
            return Err(ScenarioError::new(
                t.field(key),
                format!(
                    "{text:?} is not a rate of {}; allowed: {}",
                    standard.name(),
                    allowed()
                ),
            ));
        }
        Ok(bps)
    };
    let data_rate = rate("data_rate", standard.default_data_rate())?;
    let basic_rate = rate("basic_rate", standard.default_basic_rate())?;
    let rts_threshold = t
        .int("rts_threshold", 0, MAX_RTS_THRESHOLD)?
        .map(|n| n as u32);
    let short_retry_limit = t
        .int("short_retry_limit", 1, MAX_RETRY_LIMIT)?
        .map_or(phy::DEFAULT_SHORT_RETRY_LIMIT, |n| n as u32);
    let long_retry_limit = t
        .int("long_retry_limit", 1, MAX_RETRY_LIMIT)?
        .map_or(phy::DEFAULT_LONG_RETRY_LIMIT, |n| n as u32);
    let queue = match t.table("queue")? {
        Some(q) => parse_station_queue(&q)?,
        None => DEFAULT_STATION_QUEUE,
    };
    let losses = parse_losses(t, flows)?.unwrap_or_default();
    let members = node_names(t)?;
    let mut stations: Vec<StationSpec> = members
        .iter()
        .map(|name| StationSpec {
            node: nodes.position(name).expect("numbered before"),
            queue,
            losses: losses.clone(),
        })
        .collect();
    if let Some(own) = t.table("station")? {
        for key in own.keys() {
            let Some(position) = members.iter().position(|m| *m == key) else {
                return Err(ScenarioError::new(
                    own.field(key),
                    format!(
                        "unknown node {key:?}; nodes of this medium: {}",
                        members.join(", ")
                    ),
                ));
            };
            let s = own.table(key)?.expect("present");
            s.only(STATION_KEYS)?;
            if let Some(q) = s.table("queue")? {
                stations[position].queue = parse_station_queue(&q)?;
            }
            if let Some(l) = parse_losses(&s, flows)? {
                stations[position].losses = l;
            }
        }
    }
    Ok(MediumSpec {
        name: name.to_string(),
        standard,
        data_rate,
        basic_rate,
        rts_threshold,
        short_retry_limit,
        long_retry_limit,
        stations,
    })
}

/// A station's interface queue: drop-tail only.
fn parse_station_queue(q: &Table<'_>) -> Result<QueueLimit> {
    q.choice("kind", &["droptail"])?
        .ok_or_else(|| ScenarioError::new(q.field("kind"), "is required; allowed: droptail"))?;
    q.only(&["kind", "limit", "limit_bytes"])?;
    parse_queue_limit(q, DEFAULT_STATION_QUEUE)
}

/// The `loss` of `t` (one model or an array), if given.
fn parse_losses(t: &Table<'_>, flows: &Names) -> Result<Option<Vec<LossSpec>>> {
    if t.get("loss").is_none() {
        return Ok(None);
    }
    let losses = t
        .tables("loss")?
        .iter()
        .map(|l| parse_loss(l, flows))
        .collect::<Result<_>>()?;
    Ok(Some(losses))
}

/// The medium as the resolved scenario writes it: every default explicit, each station's
/// queue and losses under `station`.
pub(super) fn medium_json(m: &MediumSpec, nodes: &[String], flows: &[FlowSpec]) -> Value {
    let station: serde_json::Map<String, Value> = m
        .stations
        .iter()
        .map(|s| {
            let mut queue = json!({"kind": "droptail"});
            match s.queue {
                QueueLimit::Packets(n) => queue["limit"] = json!(n),
                QueueLimit::Bytes(b) => queue["limit_bytes"] = json!(b),
            }
            let losses: Vec<Value> = s.losses.iter().map(|l| loss_json(l, flows)).collect();
            (
                nodes[s.node as usize].clone(),
                json!({"queue": queue, "loss": losses}),
            )
        })
        .collect();
    let mut v = json!({
        "name": m.name,
        "kind": "wifi",
        "standard": m.standard.name(),
        "data_rate": fmt_wifi_rate(m.data_rate.0),
        "basic_rate": fmt_wifi_rate(m.basic_rate.0),
        "nodes": m.stations.iter().map(|s| nodes[s.node as usize].clone()).collect::<Vec<_>>(),
        "short_retry_limit": m.short_retry_limit,
        "long_retry_limit": m.long_retry_limit,
        "station": station,
    });
    if let Some(t) = m.rts_threshold {
        v["rts_threshold"] = json!(t);
    }
    v
}

#[cfg(test)]
mod tests {
    use crate::net::wifi::Standard;
    use crate::queue::QueueLimit;
    use crate::scenario::{LossKind, Scenario};
    use crate::units::BitsPerSec;

    const WLAN: &str = r#"
        simulation = { duration = "10s" }
        [[link]]
        from = "server"
        to = "ap"
        rate = "100Mbps"
        [[medium]]
        name = "wlan"
        kind = "wifi"
        nodes = ["ap", "sta1", "sta2"]
        [[flow]]
        name = "up"
        src = "sta1"
        dst = "server"
    "#;

    #[test]
    fn a_medium_adds_its_nodes_after_the_links_and_takes_80211b_defaults() {
        let s = Scenario::from_toml_str(WLAN).unwrap();
        assert_eq!(s.nodes, ["server", "ap", "sta1", "sta2"]);
        let m = &s.media[0];
        assert_eq!(m.standard, Standard::B);
        assert_eq!(
            (m.data_rate, m.basic_rate),
            (BitsPerSec(11_000_000), BitsPerSec(1_000_000))
        );
        assert_eq!(
            (m.short_retry_limit, m.long_retry_limit, m.rts_threshold),
            (7, 4, None)
        );
        assert_eq!(m.nodes(), [1, 2, 3]);
        assert!(m
            .stations
            .iter()
            .all(|s| s.queue == QueueLimit::Packets(500)));
        assert_eq!(
            s.place_names(),
            [
                "server-ap",
                "server-ap/rev",
                "wlan/ap",
                "wlan/sta1",
                "wlan/sta2"
            ]
        );
        // sta1 -> server: across the medium to the access point, then the link.
        let routes = s.routes();
        assert_eq!(
            routes.next_hop(2, 0).map(|c| routes.medium_hop(c).node),
            Some(1)
        );
    }

    #[test]
    fn a_station_s_own_loss_and_queue_replace_the_medium_s() {
        let text = WLAN.replace(
            "nodes = [\"ap\", \"sta1\", \"sta2\"]",
            "nodes = [\"ap\", \"sta1\", \"sta2\"]\n        loss = { kind = \"ber\", ber = 1e-6 }\n        station.sta2 = { loss = { kind = \"uniform\", p = 0.1 }, queue = { kind = \"droptail\", limit_bytes = 32000 } }",
        );
        let s = Scenario::from_toml_str(&text).unwrap();
        let [ap, _, sta2] = &s.media[0].stations[..] else {
            panic!()
        };
        assert_eq!(ap.losses[0].kind, LossKind::Ber { ber: 1e-6 });
        assert_eq!(sta2.losses[0].kind, LossKind::Uniform { p: 0.1 });
        assert_eq!(sta2.queue, QueueLimit::Bytes(32000));
        // The resolved scenario reads back the same.
        let again = Scenario::from_json_str(&s.to_json().to_string()).unwrap();
        assert_eq!(again, s);
        assert_eq!(s.to_json()["medium"][0]["data_rate"], "11Mbps");
    }

    #[test]
    fn an_80211g_medium_takes_its_own_rates() {
        let text = WLAN.replace("kind = \"wifi\"", "kind = \"wifi\"\n        standard = \"802.11g\"\n        data_rate = \"24Mbps\"\n        rts_threshold = 1000");
        let s = Scenario::from_toml_str(&text).unwrap();
        let m = &s.media[0];
        assert_eq!(
            (m.standard, m.data_rate.0, m.basic_rate.0),
            (Standard::G, 24_000_000, 6_000_000)
        );
        assert_eq!(m.rts_threshold, Some(1000));
        assert_eq!(
            Scenario::from_json_str(&s.to_json().to_string()).unwrap(),
            s
        );
    }

    #[test]
    fn bad_media_get_one_line_naming_the_field_and_what_is_allowed() {
        let with = |key: &str| {
            let text = WLAN.replace(
                "kind = \"wifi\"",
                &format!("kind = \"wifi\"\n        {key}"),
            );
            Scenario::from_toml_str(&text).unwrap_err().to_string()
        };
        assert_eq!(
            with("data_rate = \"54Mbps\""),
            "medium[0].data_rate: \"54Mbps\" is not a rate of 802.11b; allowed: 1Mbps, 2Mbps, 5.5Mbps, 11Mbps"
        );
        assert_eq!(
            with("standard = \"802.11n\""),
            "medium[0].standard: unknown standard \"802.11n\"; allowed: 802.11b, 802.11g"
        );
        assert_eq!(
            with("queue = { kind = \"red\" }"),
            "medium[0].queue.kind: unknown kind \"red\"; allowed: droptail"
        );
        assert_eq!(
            with("station.sta9 = { queue = { kind = \"droptail\", limit = 5 } }"),
            "medium[0].station.sta9: unknown node \"sta9\"; nodes of this medium: ap, sta1, sta2"
        );
        assert_eq!(
            with("short_retry_limit = 0"),
            "medium[0].short_retry_limit: 0 is out of range; allowed: 1 to 255"
        );
        let kinds = WLAN.replace("kind = \"wifi\"", "kind = \"ethernet\"");
        assert_eq!(
            Scenario::from_toml_str(&kinds).unwrap_err().to_string(),
            "medium[0].kind: unknown kind \"ethernet\"; allowed: wifi"
        );
        let one = WLAN.replace("[\"ap\", \"sta1\", \"sta2\"]", "[\"ap\"]");
        assert_eq!(
            Scenario::from_toml_str(&one).unwrap_err().to_string(),
            "medium[0].nodes: a medium needs at least two nodes"
        );
        let twice = WLAN.replace("[\"ap\", \"sta1\", \"sta2\"]", "[\"ap\", \"sta1\", \"ap\"]");
        assert_eq!(
            Scenario::from_toml_str(&twice).unwrap_err().to_string(),
            "medium[0].nodes[2]: \"ap\" is already on this medium"
        );
    }

    #[test]
    fn a_scenario_may_be_media_only_and_a_station_may_not_share_a_link_s_name() {
        let s = Scenario::from_toml_str(
            r#"
            simulation = { duration = "1s" }
            medium = { name = "w", kind = "wifi", nodes = ["a", "b"] }
            flow = { name = "f", src = "a", dst = "b" }
            "#,
        )
        .unwrap();
        assert!(s.links.is_empty());
        let clash = Scenario::from_toml_str(
            r#"
            simulation = { duration = "1s" }
            link = { name = "w/a", from = "x", to = "a", rate = "1Mbps" }
            medium = { name = "w", kind = "wifi", nodes = ["a", "b"] }
            flow = { name = "f", src = "a", dst = "b" }
            "#,
        )
        .unwrap_err();
        // A station's name ("w/a") can no longer be a link's: names have no '/'.
        assert_eq!(
            clash.to_string(),
            "link.name: \"w/a\" is not a valid name; use letters, digits, '_' or '-' (ASCII, at most 100 characters)"
        );
    }
}
