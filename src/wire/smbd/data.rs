//! The SMB Direct data transfer message (MS-SMBD 2.2.3): credits, flags, how much of a
//! fragmented message is still to come, and where its data lies in the SEND.

use super::super::{DecodeError, Field, Layer, header_view, le};

mod field {
    use super::Field;

    pub const CREDITS_REQUESTED: Field = 0..2;
    pub const CREDITS_GRANTED: Field = 2..4;
    /// SMB_DIRECT_RESPONSE_REQUESTED (0x0001): the peer should answer promptly.
    pub const FLAGS: Field = 4..6;
    pub const RESERVED: Field = 6..8;
    /// Bytes of the upper-layer message that follow in later data transfer messages.
    pub const REMAINING_DATA_LENGTH: Field = 8..12;
    /// From the start of this message, 8-byte aligned; 0 when there is no data.
    pub const DATA_OFFSET: Field = 12..16;
    pub const DATA_LENGTH: Field = 16..20;
}

pub const HEADER_LEN: usize = field::DATA_LENGTH.end;

pub const RESPONSE_REQUESTED: u16 = 0x0001;

header_view!(
    /// The 20 bytes every data transfer message begins with.
    DataHeader, HEADER_LEN, Layer::SmbDirect
);

impl DataHeader<'_> {
    pub fn credits_requested(&self) -> u16 {
        le!(u16, self.bytes, field::CREDITS_REQUESTED)
    }
    pub fn credits_granted(&self) -> u16 {
        le!(u16, self.bytes, field::CREDITS_GRANTED)
    }
    pub fn flags(&self) -> u16 {
        le!(u16, self.bytes, field::FLAGS)
    }
    pub fn response_requested(&self) -> bool {
        self.flags() & RESPONSE_REQUESTED != 0
    }
    pub fn reserved(&self) -> u16 {
        le!(u16, self.bytes, field::RESERVED)
    }
    pub fn remaining_data_length(&self) -> u32 {
        le!(u32, self.bytes, field::REMAINING_DATA_LENGTH)
    }
    pub fn data_offset(&self) -> u32 {
        le!(u32, self.bytes, field::DATA_OFFSET)
    }
    pub fn data_length(&self) -> u32 {
        le!(u32, self.bytes, field::DATA_LENGTH)
    }
}

/// A data transfer message: its header, and its data as far as the SEND holds it.
#[derive(Debug, Clone, Copy)]
pub struct DataMessage<'a> {
    pub header: DataHeader<'a>,
    /// The bytes `DataOffset` and `DataLength` name, cut to what the SEND holds (a
    /// truncated capture keeps what it has); empty without data.
    pub data: &'a [u8],
}

impl<'a> DataMessage<'a> {
    /// Checks the header and that the data begins after it; `offset` labels an error.
    pub fn new_checked(buf: &'a [u8], offset: usize) -> Result<Self, DecodeError> {
        let header = DataHeader::new_checked(buf, offset)?;
        let (at, len) = (header.data_offset(), header.data_length());
        if len == 0 {
            return Ok(DataMessage { header, data: &[] });
        }
        if (at as usize) < HEADER_LEN {
            return Err(DecodeError::invalid(
                Layer::SmbDirect,
                offset + field::DATA_OFFSET.start,
                "DataOffset points into the header",
            ));
        }
        let start = (at as usize).min(buf.len());
        let end = start.saturating_add(len as usize).min(buf.len());
        Ok(DataMessage {
            header,
            data: &buf[start..end],
        })
    }

    /// Whether the SEND holds all of the data it announces.
    pub fn is_whole(&self) -> bool {
        self.data.len() as u64 == u64::from(self.header.data_length())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_is_found_by_offset_and_cut_to_the_send() {
        // MS-SMBD 2.2.3: 10 credits requested, 1 granted, RESPONSE_REQUESTED, no more to
        // come, 8 bytes of data at offset 24 (after 4 bytes of padding).
        let mut b = vec![10, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 24, 0, 0, 0, 8, 0, 0, 0];
        b.extend([0; 4]);
        b.extend(b"abcdefgh");
        let m = DataMessage::new_checked(&b, 0).unwrap();
        assert_eq!(m.header.credits_requested(), 10);
        assert!(m.header.response_requested());
        assert_eq!(m.data, b"abcdefgh");
        assert!(m.is_whole());
        let cut = DataMessage::new_checked(&b[..28], 0).unwrap();
        assert_eq!((cut.data, cut.is_whole()), (&b"abcd"[..], false));
        b[12] = 8;
        assert!(DataMessage::new_checked(&b, 40).is_err());
    }
}
