//! Management datagrams (IBA 13.4): the 256-byte MADs that QP0 (SMI) and QP1 (GSI) carry
//! as UD SEND_ONLY payload, and the class-specific layouts behind their common header.

pub mod cm;
pub mod names;
pub mod perf;
pub mod sa;
pub mod smp;

use super::{Layer, header_view, u8_at, u16_at, u32_at, u64_at};

/// Every MAD on IB and RoCE is exactly this long.
pub const MAD_LEN: usize = 256;

/// QP0 and QP1: the only queue pairs whose UD SEND_ONLY payload is a MAD.
pub const MAX_MANAGEMENT_QP: u32 = 1;

/// Management classes with a layout of their own.
pub mod class {
    pub const SUBN_LID_ROUTED: u8 = 0x01;
    pub const SUBN_ADM: u8 = 0x03;
    pub const PERF: u8 = 0x04;
    pub const CM: u8 = 0x07;
    pub const SUBN_DIRECTED_ROUTE: u8 = 0x81;
}

header_view!(
    /// The 24-byte common MAD header (IBA 13.4.3).
    MadHeader, 24, Layer::Mad
);

impl MadHeader<'_> {
    #[inline]
    pub fn base_version(&self) -> u8 {
        u8_at::<0, 24>(self.bytes)
    }
    #[inline]
    pub fn mgmt_class(&self) -> u8 {
        u8_at::<1, 24>(self.bytes)
    }
    #[inline]
    pub fn class_version(&self) -> u8 {
        u8_at::<2, 24>(self.bytes)
    }
    /// The method, response bit (0x80) included.
    #[inline]
    pub fn method(&self) -> u8 {
        u8_at::<3, 24>(self.bytes)
    }
    /// The whole 16-bit field; a directed-route SMP keeps its D bit in the top bit.
    #[inline]
    pub fn status(&self) -> u16 {
        u16_at::<4, 24>(self.bytes)
    }
    /// Hop pointer (high byte) and hop count (low byte) in a directed-route SMP.
    #[inline]
    pub fn class_specific(&self) -> u16 {
        u16_at::<6, 24>(self.bytes)
    }
    #[inline]
    pub fn tid(&self) -> u64 {
        u64_at::<8, 24>(self.bytes)
    }
    #[inline]
    pub fn attr_id(&self) -> u16 {
        u16_at::<16, 24>(self.bytes)
    }
    #[inline]
    pub fn attr_mod(&self) -> u32 {
        u32_at::<20, 24>(self.bytes)
    }
    pub fn is_directed_route(&self) -> bool {
        self.mgmt_class() == class::SUBN_DIRECTED_ROUTE
    }
    /// Directed route: the D bit, set on the way back.
    pub fn direction(&self) -> bool {
        self.status() & 0x8000 != 0
    }
    pub fn hop_pointer(&self) -> u8 {
        (self.class_specific() >> 8) as u8
    }
    pub fn hop_count(&self) -> u8 {
        self.class_specific() as u8
    }
}

/// `L` bytes at constant offset `S` of a checked view, as an array reference.
#[inline]
pub(crate) fn sub_at<const S: usize, const L: usize, const N: usize>(b: &[u8; N]) -> &[u8; L] {
    const { assert!(S + L <= N) };
    match b[S..].first_chunk::<L>() {
        Some(part) => part,
        // The const assertion above rules this out at compile time.
        None => unreachable!(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_header_fields() {
        // Hand-assembled from IBA 13.4.3: a directed-route SubnGetResp(SMInfo) on its way
        // back (D set), hop pointer 1 of 2 hops.
        let bytes = [
            0x01, 0x81, 0x01, 0x81, 0x80, 0x00, 0x01, 0x02, 0, 1, 0x50, 0x9c, 0, 1, 0x25, 0xc8,
            0x00, 0x20, 0, 0, 0x12, 0x34, 0x56, 0x78,
        ];
        let mad = MadHeader::new_checked(&bytes, 0).unwrap();
        assert_eq!(
            (mad.base_version(), mad.mgmt_class(), mad.class_version()),
            (1, 0x81, 1)
        );
        assert_eq!((mad.method(), mad.status()), (0x81, 0x8000));
        assert_eq!(mad.tid(), 0x0001_509c_0001_25c8);
        assert_eq!((mad.attr_id(), mad.attr_mod()), (0x20, 0x1234_5678));
        assert!(mad.is_directed_route() && mad.direction());
        assert_eq!((mad.hop_pointer(), mad.hop_count()), (1, 2));
        assert!(MadHeader::new_checked(&bytes[..23], 0).is_err());
    }
}
