//! 802.11 PHY timing: how long a frame occupies the air at a given rate, and the DCF's
//! interframe spaces and contention-window bounds per standard (IEEE 802.11-2020).
//!
//! Two standards, and two ways of putting bits on the air:
//!
//! - **802.11b** (Clause 16, HR/DSSS): 1 and 2 Mb/s DSSS, 5.5 and 11 Mb/s CCK, always with the
//!   long PLCP preamble (144 bits) and header (48 bits), sent at 1 Mb/s: 192 µs, then the
//!   PSDU at the frame's rate, ceil(8 L / R) µs (the PLCP LENGTH field counts whole
//!   microseconds). Slot 20 µs, SIFS 10 µs, CWmin 31, CWmax 1023 (Table 16-4).
//! - **802.11g** (Clause 18, ERP): ERP-OFDM at 6 to 54 Mb/s: preamble 16 µs, SIGNAL 4 µs,
//!   then 4 µs symbols carrying N_DBPS = 4 R/(Mb/s) bits each, of which the 16-bit SERVICE
//!   field and 6 tail bits come first and last, then a 6 µs signal extension (Clause 17's
//!   TXTIME, 17.4.3, and 18.5.2.4). The DSSS/CCK rates of 802.11b stay available (an ERP
//!   station sends them as 802.11b does). The medium holds only ERP stations, so it uses
//!   the short slot time, 9 µs, and CWmin 15 (Table 18-5); SIFS 10 µs, CWmax 1023.
//!
//! Interframe spaces (10.3.2.3): DIFS = SIFS + 2 slots; EIFS = SIFS + DIFS + the time of an
//! Ack at the lowest rate of the modulation of the frame that caused it (Table 10-5:
//! 304 µs for DSSS, 1 Mb/s with the long preamble; 50 µs for ERP-OFDM, 6 Mb/s with the
//! signal extension), taken here as the data rate's modulation. The Ack (and CTS) timeout
//! is SIFS + a slot + aRxPHYStartDelay (10.3.2.11): 192 µs after a DSSS preamble (the PLCP
//! preamble and header), 25 µs for OFDM (Table 17-21).

use crate::time::SimDuration;

/// Bytes of a data frame's MAC header (frame control, duration, three addresses, sequence
/// control: 9.3.2.1) without QoS control.
pub const MAC_HEADER_BYTES: u32 = 24;
/// Bytes of the LLC/SNAP header that carries the EtherType of an IP packet (IEEE 802.2).
pub const LLC_SNAP_BYTES: u32 = 8;
/// Bytes of the frame check sequence.
pub const FCS_BYTES: u32 = 4;
/// Bytes an IP packet gains as a data MPDU: 1500 bytes go on the air as 1536.
pub const DATA_OVERHEAD_BYTES: u32 = MAC_HEADER_BYTES + LLC_SNAP_BYTES + FCS_BYTES;
/// Bytes of an Ack frame (9.3.1.3: frame control, duration, RA, FCS).
pub const ACK_BYTES: u32 = 14;
/// Bytes of a CTS frame (9.3.1.2), the same fields as an Ack.
pub const CTS_BYTES: u32 = 14;
/// Bytes of an RTS frame (9.3.1.2: frame control, duration, RA, TA, FCS).
pub const RTS_BYTES: u32 = 20;

/// dot11ShortRetryLimit's default (Annex C): transmission attempts of a frame no longer
/// than the RTS threshold, and of an RTS.
pub const DEFAULT_SHORT_RETRY_LIMIT: u32 = 7;
/// dot11LongRetryLimit's default (Annex C): attempts of a frame longer than the threshold.
pub const DEFAULT_LONG_RETRY_LIMIT: u32 = 4;

/// DSSS PLCP long preamble (144 bits) and PLCP header (48 bits) at 1 Mb/s (16.2.2).
const DSSS_LONG_PREAMBLE_AND_HEADER_US: u64 = 192;
/// OFDM preamble (short and long training fields) and SIGNAL field (17.4.3).
const OFDM_PREAMBLE_AND_SIGNAL_US: u64 = 16 + 4;
/// An OFDM symbol (17.4.3).
const OFDM_SYMBOL_US: u64 = 4;
/// OFDM SERVICE field and tail bits around the PSDU (17.3.5.2, 17.3.5.3).
const OFDM_SERVICE_BITS: u64 = 16;
const OFDM_TAIL_BITS: u64 = 6;
/// The ERP-OFDM signal extension: no transmission for 6 µs after the frame (18.3.2.4).
const ERP_SIGNAL_EXTENSION_US: u64 = 6;
/// aRxPHYStartDelay of OFDM at 20 MHz (Table 17-21).
const OFDM_RX_PHY_START_DELAY_US: u64 = 25;
/// N_DBPS is 4 R / (1 Mb/s): 24 data bits per 4 µs symbol at 6 Mb/s (Table 17-4).
const OFDM_BPS_PER_DATA_BIT_PER_SYMBOL: u64 = 250_000;

/// The 802.11 standards a medium may follow.
pub const STANDARDS: &[&str] = &["802.11b", "802.11g"];

/// An 802.11 standard: which rates exist and the DCF's timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standard {
    /// 802.11b: HR/DSSS at 1, 2, 5.5 and 11 Mb/s.
    B,
    /// 802.11g: ERP-OFDM at 6 to 54 Mb/s, and the 802.11b rates.
    G,
}

impl Standard {
    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Standard::B => "802.11b",
            Standard::G => "802.11g",
        }
    }

    /// The standard named `name` in a scenario file.
    pub fn by_name(name: &str) -> Option<Standard> {
        match name {
            "802.11b" => Some(Standard::B),
            "802.11g" => Some(Standard::G),
            _ => None,
        }
    }

    /// The rates of this standard, bit/s, slowest first.
    pub fn rates(self) -> &'static [u64] {
        match self {
            Standard::B => &DSSS_RATES,
            Standard::G => &ERP_RATES,
        }
    }

    /// The rate data frames use unless the scenario says otherwise: the fastest.
    pub fn default_data_rate(self) -> u64 {
        match self {
            Standard::B => 11_000_000,
            Standard::G => 54_000_000,
        }
    }

    /// The rate control frames use unless the scenario says otherwise: the slowest
    /// mandatory rate of the standard's own modulation (1 Mb/s DSSS, 6 Mb/s ERP-OFDM).
    pub fn default_basic_rate(self) -> u64 {
        match self {
            Standard::B => 1_000_000,
            Standard::G => 6_000_000,
        }
    }

    /// How a frame at `bps` is modulated, `None` if the standard has no such rate.
    pub fn modulation(self, bps: u64) -> Option<Modulation> {
        if DSSS_RATES.contains(&bps) {
            Some(Modulation::Dsss)
        } else if self == Standard::G && OFDM_RATES.contains(&bps) {
            Some(Modulation::ErpOfdm)
        } else {
            None
        }
    }

    /// aSlotTime: 20 µs for HR/DSSS (Table 16-4), 9 µs for an ERP-only medium (Table 18-5).
    fn slot_us(self) -> u64 {
        match self {
            Standard::B => 20,
            Standard::G => 9,
        }
    }

    /// aCWmin: 31 for HR/DSSS (Table 16-4), 15 for an ERP-only medium (Table 18-5).
    fn cw_min(self) -> u32 {
        match self {
            Standard::B => 31,
            Standard::G => 15,
        }
    }
}

/// aSIFSTime of both standards (Tables 16-4, 18-5).
const SIFS_US: u64 = 10;
/// aCWmax of both standards.
const CW_MAX: u32 = 1023;
/// The HR/DSSS rates, bit/s.
const DSSS_RATES: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];
/// The ERP-OFDM rates, bit/s.
const OFDM_RATES: [u64; 8] = [
    6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000, 54_000_000,
];
/// Every 802.11g rate, slowest first.
const ERP_RATES: [u64; 12] = [
    1_000_000, 2_000_000, 5_500_000, 6_000_000, 9_000_000, 11_000_000, 12_000_000, 18_000_000,
    24_000_000, 36_000_000, 48_000_000, 54_000_000,
];

/// How a frame's bits are put on the air.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modulation {
    /// DSSS (1, 2 Mb/s) or CCK (5.5, 11 Mb/s) behind the long DSSS preamble.
    Dsss,
    /// ERP-OFDM (6 to 54 Mb/s) with the signal extension.
    ErpOfdm,
}

impl Modulation {
    /// The slowest mandatory rate of the modulation, at which EIFS expects the Ack.
    fn lowest_rate(self) -> Rate {
        match self {
            Modulation::Dsss => Rate {
                bps: 1_000_000,
                modulation: self,
            },
            Modulation::ErpOfdm => Rate {
                bps: 6_000_000,
                modulation: self,
            },
        }
    }

    /// aRxPHYStartDelay: from the start of a frame on the air to the PHY's indication that
    /// a frame is arriving.
    fn rx_start_delay_us(self) -> u64 {
        match self {
            Modulation::Dsss => DSSS_LONG_PREAMBLE_AND_HEADER_US,
            Modulation::ErpOfdm => OFDM_RX_PHY_START_DELAY_US,
        }
    }
}

/// A PHY rate and its modulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Bits per second of the PSDU.
    pub bps: u64,
    /// How it is sent.
    pub modulation: Modulation,
}

impl Rate {
    /// TXTIME of a PSDU (MPDU) of `bytes` bytes: preamble, header and the bits, in µs.
    pub fn tx_time_us(self, bytes: u32) -> u64 {
        let bits = 8 * bytes as u64;
        match self.modulation {
            // The LENGTH field rounds the PSDU's duration up to a whole microsecond
            // (16.3.3.6): 1536 bytes at 5.5 Mb/s take 2235 µs, not 2234.18.
            Modulation::Dsss => {
                DSSS_LONG_PREAMBLE_AND_HEADER_US + (bits * 1_000_000).div_ceil(self.bps)
            }
            Modulation::ErpOfdm => {
                let per_symbol = self.bps / OFDM_BPS_PER_DATA_BIT_PER_SYMBOL;
                let symbols = (OFDM_SERVICE_BITS + bits + OFDM_TAIL_BITS).div_ceil(per_symbol);
                OFDM_PREAMBLE_AND_SIGNAL_US + OFDM_SYMBOL_US * symbols + ERP_SIGNAL_EXTENSION_US
            }
        }
    }

    /// [`Rate::tx_time_us`] as a duration.
    pub fn tx_time(self, bytes: u32) -> SimDuration {
        SimDuration::from_micros(self.tx_time_us(bytes))
    }
}

/// The DCF timing of one medium: its rates, interframe spaces, contention window bounds
/// and the air times of its control frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phy {
    /// The standard.
    pub standard: Standard,
    /// Rate of data frames.
    pub data_rate: Rate,
    /// Rate of control frames (Ack, RTS, CTS).
    pub basic_rate: Rate,
    /// aSlotTime.
    pub slot: SimDuration,
    /// aSIFSTime.
    pub sifs: SimDuration,
    /// DIFS = SIFS + 2 slots (10.3.2.3.5).
    pub difs: SimDuration,
    /// EIFS = SIFS + DIFS + an Ack at the lowest rate (10.3.2.3.7, Table 10-5).
    pub eifs: SimDuration,
    /// How long a sender waits for the start of an Ack or CTS: SIFS + slot +
    /// aRxPHYStartDelay of the basic rate's modulation (10.3.2.11).
    pub response_timeout: SimDuration,
    /// aCWmin: backoffs are drawn from [0, CW], CW starting here.
    pub cw_min: u32,
    /// aCWmax: CW doubles (plus one) after each failure up to here.
    pub cw_max: u32,
    /// Air time of an Ack at the basic rate.
    pub ack: SimDuration,
    /// Air time of a CTS at the basic rate.
    pub cts: SimDuration,
    /// Air time of an RTS at the basic rate.
    pub rts: SimDuration,
}

impl Phy {
    /// The timing of `standard` with data frames at `data_bps` and control frames at
    /// `basic_bps`; `None` if the standard has no such rate.
    pub fn new(standard: Standard, data_bps: u64, basic_bps: u64) -> Option<Phy> {
        let data_rate = Rate {
            bps: data_bps,
            modulation: standard.modulation(data_bps)?,
        };
        let basic_rate = Rate {
            bps: basic_bps,
            modulation: standard.modulation(basic_bps)?,
        };
        let slot = SimDuration::from_micros(standard.slot_us());
        let sifs = SimDuration::from_micros(SIFS_US);
        let difs = sifs + slot + slot;
        let lowest_ack = data_rate.modulation.lowest_rate().tx_time(ACK_BYTES);
        Some(Phy {
            standard,
            data_rate,
            basic_rate,
            slot,
            sifs,
            difs,
            eifs: sifs + lowest_ack + difs,
            response_timeout: sifs
                + slot
                + SimDuration::from_micros(basic_rate.modulation.rx_start_delay_us()),
            cw_min: standard.cw_min(),
            cw_max: CW_MAX,
            ack: basic_rate.tx_time(ACK_BYTES),
            cts: basic_rate.tx_time(CTS_BYTES),
            rts: basic_rate.tx_time(RTS_BYTES),
        })
    }

    /// Air time of a data frame carrying an IP packet of `packet_bytes` bytes.
    pub fn data(&self, packet_bytes: u32) -> SimDuration {
        self.data_rate.tx_time(packet_bytes + DATA_OVERHEAD_BYTES)
    }

    /// The contention window after one more failure: doubled plus one (31, 63, 127, ...),
    /// at most aCWmax (10.3.3).
    pub fn next_cw(&self, cw: u32) -> u32 {
        (2 * cw + 1).min(self.cw_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(data: u64) -> Phy {
        Phy::new(Standard::B, data, 1_000_000).unwrap()
    }

    #[test]
    fn an_80211b_data_frame_of_1500_bytes_takes_preamble_plus_its_bits() {
        // 1536-byte MPDU: 192 µs + ceil(12288 / R) µs.
        assert_eq!(
            b(1_000_000).data(1500),
            SimDuration::from_micros(192 + 12_288)
        );
        assert_eq!(
            b(2_000_000).data(1500),
            SimDuration::from_micros(192 + 6_144)
        );
        assert_eq!(
            b(5_500_000).data(1500),
            SimDuration::from_micros(192 + 2_235)
        );
        assert_eq!(
            b(11_000_000).data(1500),
            SimDuration::from_micros(192 + 1_118)
        );
    }

    #[test]
    fn the_80211b_interframe_spaces_and_control_frames() {
        let phy = b(11_000_000);
        let us = SimDuration::from_micros;
        assert_eq!((phy.slot, phy.sifs, phy.difs), (us(20), us(10), us(50)));
        // An Ack at 1 Mb/s: 192 + 112 µs; EIFS = 10 + 304 + 50.
        assert_eq!(phy.ack, us(304));
        assert_eq!(phy.eifs, us(364));
        assert_eq!(phy.cts, us(304));
        assert_eq!(phy.rts, us(192 + 160));
        assert_eq!(phy.response_timeout, us(10 + 20 + 192));
        assert_eq!((phy.cw_min, phy.cw_max), (31, 1023));
        // Control frames at 2 Mb/s (ns-3's Ack rate after an 11 Mb/s frame).
        let two = Phy::new(Standard::B, 11_000_000, 2_000_000).unwrap();
        assert_eq!(two.ack, us(192 + 56));
        assert_eq!(
            two.eifs,
            us(364),
            "EIFS assumes the lowest rate, whatever the basic rate"
        );
    }

    #[test]
    fn contention_windows_double_plus_one_up_to_cw_max() {
        let phy = b(11_000_000);
        let mut cw = phy.cw_min;
        let mut seen = vec![cw];
        for _ in 0..7 {
            cw = phy.next_cw(cw);
            seen.push(cw);
        }
        assert_eq!(seen, [31, 63, 127, 255, 511, 1023, 1023, 1023]);
    }

    #[test]
    fn an_80211g_ofdm_frame_counts_whole_symbols_and_the_signal_extension() {
        let g = Phy::new(Standard::G, 54_000_000, 6_000_000).unwrap();
        let us = SimDuration::from_micros;
        // 1536 bytes at 54 Mb/s: (16 + 12288 + 6) / 216 = 56.99 -> 57 symbols.
        assert_eq!(g.data(1500), us(20 + 4 * 57 + 6));
        // An Ack at 6 Mb/s: (16 + 112 + 6) / 24 -> 6 symbols.
        assert_eq!(g.ack, us(20 + 24 + 6));
        assert_eq!((g.slot, g.sifs, g.difs), (us(9), us(10), us(28)));
        assert_eq!(g.eifs, us(10 + 50 + 28));
        assert_eq!(g.response_timeout, us(10 + 9 + 25));
        assert_eq!(g.cw_min, 15);
        // 802.11g also sends the 802.11b rates, as 802.11b does.
        let mixed = Phy::new(Standard::G, 11_000_000, 1_000_000).unwrap();
        assert_eq!(mixed.data(1500), us(192 + 1_118));
    }

    #[test]
    fn rates_a_standard_lacks_are_refused() {
        assert!(Phy::new(Standard::B, 54_000_000, 1_000_000).is_none());
        assert!(Phy::new(Standard::B, 11_000_000, 6_000_000).is_none());
        assert!(Phy::new(Standard::G, 10_000_000, 6_000_000).is_none());
        assert_eq!(Standard::G.rates().len(), 12);
        assert_eq!(Standard::by_name("802.11g"), Some(Standard::G));
    }
}
