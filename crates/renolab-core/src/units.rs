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

/// Parses a rate such as `"100Mbps"`, `"1.5 Mbps"`, `"10Gbps"`, `"64Kbps"` or `"9600bps"`.
/// Decimal prefixes (1 Mbps = 10^6 bit/s), as ns-2 and link vendors use them.
pub fn parse_rate(text: &str) -> Result<BitsPerSec, String> {
    let hint = "use e.g. \"10Mbps\" (units: bps, Kbps, Mbps, Gbps)";
    let (value, unit) =
        split_number(text).ok_or_else(|| format!("{text:?} is not a rate; {hint}"))?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "bps" | "b/s" => 1.0,
        "kbps" | "kb/s" => 1e3,
        "mbps" | "mb/s" => 1e6,
        "gbps" | "gb/s" => 1e9,
        _ => return Err(format!("{text:?} is not a rate; {hint}")),
    };
    let bps = scaled(value, scale, "rate").map_err(|e| format!("{text:?} {e}; {hint}"))?;
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
    }

    #[test]
    fn bad_rates_say_what_is_allowed() {
        let e = parse_rate("10 Mbit").unwrap_err();
        assert!(e.contains("is not a rate"), "{e}");
        assert!(e.contains("Mbps"), "{e}");
        assert!(parse_rate("-5Mbps").is_err());
        assert!(parse_rate("0Mbps").is_err());
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
