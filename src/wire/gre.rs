//! Generic Routing Encapsulation (RFC 2784, with the key and sequence number of RFC 2890).

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// C, R, K, S and the rest of RFC 1701's flags.
    pub const FLAGS: usize = 0;
    /// Five more flag bits, then Ver.
    pub const VERSION: usize = 1;
    pub const PROTOCOL_TYPE: Field = 2..4;
}

const HEADER_LEN: usize = field::PROTOCOL_TYPE.end;

header_view!(
    /// The 4-byte GRE base header: flags, version, protocol type.
    GreHeader, HEADER_LEN, Layer::Gre
);

pub mod protocol {
    /// Transparent Ethernet bridging: an Ethernet frame follows.
    pub const TRANSPARENT_ETHERNET: u16 = 0x6558;
    pub const IPV4: u16 = 0x0800;
    pub const IPV6: u16 = 0x86dd;
    /// ERSPAN type II (type I when no sequence number is present).
    pub const ERSPAN_II: u16 = 0x88be;
    pub const ERSPAN_III: u16 = 0x22eb;
}

/// IP protocol number of GRE.
pub const IPPROTO_GRE: u8 = 47;

const CHECKSUM_PRESENT: u8 = 0x80;
const ROUTING_PRESENT: u8 = 0x40;
const KEY_PRESENT: u8 = 0x20;
const SEQUENCE_PRESENT: u8 = 0x10;

impl GreHeader<'_> {
    /// C: Checksum Present.
    #[inline]
    pub fn checksum_present(&self) -> bool {
        self.bytes[field::FLAGS] & CHECKSUM_PRESENT != 0
    }
    /// R: RFC 1701 source routing; its variable-length entries are not decoded.
    #[inline]
    pub fn routing_present(&self) -> bool {
        self.bytes[field::FLAGS] & ROUTING_PRESENT != 0
    }
    /// K: Key Present.
    #[inline]
    pub fn key_present(&self) -> bool {
        self.bytes[field::FLAGS] & KEY_PRESENT != 0
    }
    /// S: Sequence Number Present.
    #[inline]
    pub fn sequence_present(&self) -> bool {
        self.bytes[field::FLAGS] & SEQUENCE_PRESENT != 0
    }
    /// Ver: 0 for GRE proper, 1 for PPTP's enhanced GRE.
    #[inline]
    pub fn version(&self) -> u8 {
        self.bytes[field::VERSION] & 0x07
    }
    /// Protocol Type: the EtherType of the payload.
    #[inline]
    pub fn protocol(&self) -> u16 {
        get!(u16_at, self.bytes, field::PROTOCOL_TYPE)
    }
    /// Bytes of optional fields (checksum, key, sequence number) after the base header.
    #[inline]
    pub fn options_len(&self) -> usize {
        4 * (usize::from(self.checksum_present() || self.routing_present())
            + usize::from(self.key_present())
            + usize::from(self.sequence_present()))
    }
}

/// A GRE header with its optional fields, whose presence the base header's flags give.
#[derive(Debug, Clone, Copy)]
pub struct Gre<'a> {
    pub header: GreHeader<'a>,
    /// Exactly `header.options_len()` bytes.
    options: &'a [u8],
}

impl<'a> Gre<'a> {
    /// `options` must be the `header.options_len()` bytes after the base header.
    pub fn new_checked(
        header: GreHeader<'a>,
        options: &'a [u8],
        offset: usize,
    ) -> Result<Self, super::DecodeError> {
        if options.len() != header.options_len() {
            return Err(super::DecodeError::short(
                Layer::Gre,
                offset,
                header.options_len(),
                options.len(),
            ));
        }
        Ok(Gre { header, options })
    }

    fn word(&self, index: usize) -> Option<u32> {
        let bytes = self.options.get(index * 4..index * 4 + 4)?;
        Some(u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// The checksum (upper half of the first optional word).
    pub fn checksum(&self) -> Option<u16> {
        if !self.header.checksum_present() {
            return None;
        }
        self.word(0).map(|w| (w >> 16) as u16)
    }

    pub fn key(&self) -> Option<u32> {
        if !self.header.key_present() {
            return None;
        }
        self.word(usize::from(
            self.header.checksum_present() || self.header.routing_present(),
        ))
    }

    pub fn sequence(&self) -> Option<u32> {
        if !self.header.sequence_present() {
            return None;
        }
        self.word(self.options.len() / 4 - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_fields_follow_the_flags() {
        // Hand-assembled from RFC 2784/2890: C, K and S set, version 0, protocol 0x6558;
        // checksum 0xabcd, reserved 0, key 0x01020304, sequence 7.
        let base = [0xb0, 0x00, 0x65, 0x58];
        let options = [0xab, 0xcd, 0, 0, 1, 2, 3, 4, 0, 0, 0, 7];
        let header = GreHeader::new_checked(&base, 34).unwrap();
        assert_eq!(header.options_len(), 12);
        assert_eq!(header.protocol(), protocol::TRANSPARENT_ETHERNET);
        let gre = Gre::new_checked(header, &options, 34).unwrap();
        assert_eq!(gre.checksum(), Some(0xabcd));
        assert_eq!(gre.key(), Some(0x0102_0304));
        assert_eq!(gre.sequence(), Some(7));
        assert!(Gre::new_checked(header, &options[..8], 34).is_err());
    }

    #[test]
    fn sequence_alone_and_version() {
        let base = [0x10, 0x01, 0x88, 0xbe];
        let header = GreHeader::new_checked(&base, 0).unwrap();
        assert_eq!((header.version(), header.options_len()), (1, 4));
        let gre = Gre::new_checked(header, &[0, 0, 1, 0], 0).unwrap();
        assert_eq!(
            (gre.key(), gre.sequence(), gre.checksum()),
            (None, Some(256), None)
        );
    }
}
