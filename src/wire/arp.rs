//! Address Resolution Protocol (RFC 826), the fixed part before the addresses.

use std::net::Ipv4Addr;

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const HRD: Field = 0..2;
    pub const PRO: Field = 2..4;
    pub const HLN: usize = 4;
    pub const PLN: usize = 5;
    pub const OP: Field = 6..8;
}

const HEADER_LEN: usize = field::OP.end;

header_view!(
    /// The 8 fixed bytes of an ARP packet; the addresses follow, their lengths given here.
    ArpHeader, HEADER_LEN, Layer::Arp
);

/// ar$op values.
pub mod op {
    pub const REQUEST: u16 = 1;
    pub const REPLY: u16 = 2;
}

/// The protocol type ARP resolves for IPv4.
pub const PTYPE_IPV4: u16 = 0x0800;

impl ArpHeader<'_> {
    /// ar$hrd: hardware type (1 Ethernet, 32 InfiniBand).
    #[inline]
    pub fn hardware_type(&self) -> u16 {
        get!(u16_at, self.bytes, field::HRD)
    }
    /// ar$pro: protocol type, an EtherType.
    #[inline]
    pub fn protocol_type(&self) -> u16 {
        get!(u16_at, self.bytes, field::PRO)
    }
    /// ar$hln: hardware address length (6 Ethernet, 20 IPoIB).
    #[inline]
    pub fn hardware_len(&self) -> u8 {
        self.bytes[field::HLN]
    }
    /// ar$pln: protocol address length.
    #[inline]
    pub fn protocol_len(&self) -> u8 {
        self.bytes[field::PLN]
    }
    /// ar$op: request or reply.
    #[inline]
    pub fn op(&self) -> u16 {
        get!(u16_at, self.bytes, field::OP)
    }
    /// Whether the addresses are IPv4 ones, the only kind shown.
    #[inline]
    pub fn resolves_ipv4(&self) -> bool {
        self.protocol_type() == PTYPE_IPV4 && self.protocol_len() == 4
    }
    /// Bytes of the four addresses after the fixed part.
    #[inline]
    pub fn addresses_len(&self) -> usize {
        2 * (usize::from(self.hardware_len()) + usize::from(self.protocol_len()))
    }
}

/// The IPv4 addresses out of the address block that follows the fixed part; `None` when
/// the block is too short or does not resolve IPv4.
pub fn ipv4_addresses(header: &ArpHeader<'_>, block: &[u8]) -> Option<(Ipv4Addr, Ipv4Addr)> {
    if !header.resolves_ipv4() {
        return None;
    }
    let hln = usize::from(header.hardware_len());
    let sender = block.get(hln..hln + 4)?;
    let target = block.get(2 * hln + 4..2 * hln + 8)?;
    Some((
        Ipv4Addr::new(sender[0], sender[1], sender[2], sender[3]),
        Ipv4Addr::new(target[0], target[1], target[2], target[3]),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ethernet_request() {
        // Hand-assembled from RFC 826: Ethernet, IPv4, hln 6, pln 4, request; sender
        // 02:00:00:00:00:01 10.0.0.1, target unknown 10.0.0.2.
        let bytes = [
            0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01, 2, 0, 0, 0, 0, 1, 10, 0, 0, 1, 0, 0, 0, 0, 0,
            0, 10, 0, 0, 2,
        ];
        let h = ArpHeader::new_checked(&bytes, 14).unwrap();
        assert_eq!(
            (h.hardware_type(), h.op(), h.addresses_len()),
            (1, op::REQUEST, 20)
        );
        let (sender, target) = ipv4_addresses(&h, &bytes[8..]).unwrap();
        assert_eq!(sender, Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(target, Ipv4Addr::new(10, 0, 0, 2));
        assert!(ipv4_addresses(&h, &bytes[8..27]).is_none());
    }
}
