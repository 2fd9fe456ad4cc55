//! Global Route Header (IBA 8.3): IPv6-shaped, used by routed IB and by RoCE v1.

use std::net::Ipv6Addr;

use super::{Layer, array_at, header_view, u8_at, u16_at, u32_at};

header_view!(
    /// The 40-byte GRH.
    Grh, 40, Layer::Grh
);

/// NxtHdr value that announces a BTH.
pub const NXTHDR_BTH: u8 = 0x1b;

impl Grh<'_> {
    /// IPVer: always 6 for a GRH.
    #[inline]
    pub fn ipver(&self) -> u8 {
        self.bytes[0] >> 4
    }
    /// TClass: traffic class.
    #[inline]
    pub fn tclass(&self) -> u8 {
        ((u16_at::<0, 40>(self.bytes) >> 4) & 0xff) as u8
    }
    /// FlowLabel.
    #[inline]
    pub fn flow_label(&self) -> u32 {
        u32_at::<0, 40>(self.bytes) & 0x000f_ffff
    }
    /// PayLen: bytes after the GRH up to and including the ICRC.
    #[inline]
    pub fn paylen(&self) -> u16 {
        u16_at::<4, 40>(self.bytes)
    }
    /// NxtHdr: 0x1B for a BTH.
    #[inline]
    pub fn nxthdr(&self) -> u8 {
        u8_at::<6, 40>(self.bytes)
    }
    /// HopLmt: hop limit.
    #[inline]
    pub fn hoplmt(&self) -> u8 {
        u8_at::<7, 40>(self.bytes)
    }
    /// SGID: source global identifier.
    #[inline]
    pub fn sgid(&self) -> Ipv6Addr {
        Ipv6Addr::from(array_at::<8, 16, 40>(self.bytes))
    }
    /// DGID: destination global identifier.
    #[inline]
    pub fn dgid(&self) -> Ipv6Addr {
        Ipv6Addr::from(array_at::<24, 16, 40>(self.bytes))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields() {
        // Hand-assembled: IPVer 6, TClass 0xab, FlowLabel 0xcdef1, PayLen 0x40, NxtHdr 0x1b,
        // HopLmt 64, SGID fe80::1, DGID fe80::2.
        let mut bytes = [0u8; 40];
        bytes[..8].copy_from_slice(&[0x6a, 0xbc, 0xde, 0xf1, 0x00, 0x40, 0x1b, 0x40]);
        bytes[8] = 0xfe;
        bytes[9] = 0x80;
        bytes[23] = 1;
        bytes[24] = 0xfe;
        bytes[25] = 0x80;
        bytes[39] = 2;
        let grh = super::Grh::new_checked(&bytes, 0).unwrap();
        assert_eq!(grh.ipver(), 6);
        assert_eq!(grh.tclass(), 0xab);
        assert_eq!(grh.flow_label(), 0xcdef1);
        assert_eq!(grh.paylen(), 0x40);
        assert_eq!(grh.nxthdr(), 0x1b);
        assert_eq!(grh.hoplmt(), 64);
        assert_eq!(grh.sgid().to_string(), "fe80::1");
        assert_eq!(grh.dgid().to_string(), "fe80::2");
    }
}
