//! Base Transport Header (IBA 9.2): present in every transport packet.

use super::{Layer, header_view, u8_at, u16_at, u24_at};

header_view!(
    /// The 12-byte BTH.
    Bth, 12, Layer::Bth
);

impl Bth<'_> {
    /// OpCode: transport service in the top 3 bits, operation in the low 5.
    #[inline]
    pub fn opcode(&self) -> u8 {
        u8_at::<0, 12>(self.bytes)
    }
    /// SE: solicited event.
    #[inline]
    pub fn solicited_event(&self) -> bool {
        self.bytes[1] & 0x80 != 0
    }
    /// M: migration request.
    #[inline]
    pub fn migreq(&self) -> bool {
        self.bytes[1] & 0x40 != 0
    }
    /// PadCnt: bytes of padding before the ICRC.
    #[inline]
    pub fn pad_count(&self) -> u8 {
        (self.bytes[1] >> 4) & 0x3
    }
    /// TVer: transport header version.
    #[inline]
    pub fn tver(&self) -> u8 {
        self.bytes[1] & 0x0f
    }
    /// P_Key: partition key.
    #[inline]
    pub fn pkey(&self) -> u16 {
        u16_at::<2, 12>(self.bytes)
    }
    /// FECN: forward explicit congestion notification.
    #[inline]
    pub fn fecn(&self) -> bool {
        self.bytes[4] & 0x80 != 0
    }
    /// BECN: backward explicit congestion notification.
    #[inline]
    pub fn becn(&self) -> bool {
        self.bytes[4] & 0x40 != 0
    }
    /// DestQP: destination queue pair.
    #[inline]
    pub fn dest_qp(&self) -> u32 {
        u24_at::<5, 12>(self.bytes)
    }
    /// A: acknowledge request.
    #[inline]
    pub fn ack_req(&self) -> bool {
        self.bytes[8] & 0x80 != 0
    }
    /// PSN: packet sequence number.
    #[inline]
    pub fn psn(&self) -> u32 {
        u24_at::<9, 12>(self.bytes)
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
    fn short_buffer_names_layer_and_offset() {
        let err = Bth::new_checked(&BYTES[..7], 42).unwrap_err();
        assert_eq!(err, super::super::DecodeError::short(Layer::Bth, 42, 12, 7));
    }
}
