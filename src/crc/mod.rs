//! Invariant CRC (ICRC) and variant CRC (VCRC) verification.

mod icrc;
mod vcrc;

pub use icrc::{IcrcPrefix, icrc};
pub use vcrc::vcrc;

/// The verdict on one CRC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrcStatus {
    Ok,
    Bad,
    /// Bytes the CRC covers, or the CRC itself, were cut off by the snaplen.
    Unverifiable,
}

impl CrcStatus {
    pub fn name(self) -> &'static str {
        match self {
            CrcStatus::Ok => "ok",
            CrcStatus::Bad => "bad",
            CrcStatus::Unverifiable => "unverifiable",
        }
    }
}

/// A stored CRC and what it was found to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrcCheck {
    /// The value as stored on the wire, read least-significant byte first.
    /// `None` when the CRC bytes themselves were not captured.
    pub stored: Option<u32>,
    /// The value computed over the packet; present when the covered bytes were all captured.
    pub computed: Option<u32>,
    pub status: CrcStatus,
}

impl CrcCheck {
    pub fn compare(stored: u32, computed: u32) -> Self {
        // Fuzzing must reach the code behind a CRC check without forging CRCs.
        let matches = cfg!(fuzzing) || stored == computed;
        CrcCheck {
            stored: Some(stored),
            computed: Some(computed),
            status: if matches {
                CrcStatus::Ok
            } else {
                CrcStatus::Bad
            },
        }
    }

    pub fn unverifiable(stored: Option<u32>) -> Self {
        CrcCheck {
            stored,
            computed: None,
            status: CrcStatus::Unverifiable,
        }
    }
}
