//! Saturation throughput of the 802.11 DCF against Bianchi's model (G. Bianchi,
//! "Performance analysis of the IEEE 802.11 distributed coordination function", IEEE JSAC
//! 18(3), 2000): N stations each send saturating CBR of 1500-byte packets to an access point
//! over 802.11b at 11 Mb/s, with basic access and with RTS/CTS.
//!
//! The model is solved here with the medium's own timing (`Phy`): slot σ, a success
//! occupying the medium Ts = DATA + SIFS + Ack + DIFS (basic) or RTS + SIFS + CTS + SIFS +
//! DATA + SIFS + Ack + DIFS (RTS/CTS), and a collision Tc = DATA + EIFS (basic) or RTS + EIFS
//! (RTS/CTS): the hearers of a collision defer EIFS. The transmission probability of a
//! station in a slot counts the retry limit (Wu et al., INFOCOM 2002): with
//! stages i = 0..R (R + 1 attempts) of window W_i = min(2^i, 2^m) W,
//! τ = Σ p^i / Σ p^i (W_i + 1) / 2, and p = 1 − (1 − τ)^(N−1).
//!
//! `cargo test --release --test bianchi -- --nocapture` prints the table of
//! docs/validation.md.

use renolab_core::net::wifi::phy::DATA_OVERHEAD_BYTES;
use renolab_core::net::wifi::{Phy, Standard};
use renolab_core::sim::run;
use renolab_core::trace::TraceRequest;
use renolab_core::Scenario;

const PAYLOAD_BYTES: u32 = 1500;
const SECONDS: u64 = 30;
const ATTEMPTS: u32 = 7;

/// Bianchi's saturation throughput of `n` stations, bit/s.
fn bianchi(phy: &Phy, n: u32, rts_cts: bool) -> f64 {
    let s = |d: renolab_core::time::SimDuration| d.as_secs_f64();
    let data = s(phy.data(PAYLOAD_BYTES));
    let (ts, tc) = if rts_cts {
        (
            s(phy.rts)
                + s(phy.sifs)
                + s(phy.cts)
                + s(phy.sifs)
                + data
                + s(phy.sifs)
                + s(phy.ack)
                + s(phy.difs),
            s(phy.rts) + s(phy.eifs),
        )
    } else {
        (
            data + s(phy.sifs) + s(phy.ack) + s(phy.difs),
            data + s(phy.eifs),
        )
    };
    let windows: Vec<f64> = (0..ATTEMPTS)
        .map(|i| ((phy.cw_min + 1) << i).min(phy.cw_max + 1) as f64)
        .collect();
    let tau = |p: f64| {
        let (mut attempts, mut slots, mut reach) = (0.0, 0.0, 1.0);
        for w in &windows {
            attempts += reach;
            slots += reach * (w + 1.0) / 2.0;
            reach *= p;
        }
        attempts / slots
    };
    // The fixed point of p = 1 - (1 - τ(p))^(n-1), by bisection (the right side falls as p
    // grows).
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let p = (lo + hi) / 2.0;
        if 1.0 - (1.0 - tau(p)).powi(n as i32 - 1) > p {
            lo = p;
        } else {
            hi = p;
        }
    }
    let t = tau((lo + hi) / 2.0);
    let p_tr = 1.0 - (1.0 - t).powi(n as i32);
    let p_s = n as f64 * t * (1.0 - t).powi(n as i32 - 1) / p_tr;
    let slot = s(phy.slot);
    p_s * p_tr * (8 * PAYLOAD_BYTES) as f64
        / ((1.0 - p_tr) * slot + p_tr * p_s * ts + p_tr * (1.0 - p_s) * tc)
}

/// The aggregate payload throughput of `n` saturated stations, bit/s, simulated.
fn simulated(n: u32, rts_cts: bool) -> f64 {
    let stations: Vec<String> = (1..=n).map(|i| format!("\"sta{i}\"")).collect();
    let rts = if rts_cts { "rts_threshold = 0" } else { "" };
    let mut text = format!(
        r#"
        simulation = {{ duration = "{SECONDS}s" }}
        [[medium]]
        name = "wlan"
        kind = "wifi"
        standard = "802.11b"
        data_rate = "11Mbps"
        basic_rate = "1Mbps"
        nodes = ["ap", {}]
        {rts}
        "#,
        stations.join(", ")
    );
    // Together they offer twice the data rate: every queue stays full.
    let offered = 22_000 / n;
    for i in 1..=n {
        text.push_str(&format!(
            "[[flow]]\nname = \"s{i}\"\nkind = \"cbr\"\nrate = \"{offered}Kbps\"\npacket_bytes = {PAYLOAD_BYTES}\nsrc = \"sta{i}\"\ndst = \"ap\"\n"
        ));
    }
    let scenario = Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&scenario, &TraceRequest::default(), false).unwrap();
    let bytes: u64 = out.flows.iter().map(|f| f.bytes_delivered).sum();
    bytes as f64 * 8.0 / SECONDS as f64
}

fn check(rts_cts: bool) {
    let phy = Phy::new(Standard::B, 11_000_000, 1_000_000).unwrap();
    assert_eq!(DATA_OVERHEAD_BYTES, 36);
    let mode = if rts_cts { "RTS/CTS" } else { "basic" };
    let mut worst = 0.0f64;
    for n in [1, 5, 10, 20] {
        let model = bianchi(&phy, n, rts_cts);
        let sim = simulated(n, rts_cts);
        let error = sim / model - 1.0;
        eprintln!(
            "| {mode} | {n} | {:.3} | {:.3} | {:+.2} % |",
            model / 1e6,
            sim / 1e6,
            100.0 * error
        );
        worst = worst.max(error.abs());
        assert!(
            error.abs() < 0.03,
            "{mode}, N = {n}: {sim} vs Bianchi's {model}"
        );
    }
    eprintln!("{mode}: worst {:.2} %", 100.0 * worst);
}

#[test]
fn basic_access_saturation_throughput_is_within_3_percent_of_bianchi() {
    check(false);
}

#[test]
fn rts_cts_saturation_throughput_is_within_3_percent_of_bianchi() {
    check(true);
}
