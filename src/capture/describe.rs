//! What a reader knows about the container around the records: enough to describe a
//! capture (`info`) and to write a faithful copy of its records (`read -w`).

/// The two container formats rdmadump reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerKind {
    Pcap,
    PcapNg,
}

impl ContainerKind {
    pub fn name(self) -> &'static str {
        match self {
            ContainerKind::Pcap => "pcap",
            ContainerKind::PcapNg => "pcapng",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Container {
    pub kind: ContainerKind,
    /// Byte order of the file (pcapng: of the current section).
    pub big_endian: bool,
    /// pcapng sections begun so far; always 1 for pcap. Interface ids restart with each.
    pub section: u32,
}

/// Units of an interface's timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsResolution {
    /// Units of 10^-n seconds: 6 for microseconds, 9 for nanoseconds.
    Decimal(u8),
    /// Units of 2^-n seconds.
    Binary(u8),
}

impl TsResolution {
    pub const MICRO: TsResolution = TsResolution::Decimal(6);
    pub const NANO: TsResolution = TsResolution::Decimal(9);

    /// `ns` nanoseconds since the epoch in these units, the inverse of how the readers turn
    /// units into nanoseconds: exact wherever a unit is at least a nanosecond. Finer units
    /// (10^-12 s, 2^-30 s and below) can only be written to the nanosecond rdmadump keeps.
    pub fn units(self, ns: u64) -> u64 {
        let ns = u128::from(ns);
        let units = match self {
            TsResolution::Decimal(n) if n <= 9 => ns / 10u128.pow(u32::from(9 - n)),
            TsResolution::Decimal(n) => 10u128
                .checked_pow(u32::from(n - 9))
                .map_or(0, |scale| ns.saturating_mul(scale)),
            // The readers round down (units × 10^9 >> n); the smallest unit count that
            // rounds down to `ns` is this one.
            TsResolution::Binary(n) if n < 64 => (ns << n).div_ceil(1_000_000_000),
            TsResolution::Binary(_) => 0,
        };
        u64::try_from(units).unwrap_or(u64::MAX)
    }

    /// The `if_tsresol` byte of a pcapng interface description.
    pub fn tsresol_byte(self) -> u8 {
        match self {
            TsResolution::Decimal(n) => n & 0x7f,
            TsResolution::Binary(n) => 0x80 | (n & 0x7f),
        }
    }
}

/// One capture interface: a pcap file's only one, or a pcapng interface description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InterfaceInfo {
    pub linktype: u32,
    /// 0 means no limit was declared.
    pub snaplen: u32,
    pub resolution: TsResolution,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_invert_the_readers_conversion() {
        // 1.5 s and 7 ns past it, in each resolution a reader meets.
        let ns = 1_500_000_007;
        assert_eq!(TsResolution::MICRO.units(ns), 1_500_000);
        assert_eq!(TsResolution::NANO.units(ns), ns);
        assert_eq!(TsResolution::Decimal(0).units(ns), 1);
        assert_eq!(TsResolution::Decimal(12).units(7), 7_000);
        // 2^-3 s units: 1.5 s is 12 units; 2^-20 s: the reader's floor of 1572864 units
        // × 10^9 / 2^20 is 1.5 s exactly.
        assert_eq!(TsResolution::Binary(3).units(1_500_000_000), 12);
        assert_eq!(TsResolution::Binary(20).units(1_500_000_000), 1_572_864);
        // 2^-20 s: 1 unit reads as floor(953.67) = 953 ns, and 953 ns writes back as 1.
        assert_eq!(TsResolution::Binary(20).units(953), 1);
        assert_eq!(TsResolution::Binary(20).tsresol_byte(), 0x94);
        assert_eq!(TsResolution::NANO.tsresol_byte(), 9);
    }
}
