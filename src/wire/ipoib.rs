//! IP over InfiniBand encapsulation header (RFC 4391 section 6).

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const TYPE: Field = 0..2;
    pub const RESERVED: Field = 2..4;
}

const HEADER_LEN: usize = field::RESERVED.end;

header_view!(
    /// The 4-byte IPoIB header: an EtherType, then 16 reserved bits.
    IpoibHeader, HEADER_LEN, Layer::Ipoib
);

impl IpoibHeader<'_> {
    /// Type: the EtherType of what follows.
    #[inline]
    pub fn ethertype(&self) -> u16 {
        get!(u16_at, self.bytes, field::TYPE)
    }
    /// Reserved: zero on the wire.
    #[inline]
    pub fn reserved(&self) -> u16 {
        get!(u16_at, self.bytes, field::RESERVED)
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
