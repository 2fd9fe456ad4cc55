//! Ethernet II header and 802.1Q / 802.1ad VLAN tags.

use std::fmt;

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub mod ethernet {
        use super::Field;

        pub const DESTINATION: Field = 0..6;
        pub const SOURCE: Field = 6..12;
        pub const ETHERTYPE: Field = 12..14;
    }

    /// A tag without its TPID, which the header or tag before it holds as its EtherType.
    pub mod vlan {
        use super::Field;

        /// PCP, DEI and VID.
        pub const TCI: Field = 0..2;
        pub const ETHERTYPE: Field = 2..4;
    }
}

header_view!(
    /// The 14-byte Ethernet II header.
    EthernetHeader, field::ethernet::ETHERTYPE.end, Layer::Ethernet
);

header_view!(
    /// One 4-byte VLAN tag as it follows a TPID: TCI, then the next EtherType.
    VlanTag, field::vlan::ETHERTYPE.end, Layer::Vlan
);

pub mod ethertype {
    pub const IPV4: u16 = 0x0800;
    pub const IPV6: u16 = 0x86dd;
    pub const ARP: u16 = 0x0806;
    pub const VLAN_8021Q: u16 = 0x8100;
    pub const VLAN_8021AD: u16 = 0x88a8;
    /// Pre-standard QinQ outer tag still emitted by some switches.
    pub const VLAN_QINQ_LEGACY: u16 = 0x9100;
    pub const MAC_CONTROL: u16 = 0x8808;
    pub const ROCE_V1: u16 = 0x8915;
}

/// A MAC address, printed the usual colon-separated way.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Mac(pub [u8; 6]);

impl fmt::Display for Mac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

impl fmt::Debug for Mac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl EthernetHeader<'_> {
    /// Destination address.
    #[inline]
    pub fn dst(&self) -> Mac {
        Mac(get!(array_at, self.bytes, field::ethernet::DESTINATION))
    }
    /// Source address.
    #[inline]
    pub fn src(&self) -> Mac {
        Mac(get!(array_at, self.bytes, field::ethernet::SOURCE))
    }
    /// EtherType (or TPID when a VLAN tag follows).
    #[inline]
    pub fn ethertype(&self) -> u16 {
        get!(u16_at, self.bytes, field::ethernet::ETHERTYPE)
    }
}

impl VlanTag<'_> {
    /// PCP: priority code point.
    #[inline]
    pub fn pcp(&self) -> u8 {
        (self.tci() >> 13) as u8
    }
    /// DEI: drop eligible indicator.
    #[inline]
    pub fn dei(&self) -> bool {
        self.tci() & 0x1000 != 0
    }
    /// VID: VLAN identifier.
    #[inline]
    pub fn vid(&self) -> u16 {
        self.tci() & 0x0fff
    }
    /// TCI: tag control information.
    #[inline]
    fn tci(&self) -> u16 {
        get!(u16_at, self.bytes, field::vlan::TCI)
    }
    /// The EtherType after this tag.
    #[inline]
    pub fn ethertype(&self) -> u16 {
        get!(u16_at, self.bytes, field::vlan::ETHERTYPE)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn vlan_tci() {
        // PCP 3, DEI 1, VID 100, then IPv4.
        let bytes = [0x70, 0x64, 0x08, 0x00];
        let tag = super::VlanTag::new_checked(&bytes, 14).unwrap();
        assert_eq!(
            (tag.pcp(), tag.dei(), tag.vid(), tag.ethertype()),
            (3, true, 100, 0x0800)
        );
    }
}
