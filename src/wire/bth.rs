//! Base Transport Header (IBA 9.2): present in every transport packet.

use super::{DecodeError, Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const OPCODE: usize = 0;
    /// SE, M, PadCnt and TVer.
    pub const SE_M_PAD_TVER: usize = 1;
    pub const PKEY: Field = 2..4;
    /// FECN, BECN and six reserved bits.
    pub const FECN_BECN: usize = 4;
    pub const DEST_QP: Field = 5..8;
    /// A and seven reserved bits.
    pub const ACK_REQ: usize = 8;
    pub const PSN: Field = 9..12;
}

const HEADER_LEN: usize = field::PSN.end;

header_view!(
    /// The 12-byte BTH.
    Bth, HEADER_LEN, Layer::Bth
);

impl Bth<'_> {
    /// OpCode: transport service in the top 3 bits, operation in the low 5.
    #[inline]
    pub fn opcode(&self) -> u8 {
        self.bytes[field::OPCODE]
    }
    /// SE: solicited event.
    #[inline]
    pub fn solicited_event(&self) -> bool {
        self.bytes[field::SE_M_PAD_TVER] & 0x80 != 0
    }
    /// M: migration request.
    #[inline]
    pub fn migreq(&self) -> bool {
        self.bytes[field::SE_M_PAD_TVER] & 0x40 != 0
    }
    /// PadCnt: bytes of padding before the ICRC.
    #[inline]
    pub fn pad_count(&self) -> u8 {
        (self.bytes[field::SE_M_PAD_TVER] >> 4) & 0x3
    }
    /// TVer: transport header version.
    #[inline]
    pub fn tver(&self) -> u8 {
        self.bytes[field::SE_M_PAD_TVER] & 0x0f
    }
    /// P_Key: partition key.
    #[inline]
    pub fn pkey(&self) -> u16 {
        get!(u16_at, self.bytes, field::PKEY)
    }
    /// FECN: forward explicit congestion notification.
    #[inline]
    pub fn fecn(&self) -> bool {
        self.bytes[field::FECN_BECN] & 0x80 != 0
    }
    /// BECN: backward explicit congestion notification.
    #[inline]
    pub fn becn(&self) -> bool {
        self.bytes[field::FECN_BECN] & 0x40 != 0
    }
    /// DestQP: destination queue pair.
    #[inline]
    pub fn dest_qp(&self) -> u32 {
        get!(u24_at, self.bytes, field::DEST_QP)
    }
    /// A: acknowledge request.
    #[inline]
    pub fn ack_req(&self) -> bool {
        self.bytes[field::ACK_REQ] & 0x80 != 0
    }
    /// PSN: packet sequence number.
    #[inline]
    pub fn psn(&self) -> u32 {
        get!(u24_at, self.bytes, field::PSN)
    }

    /// Checks PadCnt: the pad must fit the `room` between the last header and the ICRC.
    /// `offset`, the BTH's, labels an error. The pad's length in bytes.
    #[inline]
    pub fn check_len(&self, offset: usize, room: usize) -> Result<usize, DecodeError> {
        let pad = usize::from(self.pad_count());
        if pad > room {
            return Err(DecodeError::invalid(
                Layer::Bth,
                offset + field::SE_M_PAD_TVER,
                "PadCnt exceeds the payload",
            ));
        }
        Ok(pad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled: RC SEND Only, SE, M, PadCnt 2, TVer 0, P_Key 0xffff, FECN+BECN,
    // DestQP 0x000b01, AckReq, PSN 0xabcdef.
    static BYTES: [u8; 12] = [
        0x04, 0xe0, 0xff, 0xff, 0xc0, 0x00, 0x0b, 0x01, 0x80, 0xab, 0xcd, 0xef,
    ];

    #[test]
    fn fields() {
        let bth = Bth::new_checked(&BYTES, 0).unwrap();
        assert_eq!(bth.opcode(), 0x04);
        assert!(bth.solicited_event() && bth.migreq());
        assert_eq!(bth.pad_count(), 2);
        assert_eq!(bth.tver(), 0);
        assert_eq!(bth.pkey(), 0xffff);
        assert!(bth.fecn() && bth.becn());
        assert_eq!(bth.dest_qp(), 0xb01);
        assert!(bth.ack_req());
        assert_eq!(bth.psn(), 0xabcdef);
    }

    #[test]
    fn the_pad_fits_the_payload() {
        let bth = Bth::new_checked(&BYTES, 42).unwrap();
        assert_eq!(bth.check_len(42, 2), Ok(2));
        let err = DecodeError::invalid(Layer::Bth, 43, "PadCnt exceeds the payload");
        assert_eq!(bth.check_len(42, 1), Err(err));
    }

    #[test]
    fn short_buffer_names_layer_and_offset() {
        let err = Bth::new_checked(&BYTES[..7], 42).unwrap_err();
        assert_eq!(err, DecodeError::short(Layer::Bth, 42, 12, 7));
    }
}
