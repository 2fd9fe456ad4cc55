//! ACK Extended Transport Header (IBA 9.3.5): the responder's ACK, RNR NAK or NAK.

use super::{Field, Layer, get, header_view};

mod field {
    use super::Field;

    pub const SYNDROME: usize = 0;
    pub const MSN: Field = 1..4;
}

const HEADER_LEN: usize = field::MSN.end;

header_view!(
    /// The 4-byte AETH.
    Aeth, HEADER_LEN, Layer::Aeth
);

/// What the syndrome says, decoded (IBA table 42).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syndrome {
    /// Positive acknowledgement carrying the end-to-end credit code (see [`credits`]).
    Ack {
        credit_code: u8,
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
        self.bytes[field::SYNDROME]
    }
    /// MSN: message sequence number.
    #[inline]
    pub fn msn(&self) -> u32 {
        get!(u24_at, self.bytes, field::MSN)
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
            0 => Syndrome::Ack { credit_code: code },
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

/// The credit code that says the responder has no credit count to give.
pub const CREDITS_INVALID: u8 = 31;

/// The receive-queue credits an ACK's credit code stands for (IBA table 44): 0 to 4 as
/// themselves, then alternately 2^k and 1.5 x 2^k up to 32768; `None` for code 31.
pub fn credits(code: u8) -> Option<u32> {
    match code {
        0..=4 => Some(u32::from(code)),
        5..=30 => {
            let step = u32::from(code - 4);
            let base = 4u32 << (step / 2);
            Some(if step % 2 == 1 { base + base / 2 } else { base })
        }
        _ => None,
    }
}

/// The minimum back-off an RNR NAK's timer field asks for, in microseconds (IBA table 45):
/// 10 us for 1, then alternately 10 x 2^k and 15 x 2^k up to 491.52 ms for 31; 0 means the
/// longest, 655.36 ms.
pub fn rnr_timer_us(timer: u8) -> u32 {
    match timer & 0x1f {
        0 => 655_360,
        1 => 10,
        even if even % 2 == 0 => 10 << (even / 2),
        odd => 15 << (odd / 2),
    }
}

/// [`rnr_timer_us`] in nanoseconds, the unit the analysis measures waits in.
pub fn rnr_timer_ns(timer: u8) -> u64 {
    u64::from(rnr_timer_us(timer)) * 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syndromes_from_the_spec_table() {
        // 0x1f: ACK with invalid credit count; 0x2e: RNR NAK timer 14; 0x60..0x64: the NAKs.
        let cases: [(u8, Syndrome); 7] = [
            (0x1f, Syndrome::Ack { credit_code: 31 }),
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

    #[test]
    fn credit_codes_and_rnr_timers_from_the_spec_tables() {
        let credit_table: [u32; 31] = [
            0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024,
            1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
        ];
        for (code, want) in credit_table.iter().enumerate() {
            assert_eq!(credits(code as u8), Some(*want), "credit code {code}");
        }
        assert_eq!(credits(CREDITS_INVALID), None);
        // Table 45, in milliseconds as the specification prints it.
        let timer_ms: [f64; 32] = [
            655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16, 0.24, 0.32, 0.48, 0.64, 0.96,
            1.28, 1.92, 2.56, 3.84, 5.12, 7.68, 10.24, 15.36, 20.48, 30.72, 40.96, 61.44, 81.92,
            122.88, 163.84, 245.76, 327.68, 491.52,
        ];
        for (timer, ms) in timer_ms.iter().enumerate() {
            let want = (ms * 1000.0).round() as u32;
            assert_eq!(rnr_timer_us(timer as u8), want, "RNR timer {timer}");
        }
    }
}
