//! The SGL descriptor of a command (NVMe base 2.0, 4.3.2): on RDMA, a keyed data block names
//! a host buffer by address, length and R_Key, which the controller reads (host to
//! controller data) or writes with RDMA; a data block with the offset subtype points into
//! the capsule itself (in-capsule data).

use super::super::{Field, Layer, header_view};
use super::le;

mod field {
    use super::Field;

    pub const ADDRESS: Field = 0..8;
    /// Keyed data block: a 24-bit length, then the key.
    pub const KEYED_LENGTH: Field = 8..11;
    pub const KEY: Field = 11..15;
    /// Other descriptors: a 32-bit length.
    pub const LENGTH: Field = 8..12;
    /// Descriptor type in the high nibble, subtype in the low one.
    pub const IDENTIFIER: usize = 15;
}

const DESCRIPTOR_LEN: usize = field::IDENTIFIER + 1;

/// Descriptor types (NVMe base 2.0, figure 118).
pub mod kind {
    pub const DATA_BLOCK: u8 = 0x0;
    pub const BIT_BUCKET: u8 = 0x1;
    pub const SEGMENT: u8 = 0x2;
    pub const LAST_SEGMENT: u8 = 0x3;
    pub const KEYED_DATA_BLOCK: u8 = 0x4;
    pub const TRANSPORT_DATA_BLOCK: u8 = 0x5;
}

/// The data block subtype whose address is an offset into the capsule: in-capsule data.
pub const SUBTYPE_OFFSET: u8 = 0x1;

header_view!(
    /// One 16-byte SGL descriptor.
    Sgl, DESCRIPTOR_LEN, Layer::Nvme
);

impl Sgl<'_> {
    pub fn desc_type(&self) -> u8 {
        self.bytes[field::IDENTIFIER] >> 4
    }
    pub fn subtype(&self) -> u8 {
        self.bytes[field::IDENTIFIER] & 0x0f
    }
    pub fn address(&self) -> u64 {
        le!(u64, self.bytes, field::ADDRESS)
    }
    pub fn is_keyed(&self) -> bool {
        self.desc_type() == kind::KEYED_DATA_BLOCK
    }
    /// Bytes the descriptor names: 24 bits wide in a keyed data block, 32 otherwise.
    pub fn length(&self) -> u32 {
        if self.is_keyed() {
            let b: &[u8; 3] = crate::wire::get!(sub_at, self.bytes, field::KEYED_LENGTH);
            u32::from_le_bytes([b[0], b[1], b[2], 0])
        } else {
            le!(u32, self.bytes, field::LENGTH)
        }
    }
    /// The R_Key the controller's RDMA READ or WRITE will carry; keyed descriptors only.
    pub fn key(&self) -> Option<u32> {
        self.is_keyed().then(|| le!(u32, self.bytes, field::KEY))
    }
    /// Whether the type is one a command may name in SGL1 (NVMe-oF allows the keyed data
    /// block, and the data block for in-capsule data); a capsule whose SGL1 is anything
    /// else is not taken for a command when guessing from traffic.
    pub fn is_valid_for_fabrics(&self) -> bool {
        match self.desc_type() {
            kind::KEYED_DATA_BLOCK => true,
            kind::DATA_BLOCK => self.subtype() == SUBTYPE_OFFSET,
            kind::TRANSPORT_DATA_BLOCK => true,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_data_block() {
        // Hand-assembled from NVMe base 2.0 figure 124: address 0x207ff33800, length 1024
        // (0x000400, 3 bytes LE), key 0x1724, identifier 0x40 (keyed data block, subtype 0).
        let bytes = [
            0x00, 0x38, 0xf3, 0x7f, 0x20, 0, 0, 0, 0x00, 0x04, 0x00, 0x24, 0x17, 0, 0, 0x40,
        ];
        let sgl = Sgl::new_checked(&bytes, 0).unwrap();
        assert_eq!(sgl.desc_type(), kind::KEYED_DATA_BLOCK);
        assert_eq!(sgl.address(), 0x20_7ff3_3800);
        assert_eq!(sgl.length(), 1024);
        assert_eq!(sgl.key(), Some(0x1724));
        assert!(sgl.is_valid_for_fabrics());
    }

    #[test]
    fn in_capsule_data_block() {
        // Offset 0, length 0x40, identifier 0x01 (data block, offset subtype).
        let bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0x01];
        let sgl = Sgl::new_checked(&bytes, 0).unwrap();
        assert_eq!(sgl.length(), 64);
        assert_eq!(sgl.key(), None);
        assert!(sgl.is_valid_for_fabrics());
    }
}
