//! VXLAN (RFC 7348): an Ethernet frame inside UDP.

use super::{Layer, header_view, u24_at};

header_view!(
    /// The 8-byte VXLAN header.
    VxlanHeader, 8, Layer::Vxlan
);

/// The IANA port of VXLAN.
pub const VXLAN_PORT: u16 = 4789;

impl VxlanHeader<'_> {
    /// The flags byte; only I (0x08) is defined.
    #[inline]
    pub fn flags(&self) -> u8 {
        self.bytes[0]
    }
    /// I: the VNI is valid.
    #[inline]
    pub fn vni_valid(&self) -> bool {
        self.bytes[0] & 0x08 != 0
    }
    /// VNI: the 24-bit segment identifier.
    #[inline]
    pub fn vni(&self) -> u32 {
        u24_at::<4, 8>(self.bytes)
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
