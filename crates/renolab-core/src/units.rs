//! Units of the scenario file: rates, durations and byte counts written with a unit suffix.
//!
//! The parsers return the exact integer value (bits per second, nanoseconds, bytes) or a
//! message saying what was expected; the scenario layer adds the field path.

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BitsPerSec(pub u64);

impl BitsPerSec {
    /// Time to serialise `bytes` at this rate, in nanoseconds, rounded up so that a link
    /// never sends faster than its rate.
    #[inline]
    pub fn tx_time_ns(self, bytes: u32) -> u64 {
        // 8e9 * bytes fits in u64 below 2^31 bytes, far above any packet: stay in u64.
        if bytes < 1 << 31 {
            (bytes as u64 * 8_000_000_000).div_ceil(self.0)
        } else {
            (bytes as u128 * 8_000_000_000).div_ceil(self.0 as u128) as u64
        }
    }
}

/// Splits `"10.5Mbps"` into the number and the unit, allowing spaces between them.
fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')
        })
        .unwrap_or(text.len());
    // An exponent marker followed by a letter is a unit ("1e" is not a number).
    let (num, unit) = text.split_at(end);
    let value: f64 = num.parse().ok()?;
    Some((value, unit.trim()))
}

fn scaled(value: f64, scale: f64, what: &str) -> Result<u64, String> {
    let v = value * scale;
    if !v.is_finite() || v < 0.0 {
        return Err(format!("must be a non-negative {what}"));
    }
    if v > u64::MAX as f64 / 2.0 {
        return Err(format!("is too large a {what}"));
    }
    Ok(v.round() as u64)
}

/// A rate unit: its spelling and what one of it is worth in bits per second.
struct RateUnit {
    /// The spelling, matched exactly (units are case-sensitive).
    name: &'static str,
    /// Decimal prefix: the unit is 10^`power` bits or bytes per second.
    power: i32,
    /// True when the unit counts bytes (eight bits each).
    bytes: bool,
}

const fn bits(name: &'static str, power: i32) -> RateUnit {
    RateUnit {
        name,
        power,
        bytes: false,
    }
}

const fn bytes(name: &'static str, power: i32) -> RateUnit {
    RateUnit {
        name,
        power,
        bytes: true,
    }
}

/// Every rate unit. A lower-case `b` counts bits and an upper-case `B` bytes, as in SI and
/// IEC 80000-13; `k` or `K` is kilo, `M` mega, `G` giga, all decimal (1 Mbps = 10^6 bit/s,
/// as ns-2 and link vendors count). A spelling that matches one of these only when case is
/// ignored (`mbps`: Mbps to most people, megabytes per second to Linux's `tc`) is refused
/// with its meanings, not guessed.
const RATE_UNITS: &[RateUnit] = &[
    bits("bps", 0),
    bits("bit/s", 0),
    bits("b/s", 0),
    bits("bit", 0),
    bits("kbps", 3),
    bits("Kbps", 3),
    bits("kbit/s", 3),
    bits("Kbit/s", 3),
    bits("kb/s", 3),
    bits("Kb/s", 3),
    bits("kbit", 3),
    bits("Kbit", 3),
    bits("Mbps", 6),
    bits("Mbit/s", 6),
    bits("Mb/s", 6),
    bits("Mbit", 6),
    bits("Gbps", 9),
    bits("Gbit/s", 9),
    bits("Gb/s", 9),
    bits("Gbit", 9),
    bytes("Bps", 0),
    bytes("B/s", 0),
    bytes("kBps", 3),
    bytes("KBps", 3),
    bytes("kB/s", 3),
    bytes("KB/s", 3),
    bytes("MBps", 6),
    bytes("MB/s", 6),
    bytes("GBps", 9),
    bytes("GB/s", 9),
];

impl RateUnit {
    /// Bits per second in one of this unit.
    fn scale(&self) -> f64 {
        10f64.powi(self.power) * if self.bytes { 8.0 } else { 1.0 }
    }

    /// What the unit means, in words: `"Mbps" = megabits/s`.
    fn meaning(&self) -> String {
        let prefix = match self.power {
            3 => "kilo",
            6 => "mega",
            9 => "giga",
            _ => "",
        };
        let quantum = if self.bytes { "bytes" } else { "bits" };
        format!("{:?} = {prefix}{quantum}/s", self.name)
    }
}

/// Parses a rate such as `"100Mbps"`, `"1.5 Mbps"`, `"10Gbit"`, `"64kbps"` or `"9600bps"`
/// (bits per second), or `"50MBps"`, `"50MB/s"` (bytes per second: 400 Mb/s); see
/// [`RATE_UNITS`] for every spelling.
pub fn parse_rate(text: &str) -> Result<BitsPerSec, String> {
    let hint = "use e.g. \"10Mbps\" (bits/s: bps, kbps, Mbps, Gbps, or Mbit, Mbit/s, Mb/s; \
                bytes/s: Bps, KBps, MBps, GBps, or MB/s)";
    let (value, unit) =
        split_number(text).ok_or_else(|| format!("{text:?} is not a rate; {hint}"))?;
    let Some(known) = RATE_UNITS.iter().find(|u| u.name == unit) else {
        let alike: Vec<String> = RATE_UNITS
            .iter()
            .filter(|u| u.name.eq_ignore_ascii_case(unit))
            .map(RateUnit::meaning)
            .collect();
        return Err(match alike.as_slice() {
            [] => format!("{text:?} is not a rate; {hint}"),
            [one] => format!("{text:?}: units are case-sensitive; did you mean {one}?"),
            many => format!(
                "{text:?} is ambiguous: {}; units are case-sensitive, write one of them",
                many.join(", ")
            ),
        });
    };
    let bps = scaled(value, known.scale(), "rate").map_err(|e| format!("{text:?} {e}; {hint}"))?;
    if bps == 0 {
        return Err(format!("{text:?}: a rate must be positive; {hint}"));
    }
    Ok(BitsPerSec(bps))
}

/// Parses a duration such as `"1ms"`, `"0.5s"`, `"100us"` or `"250ns"` into nanoseconds.
pub fn parse_duration_ns(text: &str) -> Result<u64, String> {
    let hint = "use e.g. \"10ms\" (units: ns, us, ms, s)";
    let (value, unit) =
        split_number(text).ok_or_else(|| format!("{text:?} is not a duration; {hint}"))?;
    let scale = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        _ => return Err(format!("{text:?} is not a duration; {hint}")),
    };
    scaled(value, scale, "duration").map_err(|e| format!("{text:?} {e}; {hint}"))
}

/// Parses a byte count such as `"8MiB"`, `"10MB"`, `"64KiB"` or `"1500B"`.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let hint = "use a number of bytes or e.g. \"8MiB\" (units: B, KB, MB, GB, KiB, MiB, GiB)";
    let (value, unit) =
        split_number(text).ok_or_else(|| format!("{text:?} is not a size; {hint}"))?;
    let scale = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("{text:?} is not a size; {hint}")),
    };
    scaled(value, scale, "size").map_err(|e| format!("{text:?} {e}; {hint}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_use_decimal_prefixes() {
        assert_eq!(parse_rate("100Mbps"), Ok(BitsPerSec(100_000_000)));
        assert_eq!(parse_rate("1.5 Mbps"), Ok(BitsPerSec(1_500_000)));
        assert_eq!(parse_rate("10Gbps"), Ok(BitsPerSec(10_000_000_000)));
        assert_eq!(parse_rate("64Kbps"), Ok(BitsPerSec(64_000)));
        assert_eq!(parse_rate("64kbps"), Ok(BitsPerSec(64_000)));
    }

    #[test]
    fn a_lower_case_b_counts_bits_and_an_upper_case_b_bytes() {
        for text in ["50Mbps", "50Mbit", "50Mbit/s", "50Mb/s", "50 Mbit"] {
            assert_eq!(parse_rate(text), Ok(BitsPerSec(50_000_000)), "{text}");
        }
        for text in ["50MBps", "50MB/s", "50 MBps"] {
            assert_eq!(parse_rate(text), Ok(BitsPerSec(400_000_000)), "{text}");
        }
        assert_eq!(parse_rate("1Gbit"), Ok(BitsPerSec(1_000_000_000)));
        assert_eq!(parse_rate("2GB/s"), Ok(BitsPerSec(16_000_000_000)));
        assert_eq!(parse_rate("1500Bps"), Ok(BitsPerSec(12_000)));
        assert_eq!(parse_rate("1.25KBps"), Ok(BitsPerSec(10_000)));
        assert_eq!(parse_rate("9600bit/s"), Ok(BitsPerSec(9_600)));
    }

    #[test]
    fn a_spelling_that_differs_only_in_case_is_refused_with_its_meanings() {
        let e = parse_rate("50mbps").unwrap_err();
        assert_eq!(
            e,
            "\"50mbps\" is ambiguous: \"Mbps\" = megabits/s, \"MBps\" = megabytes/s; \
             units are case-sensitive, write one of them"
        );
        let e = parse_rate("50mb/s").unwrap_err();
        assert!(
            e.contains("\"Mb/s\" = megabits/s, \"MB/s\" = megabytes/s"),
            "{e}"
        );
        let e = parse_rate("50mbit").unwrap_err();
        assert_eq!(
            e,
            "\"50mbit\": units are case-sensitive; did you mean \"Mbit\" = megabits/s?"
        );
        assert!(parse_rate("1GBPS").unwrap_err().contains("ambiguous"));
    }

    #[test]
    fn bad_rates_say_what_is_allowed() {
        let e = parse_rate("10 Mbits").unwrap_err();
        assert!(e.contains("is not a rate"), "{e}");
        assert!(e.contains("Mbps") && e.contains("MBps"), "{e}");
        assert!(parse_rate("-5Mbps").is_err());
        assert!(parse_rate("0Mbps").is_err());
        assert!(parse_rate("10").is_err(), "a rate needs its unit");
    }

    #[test]
    fn durations_are_exact_nanoseconds() {
        assert_eq!(parse_duration_ns("1ms"), Ok(1_000_000));
        assert_eq!(parse_duration_ns("0.5s"), Ok(500_000_000));
        assert_eq!(parse_duration_ns("100us"), Ok(100_000));
        assert_eq!(parse_duration_ns("48ms"), Ok(48_000_000));
        assert!(parse_duration_ns("5 parsecs").is_err());
    }

    #[test]
    fn serialisation_time_rounds_up() {
        // 1500 bytes at 1 Gb/s = 12 us exactly; at 3 bit/s it cannot be exact.
        assert_eq!(BitsPerSec(1_000_000_000).tx_time_ns(1500), 12_000);
        assert_eq!(BitsPerSec(3).tx_time_ns(1), 2_666_666_667);
    }

    #[test]
    fn sizes_accept_binary_and_decimal_units() {
        assert_eq!(parse_bytes("8MiB"), Ok(8 * 1024 * 1024));
        assert_eq!(parse_bytes("10MB"), Ok(10_000_000));
    }
}
