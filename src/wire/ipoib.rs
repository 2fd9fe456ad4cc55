//! IP over InfiniBand encapsulation header (RFC 4391 section 6).

use super::{Layer, header_view, u16_at};

header_view!(
    /// The 4-byte IPoIB header: an EtherType, then 16 reserved bits.
    IpoibHeader, 4, Layer::Ipoib
);

impl IpoibHeader<'_> {
    /// Type: the EtherType of what follows.
    #[inline]
    pub fn ethertype(&self) -> u16 {
        u16_at::<0, 4>(self.bytes)
    }
    /// Reserved: zero on the wire.
    #[inline]
    pub fn reserved(&self) -> u16 {
        u16_at::<2, 4>(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        // Hand-assembled from RFC 4391: EtherType 0x0806 (ARP), reserved zero.
        let h = IpoibHeader::new_checked(&[0x08, 0x06, 0x00, 0x00], 0).unwrap();
        assert_eq!((h.ethertype(), h.reserved()), (0x0806, 0));
        assert!(IpoibHeader::new_checked(&[0x08, 0x06, 0x00], 9).is_err());
    }
}
