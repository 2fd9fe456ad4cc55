//! Local Route Header (IBA 7.7): the link-layer header of native InfiniBand.

use super::{DecodeError, Field, Layer, bth, get, grh, header_view};

mod field {
    use super::Field;

    /// VL and LVer.
    pub const VL_LVER: usize = 0;
    /// SL, two reserved bits and LNH.
    pub const SL_LNH: usize = 1;
    pub const DLID: Field = 2..4;
    /// Five reserved bits, then PktLen.
    pub const PKTLEN: Field = 4..6;
    pub const SLID: Field = 6..8;
}

const HEADER_LEN: usize = field::SLID.end;

/// The ICRC that ends every IBA transport packet.
const ICRC_LEN: usize = 4;

header_view!(
    /// The 8-byte LRH.
    Lrh, HEADER_LEN, Layer::Lrh
);

/// Link Next Header: what follows the LRH.
pub mod lnh {
    /// Raw packet: no IBA transport.
    pub const RAW: u8 = 0;
    /// IPv6 raw packet: no IBA transport.
    pub const IP_NON_IBA: u8 = 1;
    /// BTH directly after the LRH.
    pub const IBA_LOCAL: u8 = 2;
    /// GRH, then BTH.
    pub const IBA_GLOBAL: u8 = 3;
}

impl Lrh<'_> {
    /// VL: virtual lane.
    #[inline]
    pub fn vl(&self) -> u8 {
        self.bytes[field::VL_LVER] >> 4
    }
    /// LVer: link version.
    #[inline]
    pub fn lver(&self) -> u8 {
        self.bytes[field::VL_LVER] & 0x0f
    }
    /// SL: service level.
    #[inline]
    pub fn sl(&self) -> u8 {
        self.bytes[field::SL_LNH] >> 4
    }
    /// LNH: link next header.
    #[inline]
    pub fn lnh(&self) -> u8 {
        self.bytes[field::SL_LNH] & 0x03
    }
    /// DLID: destination local identifier.
    #[inline]
    pub fn dlid(&self) -> u16 {
        get!(u16_at, self.bytes, field::DLID)
    }
    /// PktLen: packet length in 4-byte words, LRH through ICRC (VCRC excluded).
    #[inline]
    pub fn pktlen(&self) -> u16 {
        get!(u16_at, self.bytes, field::PKTLEN) & 0x07ff
    }
    /// SLID: source local identifier.
    #[inline]
    pub fn slid(&self) -> u16 {
        get!(u16_at, self.bytes, field::SLID)
    }

    /// Checks PktLen: the packet must hold the headers LNH announces and fit the `room` the
    /// frame leaves from the LRH's start. `offset`, the LRH's, labels an error. The
    /// packet's length in bytes, LRH through ICRC.
    #[inline]
    pub fn check_len(&self, offset: usize, room: usize) -> Result<usize, DecodeError> {
        let len = usize::from(self.pktlen()) * 4;
        let at = offset + field::PKTLEN.start;
        let headers = match self.lnh() {
            lnh::IBA_LOCAL => HEADER_LEN + bth::Bth::LEN + ICRC_LEN,
            lnh::IBA_GLOBAL => HEADER_LEN + grh::Grh::LEN + bth::Bth::LEN + ICRC_LEN,
            _ => HEADER_LEN,
        };
        if len < headers {
            return Err(DecodeError::invalid(
                Layer::Lrh,
                at,
                "PktLen too short for the headers LNH announces",
            ));
        }
        if len > room {
            return Err(DecodeError::invalid(
                Layer::Lrh,
                at,
                "PktLen exceeds the frame",
            ));
        }
        Ok(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-assembled from IBA 7.7 (LRH): VL 15 and LVer 0 in byte 0 (0xf0); SL 0, reserved 0
    // and LNH 2 (IBA local) in byte 1 (0x02); DLID 0xffff (permissive); 5 reserved bits and
    // PktLen 0x48 words (0x0048); SLID 0xffff: a directed-route SMP's LRH.
    static BYTES: [u8; 8] = [0xf0, 0x02, 0xff, 0xff, 0x00, 0x48, 0xff, 0xff];

    #[test]
    fn fields_of_a_directed_route_smp() {
        let lrh = Lrh::new_checked(&BYTES, 0).unwrap();
        assert_eq!((lrh.vl(), lrh.lver(), lrh.sl(), lrh.lnh()), (15, 0, 0, 2));
        assert_eq!(
            (lrh.dlid(), lrh.pktlen(), lrh.slid()),
            (0xffff, 0x48, 0xffff)
        );
    }

    #[test]
    fn pktlen_holds_the_announced_headers_and_fits_the_frame() {
        // 0x48 words: 288 bytes.
        let lrh = Lrh::new_checked(&BYTES, 0).unwrap();
        assert_eq!(lrh.check_len(0, 290), Ok(288));
        let too_long = DecodeError::invalid(Layer::Lrh, 4, "PktLen exceeds the frame");
        assert_eq!(lrh.check_len(0, 287), Err(too_long));
        // LNH IBA_GLOBAL in 6 words: LRH, GRH, BTH and ICRC need 8 + 40 + 12 + 4 = 64 bytes.
        let bytes = [0xf0, 0x03, 0xff, 0xff, 0x00, 0x06, 0xff, 0xff];
        let lrh = Lrh::new_checked(&bytes, 16).unwrap();
        let short = DecodeError::invalid(
            Layer::Lrh,
            20,
            "PktLen too short for the headers LNH announces",
        );
        assert_eq!(lrh.check_len(16, 100), Err(short));
    }
}
