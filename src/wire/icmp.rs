//! ICMP (RFC 792) and ICMPv6 (RFC 4443): the type, code and checksum both begin with.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const TYPE: usize = 0;
    pub const CODE: usize = 1;
    pub const CHECKSUM: Field = 2..4;
}

const HEADER_LEN: usize = field::CHECKSUM.end;

header_view!(
    /// The 4 bytes ICMP and ICMPv6 share.
    IcmpHeader, HEADER_LEN, Layer::Icmp
);

impl IcmpHeader<'_> {
    /// Type.
    #[inline]
    pub fn icmp_type(&self) -> u8 {
        self.bytes[field::TYPE]
    }
    /// Code.
    #[inline]
    pub fn code(&self) -> u8 {
        self.bytes[field::CODE]
    }
    /// Checksum.
    #[inline]
    pub fn checksum(&self) -> u16 {
        get!(u16_at, self.bytes, field::CHECKSUM)
    }
}

/// A short name for an ICMP type, as tcpdump words it; `None` for types without one.
pub fn icmpv4_name(icmp_type: u8) -> Option<&'static str> {
    Some(match icmp_type {
        0 => "echo reply",
        3 => "unreachable",
        5 => "redirect",
        8 => "echo request",
        11 => "time exceeded",
        12 => "parameter problem",
        13 => "timestamp request",
        14 => "timestamp reply",
        _ => return None,
    })
}

/// A short name for an ICMPv6 type; `None` for types without one.
pub fn icmpv6_name(icmp_type: u8) -> Option<&'static str> {
    Some(match icmp_type {
        1 => "unreachable",
        2 => "packet too big",
        3 => "time exceeded",
        4 => "parameter problem",
        128 => "echo request",
        129 => "echo reply",
        130 => "multicast listener query",
        131 => "multicast listener report",
        133 => "router solicitation",
        134 => "router advertisement",
        135 => "neighbor solicitation",
        136 => "neighbor advertisement",
        143 => "multicast listener report v2",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        // Hand-assembled from RFC 792: echo request, code 0, checksum 0x2bfb.
        let h = IcmpHeader::new_checked(&[8, 0, 0x2b, 0xfb], 34).unwrap();
        assert_eq!((h.icmp_type(), h.code(), h.checksum()), (8, 0, 0x2bfb));
        assert_eq!(icmpv4_name(h.icmp_type()), Some("echo request"));
        assert_eq!(icmpv6_name(135), Some("neighbor solicitation"));
    }
}
