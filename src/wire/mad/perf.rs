//! Performance management (class 0x04, IBA 16.1): the PortCounters attribute.

use super::super::{Layer, header_view, u8_at, u16_at, u32_at};
use super::sub_at;

pub const ATTR_PORT_COUNTERS: u16 = 0x0012;

/// Offset of the PMA data from the start of the body (after the MAD header).
pub const DATA_OFFSET: usize = 40;

header_view!(
    /// The 232 bytes after the MAD header: 40 reserved bytes, then the data.
    PerfBody, 232, Layer::Perf
);

impl<'a> PerfBody<'a> {
    pub fn data(&self) -> &'a [u8; 192] {
        sub_at::<40, 192, 232>(self.bytes)
    }
}

header_view!(
    /// PortCounters (IBA 16.1.3.5).
    PortCounters, 44, Layer::Perf
);

impl PortCounters<'_> {
    pub fn port_select(&self) -> u8 {
        u8_at::<1, 44>(self.bytes)
    }
    pub fn counter_select(&self) -> u16 {
        u16_at::<2, 44>(self.bytes)
    }
    pub fn symbol_errors(&self) -> u16 {
        u16_at::<4, 44>(self.bytes)
    }
    pub fn link_error_recovery(&self) -> u8 {
        u8_at::<6, 44>(self.bytes)
    }
    pub fn link_downed(&self) -> u8 {
        u8_at::<7, 44>(self.bytes)
    }
    pub fn rcv_errors(&self) -> u16 {
        u16_at::<8, 44>(self.bytes)
    }
    pub fn rcv_remote_physical_errors(&self) -> u16 {
        u16_at::<10, 44>(self.bytes)
    }
    pub fn rcv_switch_relay_errors(&self) -> u16 {
        u16_at::<12, 44>(self.bytes)
    }
    pub fn xmit_discards(&self) -> u16 {
        u16_at::<14, 44>(self.bytes)
    }
    pub fn xmit_constraint_errors(&self) -> u8 {
        u8_at::<16, 44>(self.bytes)
    }
    pub fn rcv_constraint_errors(&self) -> u8 {
        u8_at::<17, 44>(self.bytes)
    }
    pub fn local_link_integrity_errors(&self) -> u8 {
        u8_at::<19, 44>(self.bytes) >> 4
    }
    pub fn excessive_buffer_overrun_errors(&self) -> u8 {
        u8_at::<19, 44>(self.bytes) & 0x0f
    }
    pub fn vl15_dropped(&self) -> u16 {
        u16_at::<22, 44>(self.bytes)
    }
    /// In 4-byte words.
    pub fn xmit_data(&self) -> u32 {
        u32_at::<24, 44>(self.bytes)
    }
    /// In 4-byte words.
    pub fn rcv_data(&self) -> u32 {
        u32_at::<28, 44>(self.bytes)
    }
    pub fn xmit_pkts(&self) -> u32 {
        u32_at::<32, 44>(self.bytes)
    }
    pub fn rcv_pkts(&self) -> u32 {
        u32_at::<36, 44>(self.bytes)
    }
    pub fn xmit_wait(&self) -> u32 {
        u32_at::<40, 44>(self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_counters_fields() {
        // Hand-assembled from IBA 16.1.3.5: port 1, all counters selected, symbol errors 7,
        // link integrity 2 / buffer overrun 3 sharing a byte, VL15 dropped 9, data words and
        // packets 0x01020304 / 0x05060708 / 100 / 200, XmitWait 5.
        let mut b = [0u8; 44];
        b[1] = 1;
        b[2..4].copy_from_slice(&[0xff, 0xff]);
        b[5] = 7;
        b[19] = 0x23;
        b[23] = 9;
        b[24..28].copy_from_slice(&[1, 2, 3, 4]);
        b[28..32].copy_from_slice(&[5, 6, 7, 8]);
        b[35] = 100;
        b[39] = 200;
        b[43] = 5;
        let pc = PortCounters::new_checked(&b, 0).unwrap();
        assert_eq!((pc.port_select(), pc.counter_select()), (1, 0xffff));
        assert_eq!(pc.symbol_errors(), 7);
        assert_eq!(
            (
                pc.local_link_integrity_errors(),
                pc.excessive_buffer_overrun_errors()
            ),
            (2, 3)
        );
        assert_eq!(pc.vl15_dropped(), 9);
        assert_eq!((pc.xmit_data(), pc.rcv_data()), (0x0102_0304, 0x0506_0708));
        assert_eq!(
            (pc.xmit_pkts(), pc.rcv_pkts(), pc.xmit_wait()),
            (100, 200, 5)
        );
    }
}
