//! VXLAN (RFC 7348): an Ethernet frame inside UDP.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// Eight flag bits; 24 reserved bits follow.
    pub const FLAGS: usize = 0;
    /// VXLAN Network Identifier; one reserved byte follows.
    pub const VNI: Field = 4..7;
}

/// The VNI and the reserved byte that ends the header.
const HEADER_LEN: usize = field::VNI.end + 1;

header_view!(
    /// The 8-byte VXLAN header.
    VxlanHeader, HEADER_LEN, Layer::Vxlan
);

/// The IANA port of VXLAN.
pub const VXLAN_PORT: u16 = 4789;

impl VxlanHeader<'_> {
    /// The flags byte; only I (0x08) is defined.
    #[inline]
    pub fn flags(&self) -> u8 {
        self.bytes[field::FLAGS]
    }
    /// I: the VNI is valid.
    #[inline]
    pub fn vni_valid(&self) -> bool {
        self.bytes[field::FLAGS] & 0x08 != 0
    }
    /// VNI: the 24-bit segment identifier.
    #[inline]
    pub fn vni(&self) -> u32 {
        get!(u24_at, self.bytes, field::VNI)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        // Hand-assembled from RFC 7348: I set, VNI 0x00abcd.
        let bytes = [0x08, 0, 0, 0, 0x00, 0xab, 0xcd, 0];
        let h = VxlanHeader::new_checked(&bytes, 42).unwrap();
        assert!(h.vni_valid());
        assert_eq!((h.flags(), h.vni()), (0x08, 0xabcd));
    }
}
