//! The bodies of SMB2 READ and WRITE (MS-SMB2 2.2.19 to 2.2.22): how much, where in the
//! file, and over SMB Direct the RDMA channel and its buffer descriptors (MS-SMBD 2.2.3.1),
//! which name the client's memory the server RDMA WRITEs (READ) or RDMA READs (WRITE).

use super::super::{Field, Layer, header_view, le};

mod read_request {
    use super::Field;

    pub const STRUCTURE_SIZE: Field = 0..2;
    pub const LENGTH: Field = 4..8;
    pub const OFFSET: Field = 8..16;
    pub const MINIMUM_COUNT: Field = 32..36;
    pub const CHANNEL: Field = 36..40;
    pub const REMAINING_BYTES: Field = 40..44;
    /// From the SMB2 header.
    pub const CHANNEL_INFO_OFFSET: Field = 44..46;
    pub const CHANNEL_INFO_LENGTH: Field = 46..48;
}

mod read_response {
    use super::Field;

    pub const STRUCTURE_SIZE: Field = 0..2;
    pub const DATA_LENGTH: Field = 4..8;
    pub const DATA_REMAINING: Field = 8..12;
    pub const RESERVED: Field = 12..16;
}

mod write_request {
    use super::Field;

    pub const STRUCTURE_SIZE: Field = 0..2;
    pub const LENGTH: Field = 4..8;
    pub const OFFSET: Field = 8..16;
    pub const CHANNEL: Field = 32..36;
    pub const REMAINING_BYTES: Field = 36..40;
    pub const CHANNEL_INFO_OFFSET: Field = 40..42;
    pub const CHANNEL_INFO_LENGTH: Field = 42..44;
    pub const FLAGS: Field = 44..48;
}

mod write_response {
    use super::Field;

    pub const STRUCTURE_SIZE: Field = 0..2;
    pub const COUNT: Field = 4..8;
    pub const REMAINING: Field = 8..12;
    pub const CHANNEL_INFO: Field = 12..16;
}

mod descriptor {
    use super::Field;

    pub const OFFSET: Field = 0..8;
    pub const TOKEN: Field = 8..12;
    pub const LENGTH: Field = 12..16;
}

pub const READ_REQUEST_LEN: usize = read_request::CHANNEL_INFO_LENGTH.end;
pub const READ_RESPONSE_LEN: usize = read_response::RESERVED.end;
pub const WRITE_REQUEST_LEN: usize = write_request::FLAGS.end;
pub const WRITE_RESPONSE_LEN: usize = write_response::CHANNEL_INFO.end;
pub const DESCRIPTOR_LEN: usize = descriptor::LENGTH.end;

/// SMB2 channels (MS-SMB2 2.2.19).
pub mod channel {
    pub const NONE: u32 = 0;
    pub const RDMA_V1: u32 = 1;
    pub const RDMA_V1_INVALIDATE: u32 = 2;
    pub const RDMA_TRANSFORM: u32 = 3;
}

header_view!(
    /// The fixed part of a READ request.
    ReadRequest, READ_REQUEST_LEN, Layer::Smb2
);
header_view!(
    /// The fixed part of a READ response.
    ReadResponse, READ_RESPONSE_LEN, Layer::Smb2
);
header_view!(
    /// The fixed part of a WRITE request.
    WriteRequest, WRITE_REQUEST_LEN, Layer::Smb2
);
header_view!(
    /// A WRITE response.
    WriteResponse, WRITE_RESPONSE_LEN, Layer::Smb2
);
header_view!(
    /// An SMB Direct buffer descriptor V1: a registered buffer's address, token (R_Key)
    /// and length.
    BufferDescriptor, DESCRIPTOR_LEN, Layer::Smb2
);

impl ReadRequest<'_> {
    pub fn structure_size(&self) -> u16 {
        le!(u16, self.bytes, read_request::STRUCTURE_SIZE)
    }
    pub fn length(&self) -> u32 {
        le!(u32, self.bytes, read_request::LENGTH)
    }
    pub fn offset(&self) -> u64 {
        le!(u64, self.bytes, read_request::OFFSET)
    }
    pub fn minimum_count(&self) -> u32 {
        le!(u32, self.bytes, read_request::MINIMUM_COUNT)
    }
    pub fn channel(&self) -> u32 {
        le!(u32, self.bytes, read_request::CHANNEL)
    }
    pub fn remaining_bytes(&self) -> u32 {
        le!(u32, self.bytes, read_request::REMAINING_BYTES)
    }
    pub fn channel_info(&self) -> (u16, u16) {
        (
            le!(u16, self.bytes, read_request::CHANNEL_INFO_OFFSET),
            le!(u16, self.bytes, read_request::CHANNEL_INFO_LENGTH),
        )
    }
}

impl ReadResponse<'_> {
    pub fn structure_size(&self) -> u16 {
        le!(u16, self.bytes, read_response::STRUCTURE_SIZE)
    }
    pub fn data_length(&self) -> u32 {
        le!(u32, self.bytes, read_response::DATA_LENGTH)
    }
    pub fn data_remaining(&self) -> u32 {
        le!(u32, self.bytes, read_response::DATA_REMAINING)
    }
}

impl WriteRequest<'_> {
    pub fn structure_size(&self) -> u16 {
        le!(u16, self.bytes, write_request::STRUCTURE_SIZE)
    }
    pub fn length(&self) -> u32 {
        le!(u32, self.bytes, write_request::LENGTH)
    }
    pub fn offset(&self) -> u64 {
        le!(u64, self.bytes, write_request::OFFSET)
    }
    pub fn channel(&self) -> u32 {
        le!(u32, self.bytes, write_request::CHANNEL)
    }
    pub fn remaining_bytes(&self) -> u32 {
        le!(u32, self.bytes, write_request::REMAINING_BYTES)
    }
    pub fn channel_info(&self) -> (u16, u16) {
        (
            le!(u16, self.bytes, write_request::CHANNEL_INFO_OFFSET),
            le!(u16, self.bytes, write_request::CHANNEL_INFO_LENGTH),
        )
    }
    pub fn flags(&self) -> u32 {
        le!(u32, self.bytes, write_request::FLAGS)
    }
    /// Bytes to write: over an RDMA channel clients send Length 0 and the bytes the server
    /// RDMA READs in RemainingBytes (MS-SMB2 3.2.4.7), inline the Length.
    pub fn data_len(&self) -> u32 {
        match self.channel() {
            channel::RDMA_V1 | channel::RDMA_V1_INVALIDATE => self.remaining_bytes(),
            _ => self.length(),
        }
    }
}

impl WriteResponse<'_> {
    pub fn structure_size(&self) -> u16 {
        le!(u16, self.bytes, write_response::STRUCTURE_SIZE)
    }
    pub fn count(&self) -> u32 {
        le!(u32, self.bytes, write_response::COUNT)
    }
    pub fn remaining(&self) -> u32 {
        le!(u32, self.bytes, write_response::REMAINING)
    }
}

impl BufferDescriptor<'_> {
    pub fn offset(&self) -> u64 {
        le!(u64, self.bytes, descriptor::OFFSET)
    }
    pub fn token(&self) -> u32 {
        le!(u32, self.bytes, descriptor::TOKEN)
    }
    pub fn length(&self) -> u32 {
        le!(u32, self.bytes, descriptor::LENGTH)
    }
}

/// The buffer descriptors of an RDMA channel: `length` bytes at `offset` from the SMB2
/// header in `message`, walked only as far as the bytes present.
pub fn descriptors(
    message: &[u8],
    offset: u16,
    length: u16,
) -> impl Iterator<Item = BufferDescriptor<'_>> + '_ {
    let start = usize::from(offset).min(message.len());
    let end = start.saturating_add(usize::from(length)).min(message.len());
    message[start..end]
        .chunks_exact(DESCRIPTOR_LEN)
        .filter_map(|d| BufferDescriptor::new_checked(d, 0).ok())
}

/// The channel's name (MS-SMB2 2.2.19).
pub fn channel_name(ch: u32) -> &'static str {
    match ch {
        channel::NONE => "NONE",
        channel::RDMA_V1 => "RDMA_V1",
        channel::RDMA_V1_INVALIDATE => "RDMA_V1_INVALIDATE",
        channel::RDMA_TRANSFORM => "RDMA_TRANSFORM",
        _ => "UNKNOWN",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_request_with_an_rdma_channel() {
        // MS-SMB2 2.2.19: 65536 bytes at 0x10000, channel RDMA_V1, one descriptor of 16
        // bytes at 112 from the header (64 + 48); MS-SMBD 2.2.3.1 descriptor.
        let mut msg = vec![0u8; 64];
        let mut body = vec![0u8; READ_REQUEST_LEN];
        body[..2].copy_from_slice(&49u16.to_le_bytes());
        body[4..8].copy_from_slice(&65536u32.to_le_bytes());
        body[8..16].copy_from_slice(&0x10000u64.to_le_bytes());
        body[36..40].copy_from_slice(&1u32.to_le_bytes());
        body[44..46].copy_from_slice(&112u16.to_le_bytes());
        body[46..48].copy_from_slice(&16u16.to_le_bytes());
        msg.extend(&body);
        msg.extend(0x7_0000_0000u64.to_le_bytes());
        msg.extend(0xc0de_u32.to_le_bytes());
        msg.extend(65536u32.to_le_bytes());
        let r = ReadRequest::new_checked(&msg[64..], 64).unwrap();
        assert_eq!((r.length(), r.offset()), (65536, 0x10000));
        assert_eq!(channel_name(r.channel()), "RDMA_V1");
        let (at, len) = r.channel_info();
        let d: Vec<_> = descriptors(&msg, at, len).collect();
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].offset(), d[0].token(), d[0].length()),
            (0x7_0000_0000, 0xc0de, 65536)
        );
        // A length past the bytes present walks only what is there.
        assert_eq!(descriptors(&msg, at, 0xffff).count(), 1);
        assert_eq!(descriptors(&msg, 0xfff0, 16).count(), 0);
    }
}
