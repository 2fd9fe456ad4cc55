//! Management datagrams (IBA 13.4): the 256-byte MADs that QP0 (SMI) and QP1 (GSI) carry
//! as UD SEND_ONLY payload, and the class-specific layouts behind their common header.

pub mod cm;
pub mod names;
pub mod perf;
pub mod sa;
pub mod smp;

use super::{Field, Layer, get, header_view};

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

mod field {
    use super::Field;

    pub const BASE_VERSION: usize = 0;
    pub const MGMT_CLASS: usize = 1;
    pub const CLASS_VERSION: usize = 2;
    /// R and Method.
    pub const METHOD: usize = 3;
    pub const STATUS: Field = 4..6;
    pub const CLASS_SPECIFIC: Field = 6..8;
    pub const TRANSACTION_ID: Field = 8..16;
    /// Two reserved bytes follow.
    pub const ATTRIBUTE_ID: Field = 16..18;
    pub const ATTRIBUTE_MODIFIER: Field = 20..24;
}

header_view!(
    /// The 24-byte common MAD header (IBA 13.4.3).
    MadHeader, field::ATTRIBUTE_MODIFIER.end, Layer::Mad
);

impl MadHeader<'_> {
    /// BaseVersion: 1.
    #[inline]
    pub fn base_version(&self) -> u8 {
        self.bytes[field::BASE_VERSION]
    }
    /// MgmtClass: management class.
    #[inline]
    pub fn mgmt_class(&self) -> u8 {
        self.bytes[field::MGMT_CLASS]
    }
    /// ClassVersion.
    #[inline]
    pub fn class_version(&self) -> u8 {
        self.bytes[field::CLASS_VERSION]
    }
    /// The method, response bit (0x80) included.
    #[inline]
    pub fn method(&self) -> u8 {
        self.bytes[field::METHOD]
    }
    /// The whole 16-bit field; a directed-route SMP keeps its D bit in the top bit.
    #[inline]
    pub fn status(&self) -> u16 {
        get!(u16_at, self.bytes, field::STATUS)
    }
    /// Hop pointer (high byte) and hop count (low byte) in a directed-route SMP.
    #[inline]
    pub fn class_specific(&self) -> u16 {
        get!(u16_at, self.bytes, field::CLASS_SPECIFIC)
    }
    /// TransactionID.
    #[inline]
    pub fn tid(&self) -> u64 {
        get!(u64_at, self.bytes, field::TRANSACTION_ID)
    }
    /// AttributeID.
    #[inline]
    pub fn attr_id(&self) -> u16 {
        get!(u16_at, self.bytes, field::ATTRIBUTE_ID)
    }
    /// AttributeModifier.
    #[inline]
    pub fn attr_mod(&self) -> u32 {
        get!(u32_at, self.bytes, field::ATTRIBUTE_MODIFIER)
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
