//! Global Route Header (IBA 8.3): IPv6-shaped, used by routed IB and by RoCE v1.

use std::net::Ipv6Addr;

use super::{DecodeError, Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// IPVer, TClass and FlowLabel share the first word.
    pub const VER_TCLASS_FLOW: Field = 0..4;
    pub const PAYLEN: Field = 4..6;
    pub const NXTHDR: usize = 6;
    pub const HOPLMT: usize = 7;
    pub const SGID: Field = 8..24;
    pub const DGID: Field = 24..40;
}

const HEADER_LEN: usize = field::DGID.end;

header_view!(
    /// The 40-byte GRH.
    Grh, HEADER_LEN, Layer::Grh
);

/// NxtHdr value that announces a BTH.
pub const NXTHDR_BTH: u8 = 0x1b;

impl Grh<'_> {
    /// IPVer: always 6 for a GRH.
    #[inline]
    pub fn ipver(&self) -> u8 {
        (self.first_word() >> 28) as u8
    }
    /// TClass: traffic class.
    #[inline]
    pub fn tclass(&self) -> u8 {
        (self.first_word() >> 20) as u8
    }
    /// FlowLabel.
    #[inline]
    pub fn flow_label(&self) -> u32 {
        self.first_word() & 0x000f_ffff
    }
    /// PayLen: bytes after the GRH up to and including the ICRC.
    #[inline]
    pub fn paylen(&self) -> u16 {
        get!(u16_at, self.bytes, field::PAYLEN)
    }
    /// NxtHdr: 0x1B for a BTH.
    #[inline]
    pub fn nxthdr(&self) -> u8 {
        self.bytes[field::NXTHDR]
    }
    /// HopLmt: hop limit.
    #[inline]
    pub fn hoplmt(&self) -> u8 {
        self.bytes[field::HOPLMT]
    }
    /// SGID: source global identifier.
    #[inline]
    pub fn sgid(&self) -> Ipv6Addr {
        Ipv6Addr::from(get!(array_at, self.bytes, field::SGID))
    }
    /// DGID: destination global identifier.
    #[inline]
    pub fn dgid(&self) -> Ipv6Addr {
        Ipv6Addr::from(get!(array_at, self.bytes, field::DGID))
    }
    #[inline]
    fn first_word(&self) -> u32 {
        get!(u32_at, self.bytes, field::VER_TCLASS_FLOW)
    }

    /// Checks PayLen where nothing but the frame bounds it (RoCE v1): the GRH and its
    /// payload must fit the `room` the frame leaves from the GRH's start. `offset`, the
    /// GRH's, labels an error. The packet's length in bytes, GRH through ICRC.
    #[inline]
    pub fn check_len(&self, offset: usize, room: usize) -> Result<usize, DecodeError> {
        let len = HEADER_LEN + usize::from(self.paylen());
        if len > room {
            return Err(DecodeError::invalid(
                Layer::Grh,
                offset + field::PAYLEN.start,
                "GRH PayLen exceeds the frame",
            ));
        }
        Ok(len)
    }

    /// Checks PayLen under an LRH, whose PktLen already says where the packet ends: the GRH
    /// and its payload must fill exactly the `room` PktLen leaves from the GRH's start.
    #[inline]
    pub fn check_len_under_lrh(&self, offset: usize, room: usize) -> Result<(), DecodeError> {
        if HEADER_LEN + usize::from(self.paylen()) != room {
            return Err(DecodeError::invalid(
                Layer::Grh,
                offset + field::PAYLEN.start,
                "GRH PayLen disagrees with LRH PktLen",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let grh = Grh::new_checked(&bytes, 0).unwrap();
        assert_eq!(grh.ipver(), 6);
        assert_eq!(grh.tclass(), 0xab);
        assert_eq!(grh.flow_label(), 0xcdef1);
        assert_eq!(grh.paylen(), 0x40);
        assert_eq!(grh.nxthdr(), 0x1b);
        assert_eq!(grh.hoplmt(), 64);
        assert_eq!(grh.sgid().to_string(), "fe80::1");
        assert_eq!(grh.dgid().to_string(), "fe80::2");
        // PayLen 0x40: the packet is 104 bytes from the GRH on.
        assert_eq!(grh.check_len(14, 104), Ok(104));
        let too_long = DecodeError::invalid(Layer::Grh, 18, "GRH PayLen exceeds the frame");
        assert_eq!(grh.check_len(14, 103), Err(too_long));
        assert_eq!(grh.check_len_under_lrh(8, 104), Ok(()));
        let disagrees =
            DecodeError::invalid(Layer::Grh, 12, "GRH PayLen disagrees with LRH PktLen");
        assert_eq!(grh.check_len_under_lrh(8, 108), Err(disagrees));
    }
}
