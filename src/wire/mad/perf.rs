//! Performance management (class 0x04, IBA 16.1): the PortCounters attribute.

use super::super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub mod perf_body {
        use super::Field;

        pub const DATA: Field = 40..232;
    }

    pub mod port_counters {
        use super::Field;

        pub const PORT_SELECT: usize = 1;
        pub const COUNTER_SELECT: Field = 2..4;
        pub const SYMBOL_ERRORS: Field = 4..6;
        pub const LINK_ERROR_RECOVERY: usize = 6;
        pub const LINK_DOWNED: usize = 7;
        pub const RCV_ERRORS: Field = 8..10;
        pub const RCV_REMOTE_PHYSICAL_ERRORS: Field = 10..12;
        pub const RCV_SWITCH_RELAY_ERRORS: Field = 12..14;
        pub const XMIT_DISCARDS: Field = 14..16;
        pub const XMIT_CONSTRAINT_ERRORS: usize = 16;
        pub const RCV_CONSTRAINT_ERRORS: usize = 17;
        pub const LOCAL_LINK_INTEGRITY_ERRORS: usize = 19;
        pub const EXCESSIVE_BUFFER_OVERRUN_ERRORS: usize = 19;
        pub const VL15_DROPPED: Field = 22..24;
        pub const XMIT_DATA: Field = 24..28;
        pub const RCV_DATA: Field = 28..32;
        pub const XMIT_PKTS: Field = 32..36;
        pub const RCV_PKTS: Field = 36..40;
        pub const XMIT_WAIT: Field = 40..44;
    }
}

pub const ATTR_PORT_COUNTERS: u16 = 0x0012;

/// Offset of the PMA data from the start of the body (after the MAD header).
pub const DATA_OFFSET: usize = field::perf_body::DATA.start;

header_view!(
    /// The 232 bytes after the MAD header: 40 reserved bytes, then the data.
    PerfBody, field::perf_body::DATA.end, Layer::Perf
);

impl<'a> PerfBody<'a> {
    pub fn data(&self) -> &'a [u8; 192] {
        get!(sub_at, self.bytes, field::perf_body::DATA)
    }
}

header_view!(
    /// PortCounters (IBA 16.1.3.5).
    PortCounters, field::port_counters::XMIT_WAIT.end, Layer::Perf
);

impl PortCounters<'_> {
    pub fn port_select(&self) -> u8 {
        self.bytes[field::port_counters::PORT_SELECT]
    }
    pub fn counter_select(&self) -> u16 {
        get!(u16_at, self.bytes, field::port_counters::COUNTER_SELECT)
    }
    pub fn symbol_errors(&self) -> u16 {
        get!(u16_at, self.bytes, field::port_counters::SYMBOL_ERRORS)
    }
    pub fn link_error_recovery(&self) -> u8 {
        self.bytes[field::port_counters::LINK_ERROR_RECOVERY]
    }
    pub fn link_downed(&self) -> u8 {
        self.bytes[field::port_counters::LINK_DOWNED]
    }
    pub fn rcv_errors(&self) -> u16 {
        get!(u16_at, self.bytes, field::port_counters::RCV_ERRORS)
    }
    pub fn rcv_remote_physical_errors(&self) -> u16 {
        get!(
            u16_at,
            self.bytes,
            field::port_counters::RCV_REMOTE_PHYSICAL_ERRORS
        )
    }
    pub fn rcv_switch_relay_errors(&self) -> u16 {
        get!(
            u16_at,
            self.bytes,
            field::port_counters::RCV_SWITCH_RELAY_ERRORS
        )
    }
    pub fn xmit_discards(&self) -> u16 {
        get!(u16_at, self.bytes, field::port_counters::XMIT_DISCARDS)
    }
    pub fn xmit_constraint_errors(&self) -> u8 {
        self.bytes[field::port_counters::XMIT_CONSTRAINT_ERRORS]
    }
    pub fn rcv_constraint_errors(&self) -> u8 {
        self.bytes[field::port_counters::RCV_CONSTRAINT_ERRORS]
    }
    pub fn local_link_integrity_errors(&self) -> u8 {
        self.bytes[field::port_counters::LOCAL_LINK_INTEGRITY_ERRORS] >> 4
    }
    pub fn excessive_buffer_overrun_errors(&self) -> u8 {
        self.bytes[field::port_counters::EXCESSIVE_BUFFER_OVERRUN_ERRORS] & 0x0f
    }
    pub fn vl15_dropped(&self) -> u16 {
        get!(u16_at, self.bytes, field::port_counters::VL15_DROPPED)
    }
    /// In 4-byte words.
    pub fn xmit_data(&self) -> u32 {
        get!(u32_at, self.bytes, field::port_counters::XMIT_DATA)
    }
    /// In 4-byte words.
    pub fn rcv_data(&self) -> u32 {
        get!(u32_at, self.bytes, field::port_counters::RCV_DATA)
    }
    pub fn xmit_pkts(&self) -> u32 {
        get!(u32_at, self.bytes, field::port_counters::XMIT_PKTS)
    }
    pub fn rcv_pkts(&self) -> u32 {
        get!(u32_at, self.bytes, field::port_counters::RCV_PKTS)
    }
    pub fn xmit_wait(&self) -> u32 {
        get!(u32_at, self.bytes, field::port_counters::XMIT_WAIT)
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
