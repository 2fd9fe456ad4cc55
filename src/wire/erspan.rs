//! ERSPAN headers (draft-foschiano-erspan): what a switch mirror puts before the mirrored
//! Ethernet frame inside GRE.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    /// Ver, VLAN, COS, En, T and Session ID: laid out alike in types II and III.
    pub const FIRST_WORD: Field = 0..4;

    pub mod ii {
        use super::Field;

        /// Twelve reserved bits, then Index.
        pub const INDEX: Field = 4..8;
    }

    pub mod iii {
        use super::Field;

        pub const TIMESTAMP: Field = 4..8;
        pub const SGT: Field = 8..10;
        /// P, FT and HW ID.
        pub const P_FT_HW_ID: Field = 10..12;
        /// The last of HW ID, D, Gra and O.
        pub const D_GRA_O: usize = 11;
    }

    pub mod platform {
        use super::Field;

        /// Platf ID, then the platform-specific bits.
        pub const PLATFORM: Field = 0..8;
    }
}

header_view!(
    /// The 8-byte ERSPAN type II header.
    ErspanII, field::ii::INDEX.end, Layer::Erspan
);

header_view!(
    /// The 12-byte ERSPAN type III header.
    ErspanIII, field::iii::P_FT_HW_ID.end, Layer::Erspan
);

header_view!(
    /// The 8-byte platform-specific subheader of type III, present when the O bit is set.
    ErspanPlatform, field::platform::PLATFORM.end, Layer::Erspan
);

/// The first word, laid out alike in types II and III: version, the mirrored frame's VLAN,
/// class of service and truncation, and the mirror session.
pub trait ErspanCommon {
    fn first_word(&self) -> u32;

    /// Ver: 1 for type II, 2 for type III.
    #[inline]
    fn version(&self) -> u8 {
        (self.first_word() >> 28) as u8
    }
    /// The VLAN of the mirrored frame.
    #[inline]
    fn vlan(&self) -> u16 {
        ((self.first_word() >> 16) & 0x0fff) as u16
    }
    /// COS: the mirrored frame's class of service.
    #[inline]
    fn cos(&self) -> u8 {
        ((self.first_word() >> 13) & 0x7) as u8
    }
    /// T: the mirrored frame was truncated to fit.
    #[inline]
    fn truncated(&self) -> bool {
        self.first_word() & 0x0400 != 0
    }
    /// Session ID: the mirror session.
    #[inline]
    fn session_id(&self) -> u16 {
        (self.first_word() & 0x03ff) as u16
    }
}

impl ErspanCommon for ErspanII<'_> {
    #[inline]
    fn first_word(&self) -> u32 {
        get!(u32_at, self.bytes, field::FIRST_WORD)
    }
}

impl ErspanCommon for ErspanIII<'_> {
    #[inline]
    fn first_word(&self) -> u32 {
        get!(u32_at, self.bytes, field::FIRST_WORD)
    }
}

impl ErspanII<'_> {
    /// Index: the port the frame was mirrored from.
    #[inline]
    pub fn index(&self) -> u32 {
        get!(u32_at, self.bytes, field::ii::INDEX) & 0x000f_ffff
    }
}

impl ErspanIII<'_> {
    /// The D bit as `read --json` and the filter name it.
    #[inline]
    pub fn direction(&self) -> &'static str {
        if self.egress() { "egress" } else { "ingress" }
    }
    /// Timestamp, in the granularity Gra names.
    #[inline]
    pub fn timestamp(&self) -> u32 {
        get!(u32_at, self.bytes, field::iii::TIMESTAMP)
    }
    /// SGT: security group tag.
    #[inline]
    pub fn sgt(&self) -> u16 {
        get!(u16_at, self.bytes, field::iii::SGT)
    }
    /// HW ID: the mirroring engine.
    #[inline]
    pub fn hw_id(&self) -> u8 {
        ((get!(u16_at, self.bytes, field::iii::P_FT_HW_ID) >> 4) & 0x3f) as u8
    }
    /// D: false when mirrored on ingress, true on egress.
    #[inline]
    pub fn egress(&self) -> bool {
        self.bytes[field::iii::D_GRA_O] & 0x08 != 0
    }
    /// Gra: timestamp granularity.
    #[inline]
    pub fn granularity(&self) -> u8 {
        (self.bytes[field::iii::D_GRA_O] >> 1) & 0x03
    }
    /// O: a platform-specific subheader follows.
    #[inline]
    pub fn has_platform(&self) -> bool {
        self.bytes[field::iii::D_GRA_O] & 0x01 != 0
    }
}

impl ErspanPlatform<'_> {
    /// Platf ID: which layout the rest of the subheader has.
    #[inline]
    pub fn platform_id(&self) -> u8 {
        self.bytes[field::platform::PLATFORM.start] >> 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_ii_fields() {
        // Ver 1, VLAN 100; COS 5, En 0, T 1, session 0x155; index 0x12345.
        let bytes = [0x10, 0x64, 0xa5, 0x55, 0x00, 0x01, 0x23, 0x45];
        let h = ErspanII::new_checked(&bytes, 42).unwrap();
        assert_eq!((h.version(), h.vlan(), h.cos()), (1, 100, 5));
        assert_eq!(
            (h.truncated(), h.session_id(), h.index()),
            (true, 0x155, 0x12345)
        );
    }

    #[test]
    fn type_iii_fields() {
        // Ver 2, VLAN 7; COS 3, session 1; timestamp 0x01020304; SGT 9; P 0, FT 0,
        // HW ID 5, D 1 (egress), Gra 2, O 1.
        let bytes = [0x20, 0x07, 0x60, 0x01, 1, 2, 3, 4, 0x00, 0x09, 0x00, 0x5d];
        let h = ErspanIII::new_checked(&bytes, 0).unwrap();
        assert_eq!(
            (h.version(), h.vlan(), h.cos(), h.session_id()),
            (2, 7, 3, 1)
        );
        assert_eq!((h.timestamp(), h.sgt(), h.hw_id()), (0x0102_0304, 9, 5));
        assert_eq!(
            (h.egress(), h.granularity(), h.has_platform()),
            (true, 2, true)
        );
    }
}
