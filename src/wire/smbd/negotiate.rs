//! The SMB Direct negotiate request and response (MS-SMBD 2.2.1, 2.2.2): the first message
//! each peer sends, agreeing on the version, credits and message sizes.

use super::super::{Field, Layer, header_view, le};

mod request {
    use super::Field;

    pub const MIN_VERSION: Field = 0..2;
    pub const MAX_VERSION: Field = 2..4;
    pub const RESERVED: Field = 4..6;
    pub const CREDITS_REQUESTED: Field = 6..8;
    pub const PREFERRED_SEND_SIZE: Field = 8..12;
    pub const MAX_RECEIVE_SIZE: Field = 12..16;
    pub const MAX_FRAGMENTED_SIZE: Field = 16..20;
}

mod response {
    use super::Field;

    pub const MIN_VERSION: Field = 0..2;
    pub const MAX_VERSION: Field = 2..4;
    pub const NEGOTIATED_VERSION: Field = 4..6;
    pub const RESERVED: Field = 6..8;
    pub const CREDITS_REQUESTED: Field = 8..10;
    pub const CREDITS_GRANTED: Field = 10..12;
    pub const STATUS: Field = 12..16;
    pub const MAX_READ_WRITE_SIZE: Field = 16..20;
    pub const PREFERRED_SEND_SIZE: Field = 20..24;
    pub const MAX_RECEIVE_SIZE: Field = 24..28;
    pub const MAX_FRAGMENTED_SIZE: Field = 28..32;
}

pub const REQUEST_LEN: usize = request::MAX_FRAGMENTED_SIZE.end;
pub const RESPONSE_LEN: usize = response::MAX_FRAGMENTED_SIZE.end;

header_view!(
    /// The 20-byte negotiate request the client sends first.
    NegotiateRequest, REQUEST_LEN, Layer::SmbDirect
);
header_view!(
    /// The 32-byte negotiate response the server answers with.
    NegotiateResponse, RESPONSE_LEN, Layer::SmbDirect
);

impl NegotiateRequest<'_> {
    pub fn min_version(&self) -> u16 {
        le!(u16, self.bytes, request::MIN_VERSION)
    }
    pub fn max_version(&self) -> u16 {
        le!(u16, self.bytes, request::MAX_VERSION)
    }
    pub fn reserved(&self) -> u16 {
        le!(u16, self.bytes, request::RESERVED)
    }
    pub fn credits_requested(&self) -> u16 {
        le!(u16, self.bytes, request::CREDITS_REQUESTED)
    }
    pub fn preferred_send_size(&self) -> u32 {
        le!(u32, self.bytes, request::PREFERRED_SEND_SIZE)
    }
    pub fn max_receive_size(&self) -> u32 {
        le!(u32, self.bytes, request::MAX_RECEIVE_SIZE)
    }
    pub fn max_fragmented_size(&self) -> u32 {
        le!(u32, self.bytes, request::MAX_FRAGMENTED_SIZE)
    }
}

impl NegotiateResponse<'_> {
    pub fn min_version(&self) -> u16 {
        le!(u16, self.bytes, response::MIN_VERSION)
    }
    pub fn max_version(&self) -> u16 {
        le!(u16, self.bytes, response::MAX_VERSION)
    }
    pub fn negotiated_version(&self) -> u16 {
        le!(u16, self.bytes, response::NEGOTIATED_VERSION)
    }
    pub fn reserved(&self) -> u16 {
        le!(u16, self.bytes, response::RESERVED)
    }
    pub fn credits_requested(&self) -> u16 {
        le!(u16, self.bytes, response::CREDITS_REQUESTED)
    }
    pub fn credits_granted(&self) -> u16 {
        le!(u16, self.bytes, response::CREDITS_GRANTED)
    }
    /// An NTSTATUS: 0 when the server accepts.
    pub fn status(&self) -> u32 {
        le!(u32, self.bytes, response::STATUS)
    }
    pub fn max_read_write_size(&self) -> u32 {
        le!(u32, self.bytes, response::MAX_READ_WRITE_SIZE)
    }
    pub fn preferred_send_size(&self) -> u32 {
        le!(u32, self.bytes, response::PREFERRED_SEND_SIZE)
    }
    pub fn max_receive_size(&self) -> u32 {
        le!(u32, self.bytes, response::MAX_RECEIVE_SIZE)
    }
    pub fn max_fragmented_size(&self) -> u32 {
        le!(u32, self.bytes, response::MAX_FRAGMENTED_SIZE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_and_response_words() {
        // MS-SMBD 4.1: version 1.0 both ways, 255 credits requested, 1364-byte sends,
        // 8192-byte receives, 1 MiB fragmented.
        let mut req = [0u8; REQUEST_LEN];
        req[..8].copy_from_slice(&[0, 1, 0, 1, 0, 0, 255, 0]);
        req[8..12].copy_from_slice(&1364u32.to_le_bytes());
        req[12..16].copy_from_slice(&8192u32.to_le_bytes());
        req[16..20].copy_from_slice(&0x10_0000u32.to_le_bytes());
        let r = NegotiateRequest::new_checked(&req, 0).unwrap();
        assert_eq!((r.min_version(), r.max_version()), (0x100, 0x100));
        assert_eq!(r.credits_requested(), 255);
        assert_eq!(
            (
                r.preferred_send_size(),
                r.max_receive_size(),
                r.max_fragmented_size()
            ),
            (1364, 8192, 0x10_0000)
        );
        let mut rsp = [0u8; RESPONSE_LEN];
        rsp[..12].copy_from_slice(&[0, 1, 0, 1, 0, 1, 0, 0, 255, 0, 32, 0]);
        rsp[16..20].copy_from_slice(&0x10_0000u32.to_le_bytes());
        let r = NegotiateResponse::new_checked(&rsp, 0).unwrap();
        assert_eq!(r.negotiated_version(), 0x100);
        assert_eq!((r.credits_requested(), r.credits_granted()), (255, 32));
        assert_eq!((r.status(), r.max_read_write_size()), (0, 0x10_0000));
        assert!(NegotiateResponse::new_checked(&rsp[..31], 0).is_err());
    }
}
