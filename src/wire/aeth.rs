//! ACK Extended Transport Header (IBA 9.3.5): the responder's ACK, RNR NAK or NAK.

use super::{Layer, header_view, u8_at, u24_at};

header_view!(
    /// The 4-byte AETH.
    Aeth, 4, Layer::Aeth
);

/// What the syndrome says, decoded (IBA table 42).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syndrome {
    /// Positive acknowledgement carrying the end-to-end credit count.
    Ack {
        credits: u8,
    },
    /// Receiver not ready; the timer field encodes the minimum back-off.
    RnrNak {
        timer: u8,
    },
    Nak(NakCode),
    /// Syndrome value 0b10xxxxx, reserved by the specification.
    Reserved,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NakCode {
    PsnSequenceError,
    InvalidRequest,
    RemoteAccessError,
    RemoteOperationalError,
    InvalidRdRequest,
    Reserved(u8),
}

impl NakCode {
    pub fn name(self) -> &'static str {
        match self {
            NakCode::PsnSequenceError => "psn_sequence_error",
            NakCode::InvalidRequest => "invalid_request",
            NakCode::RemoteAccessError => "remote_access_error",
            NakCode::RemoteOperationalError => "remote_operational_error",
            NakCode::InvalidRdRequest => "invalid_rd_request",
            NakCode::Reserved(_) => "reserved",
        }
    }
}

impl Syndrome {
    /// The JSON name of the syndrome class.
    pub fn kind_name(self) -> &'static str {
        match self {
            Syndrome::Ack { .. } => "ack",
            Syndrome::RnrNak { .. } => "rnr_nak",
            Syndrome::Nak(_) => "nak",
            Syndrome::Reserved => "reserved",
        }
    }
}

impl Aeth<'_> {
    /// Syndrome byte.
    #[inline]
    pub fn syndrome(&self) -> u8 {
        u8_at::<0, 4>(self.bytes)
    }
    /// MSN: message sequence number.
    #[inline]
    pub fn msn(&self) -> u32 {
        u24_at::<1, 4>(self.bytes)
    }
    /// The low five bits: credit count, RNR timer or NAK code, depending on the class.
    #[inline]
    pub fn code(&self) -> u8 {
        self.syndrome() & 0x1f
    }
    /// The syndrome decoded by its two class bits (bits 6..5).
    pub fn decode(&self) -> Syndrome {
        let code = self.code();
        match (self.syndrome() >> 5) & 0x3 {
            0 => Syndrome::Ack { credits: code },
            1 => Syndrome::RnrNak { timer: code },
            3 => Syndrome::Nak(match code {
                0 => NakCode::PsnSequenceError,
                1 => NakCode::InvalidRequest,
                2 => NakCode::RemoteAccessError,
                3 => NakCode::RemoteOperationalError,
                4 => NakCode::InvalidRdRequest,
                other => NakCode::Reserved(other),
            }),
            _ => Syndrome::Reserved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syndromes_from_the_spec_table() {
        // 0x1f: ACK with invalid credit count; 0x2e: RNR NAK timer 14; 0x60..0x64: the NAKs.
        let cases: [(u8, Syndrome); 7] = [
            (0x1f, Syndrome::Ack { credits: 31 }),
            (0x2e, Syndrome::RnrNak { timer: 14 }),
            (0x60, Syndrome::Nak(NakCode::PsnSequenceError)),
            (0x61, Syndrome::Nak(NakCode::InvalidRequest)),
            (0x62, Syndrome::Nak(NakCode::RemoteAccessError)),
            (0x63, Syndrome::Nak(NakCode::RemoteOperationalError)),
            (0x64, Syndrome::Nak(NakCode::InvalidRdRequest)),
        ];
        for (byte, want) in cases {
            let bytes = [byte, 0x00, 0x01, 0x02];
            let aeth = Aeth::new_checked(&bytes, 0).unwrap();
            assert_eq!(aeth.decode(), want, "syndrome {byte:#x}");
            assert_eq!(aeth.msn(), 0x102);
        }
    }
}
