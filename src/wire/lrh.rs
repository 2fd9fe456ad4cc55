//! Local Route Header (IBA 7.7): the link-layer header of native InfiniBand.

use super::{Layer, header_view, u16_at};

header_view!(
    /// The 8-byte LRH.
    Lrh, 8, Layer::Lrh
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
        self.bytes[0] >> 4
    }
    /// LVer: link version.
    #[inline]
    pub fn lver(&self) -> u8 {
        self.bytes[0] & 0x0f
    }
    /// SL: service level.
    #[inline]
    pub fn sl(&self) -> u8 {
        self.bytes[1] >> 4
    }
    /// LNH: link next header.
    #[inline]
    pub fn lnh(&self) -> u8 {
        self.bytes[1] & 0x03
    }
    /// DLID: destination local identifier.
    #[inline]
    pub fn dlid(&self) -> u16 {
        u16_at::<2, 8>(self.bytes)
    }
    /// PktLen: packet length in 4-byte words, LRH through ICRC (VCRC excluded).
    #[inline]
    pub fn pktlen(&self) -> u16 {
        u16_at::<4, 8>(self.bytes) & 0x07ff
    }
    /// SLID: source local identifier.
    #[inline]
    pub fn slid(&self) -> u16 {
        u16_at::<6, 8>(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_of_the_first_packet_in_the_shared_capture() {
        // ../shared/captures/infiniband-erf.pcap, frame 1, bytes 16..24 of the ERF record.
        let bytes = [0xf0, 0x02, 0xff, 0xff, 0x00, 0x48, 0xff, 0xff];
        let lrh = super::Lrh::new_checked(&bytes, 0).unwrap();
        assert_eq!((lrh.vl(), lrh.lver(), lrh.sl(), lrh.lnh()), (15, 0, 0, 2));
        assert_eq!(
            (lrh.dlid(), lrh.pktlen(), lrh.slid()),
            (0xffff, 0x48, 0xffff)
        );
    }
}
