//! RED's configuration, with ns-2.35's defaults, and the parameters derived from it the way
//! ns-2's `REDQueue::initialize_params()` and `REDQueue::reset()` derive them.

use crate::time::SimDuration;
use crate::units::BitsPerSec;

/// How the EWMA weight `w_q` of the average queue size is chosen (ns-2 `q_weight_`).
///
/// `C` below is the link capacity in mean-sized packets per second (ns-2's `ptc`,
/// `bandwidth / (8 * mean_pktsize)`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QWeight {
    /// A fixed weight, in (0, 1].
    Fixed(f64),
    /// ns-2 `q_weight_ 0`: `w_q = 1 - exp(-1/C)`, a time constant of one second of packets.
    OneOverCapacity,
    /// ns-2 `q_weight_ -1` (the ns-2.35 default): a time constant of ten round-trip times,
    /// `w_q = 1 - exp(-1/(10 * rtt * C))`, where `rtt = 3 * (link delay + 1/C)` but at least
    /// 100 ms.
    TenRtts,
    /// ns-2 `q_weight_ -2`: `w_q = 1 - exp(-10/C)`.
    TenOverCapacity,
}

impl QWeight {
    /// The weight an ns-2 script's `q_weight_` value selects: 0, -1 and -2 are ns-2's
    /// automatic choices, anything else is a fixed weight.
    pub fn from_ns2(q_weight: f64) -> Self {
        if q_weight == 0.0 {
            QWeight::OneOverCapacity
        } else if q_weight == -1.0 {
            QWeight::TenRtts
        } else if q_weight == -2.0 {
            QWeight::TenOverCapacity
        } else {
            QWeight::Fixed(q_weight)
        }
    }
}

/// Parameters of a RED queue. Field names follow ns-2's `Queue/RED` variables; build one
/// with [`RedConfig::ns2`] to get ns-2.35's defaults (`tcl/lib/ns-default.tcl`, checked
/// against the `ns` binary) and change what the scenario sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    /// Hard limit, in packets (ns-2 `limit_`, default 50). With `queue_in_bytes` the limit
    /// is `limit * mean_pktsize` bytes. It bounds the packets waiting, not counting the one
    /// on the wire: ns-2 force-drops when the waiting length before the arrival is
    /// `>= limit`.
    pub limit: u32,
    /// A hard limit in bytes instead of `limit * mean_pktsize` (with `queue_in_bytes`; the
    /// scenario's `limit_bytes`).
    pub limit_bytes: Option<u64>,
    /// Minimum threshold `min_th`, in mean-sized packets (ns-2 `thresh_`). `None` (ns-2's 0,
    /// the default) chooses `max(5, target_delay * C / 2)`.
    pub min_thresh: Option<f64>,
    /// Maximum threshold `max_th`, in mean-sized packets (ns-2 `maxthresh_`). `None` (ns-2's
    /// 0, the default) chooses `3 * min_th`.
    pub max_thresh: Option<f64>,
    /// `1 / max_p`, the inverse of the drop probability at `max_th` (ns-2 `linterm_`,
    /// default 10).
    pub linterm: f64,
    /// Weight of the average queue size (ns-2 `q_weight_`, default -1: [`QWeight::TenRtts`]).
    pub q_weight: QWeight,
    /// Between `max_th` and `2 * max_th` the drop probability ramps from `max_p` to 1
    /// instead of jumping to 1 (ns-2 `gentle_`, default true).
    pub gentle: bool,
    /// Wait between drops: the count-based spreading makes the gap between two drops
    /// uniform on about [1/p_b, 2/p_b] arrivals instead of [1, 1/p_b] (ns-2 `wait_`,
    /// default true).
    pub wait: bool,
    /// Byte mode: the drop probability is scaled by `size / mean_pktsize`, and the count
    /// since the last drop is measured in bytes (ns-2 `bytes_`, default true).
    pub bytes: bool,
    /// Measure the queue, the thresholds and the limit in bytes (thresholds and limit are
    /// multiplied by `mean_pktsize`) (ns-2 `queue_in_bytes_`, default true).
    pub queue_in_bytes: bool,
    /// Mean packet size, in bytes (ns-2 `mean_pktsize_`, default 500).
    pub mean_pktsize: u32,
    /// ns-2 `use_mark_p_` (default true). Its only effect on drops (this simulator has no
    /// ECN): when true, an average above `max_th` (gentle off) or `2 * max_th` (gentle on)
    /// is not a forced drop but goes through the early-drop path with probability 1, so the
    /// first arrival after the average crosses `min_th` and, in byte mode with `wait`, small
    /// packets right after a drop, still get through.
    pub use_mark_p: bool,
    /// Mark ECN-capable arrivals instead of dropping them early (ns-2 `setbit_`, default
    /// false; RFC 3168 §7). Forced drops (average above the maximum, or the hard limit)
    /// stay drops.
    pub ecn: bool,
    /// With `use_mark_p`, an early decision marks only while `p_b` is below this; above,
    /// the ECN-capable arrival is dropped all the same (ns-2 `mark_p_`, default 0.1).
    pub mark_p: f64,
    /// Target queueing delay used to choose `min_th` automatically (ns-2 `targetdelay_`,
    /// default 5 ms).
    pub target_delay: SimDuration,
    /// Rate of the link the queue feeds. Gives `C` (above), and the time at which the link
    /// goes idle after the last packet leaves the queue.
    pub link_rate: BitsPerSec,
    /// Propagation delay of the link (used by [`QWeight::TenRtts`] only).
    pub link_delay: SimDuration,
}

impl RedConfig {
    /// ns-2.35's defaults for a queue feeding a link of `link_rate` and `link_delay`.
    pub fn ns2(link_rate: BitsPerSec, link_delay: SimDuration) -> Self {
        RedConfig {
            limit: 50,
            limit_bytes: None,
            min_thresh: None,
            max_thresh: None,
            linterm: 10.0,
            q_weight: QWeight::TenRtts,
            gentle: true,
            wait: true,
            bytes: true,
            queue_in_bytes: true,
            mean_pktsize: 500,
            use_mark_p: true,
            ecn: false,
            mark_p: 0.1,
            target_delay: SimDuration::from_millis(5),
            link_rate,
            link_delay,
        }
    }

    /// Checks the values `Red::new` relies on; the message names the offending field.
    pub fn validate(&self) -> Result<(), String> {
        if self.link_rate.0 == 0 {
            return Err("link_rate must be positive".into());
        }
        if self.mean_pktsize == 0 {
            return Err("mean_pktsize must be positive".into());
        }
        if !(self.linterm >= 1.0 && self.linterm.is_finite()) {
            return Err(format!("linterm must be at least 1, got {}", self.linterm));
        }
        if let QWeight::Fixed(w) = self.q_weight {
            if !(w > 0.0 && w <= 1.0) {
                return Err(format!("q_weight must be in (0, 1], got {w}"));
            }
        }
        for (name, t) in [
            ("min_thresh", self.min_thresh),
            ("max_thresh", self.max_thresh),
        ] {
            if let Some(t) = t {
                if !(t > 0.0 && t.is_finite()) {
                    return Err(format!("{name} must be positive, got {t}"));
                }
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_thresh, self.max_thresh) {
            if lo > hi {
                return Err(format!("min_thresh {lo} is above max_thresh {hi}"));
            }
        }
        Ok(())
    }
}

/// The constants RED computes once from its configuration.
#[derive(Clone, Copy, Debug)]
pub(super) struct Derived {
    /// `C`: link capacity in mean-sized packets per second.
    pub ptc: f64,
    /// EWMA weight.
    pub q_w: f64,
    /// Thresholds in queue units (packets, or bytes with `queue_in_bytes`).
    pub th_min: f64,
    pub th_max: f64,
    /// Hard limit in queue units.
    pub qlim: u64,
    /// `1 / linterm`.
    pub max_p: f64,
    /// Slope and intercept of `p_b` between the thresholds, and above `max_th` when gentle
    /// (ns-2's `v_a`, `v_b`, `v_c`, `v_d`).
    pub v_a: f64,
    pub v_b: f64,
    pub v_c: f64,
    pub v_d: f64,
}

impl Derived {
    pub fn new(c: &RedConfig) -> Self {
        let mean = c.mean_pktsize as f64;
        // ns-2 REDQueue::reset(): "ptc = link_->bandwidth() / (8.0 * mean_pktsize)".
        let ptc = c.link_rate.0 as f64 / (8.0 * mean);
        // ns-2 REDQueue::initialize_params(): the automatic weights.
        let q_w = match c.q_weight {
            QWeight::Fixed(w) => w,
            QWeight::OneOverCapacity => 1.0 - (-1.0 / ptc).exp(),
            QWeight::TenRtts => {
                let rtt = (3.0 * (c.link_delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
                1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
            }
            QWeight::TenOverCapacity => 1.0 - (-10.0 / ptc).exp(),
        };
        // initialize_params(): min_th defaults to 5 packets, or half the queue that
        // `targetdelay_` allows if that is more; max_th to three times min_th.
        let th_min_pkts = c.min_thresh.unwrap_or_else(|| {
            let target_queue = c.target_delay.as_secs_f64() * ptc;
            f64::max(5.0, target_queue / 2.0)
        });
        let th_max_pkts = c.max_thresh.unwrap_or(3.0 * th_min_pkts);
        // reset(): with queue_in_bytes_, thresholds scale by the mean packet size.
        let (th_min, th_max, qlim) = if c.queue_in_bytes {
            let qlim = c
                .limit_bytes
                .unwrap_or(c.limit as u64 * c.mean_pktsize as u64);
            (th_min_pkts * mean, th_max_pkts * mean, qlim)
        } else {
            (th_min_pkts, th_max_pkts, c.limit as u64)
        };
        // reset(): equal thresholds would divide by zero; ns-2 then uses a span of 1.
        let mut th_diff = th_max - th_min;
        if th_diff == 0.0 {
            th_diff = 1.0;
        }
        let max_p = 1.0 / c.linterm;
        Derived {
            ptc,
            q_w,
            th_min,
            th_max,
            qlim,
            max_p,
            v_a: 1.0 / th_diff,
            v_b: -th_min / th_diff,
            v_c: (1.0 - max_p) / th_max,
            v_d: 2.0 * max_p - 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_defaults_choose_thresholds_from_the_target_delay() {
        // 10 Mb/s, 500-byte mean packets: C = 2500 packets/s; 5 ms hold 12.5 packets, half of
        // that is 6.25 > 5. Queue in bytes: thresholds and limit scale by 500.
        let c = RedConfig::ns2(BitsPerSec(10_000_000), SimDuration::from_millis(10));
        let d = Derived::new(&c);
        assert_eq!(d.ptc, 2500.0);
        assert_eq!(d.th_min, 6.25 * 500.0);
        assert_eq!(d.th_max, 3.0 * 6.25 * 500.0);
        assert_eq!(d.qlim, 25_000);
        // rtt = 3 * (0.01 + 0.0004) = 0.0312 < 0.1, so 0.1 s: w = 1 - exp(-1/2500).
        assert_eq!(d.q_w, 1.0 - (-1.0f64 / (10.0 * 0.1 * 2500.0)).exp());
    }

    #[test]
    fn slow_links_keep_the_five_packet_minimum_threshold() {
        let mut c = RedConfig::ns2(BitsPerSec(1_000_000), SimDuration::from_millis(10));
        c.queue_in_bytes = false;
        let d = Derived::new(&c);
        assert_eq!((d.th_min, d.th_max, d.qlim), (5.0, 15.0, 50));
    }

    #[test]
    fn ns2_weight_codes_map_to_the_automatic_choices() {
        assert_eq!(QWeight::from_ns2(0.0), QWeight::OneOverCapacity);
        assert_eq!(QWeight::from_ns2(-1.0), QWeight::TenRtts);
        assert_eq!(QWeight::from_ns2(-2.0), QWeight::TenOverCapacity);
        assert_eq!(QWeight::from_ns2(0.002), QWeight::Fixed(0.002));
    }

    #[test]
    fn validation_names_the_bad_field() {
        let mut c = RedConfig::ns2(BitsPerSec(1_000_000), SimDuration::ZERO);
        assert!(c.validate().is_ok());
        c.min_thresh = Some(10.0);
        c.max_thresh = Some(5.0);
        assert!(c.validate().unwrap_err().contains("min_thresh"));
        c.max_thresh = None;
        c.q_weight = QWeight::Fixed(1.5);
        assert!(c.validate().unwrap_err().contains("q_weight"));
    }
}
