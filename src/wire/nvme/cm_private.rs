//! The private data NVMe-oF puts in the CM messages that set up a queue (NVMe-oF 1.1,
//! 7.3.2 figures 49-51): the host's REQ asks for a queue and its sizes, the controller's
//! REP answers with its receive queue size, a REJ says why not. Little-endian, like NVMe.
//! In a REQ they follow the 36-byte RDMA IP CM header.

use super::super::{Field, Layer, header_view};
use super::le;

mod field {
    use super::Field;

    /// Every record begins with its format, 0 for NVMe-oF 1.0 and 1.1.
    pub const RECFMT: Field = 0..2;
    pub const REQ_QID: Field = 2..4;
    pub const REQ_HRQSIZE: Field = 4..6;
    pub const REQ_HSQSIZE: Field = 6..8;
    pub const REQ_CNTLID: Field = 8..10;
    pub const REQ_END: usize = 32;
    pub const REP_CRQSIZE: Field = 2..4;
    pub const REP_END: usize = 32;
    pub const REJ_STATUS: Field = 2..4;
}

/// Where the NVMe-oF record starts in a REQ's private data: after the RDMA IP CM header.
pub const REQ_OFFSET: usize = 36;

header_view!(
    /// A REQ's NVMe-oF private data.
    ReqPrivate, field::REQ_END, Layer::Cm
);
header_view!(
    /// A REP's NVMe-oF private data.
    RepPrivate, field::REP_END, Layer::Cm
);
header_view!(
    /// A REJ's NVMe-oF private data: record format and status.
    RejPrivate, field::REJ_STATUS.end, Layer::Cm
);

impl ReqPrivate<'_> {
    pub fn recfmt(&self) -> u16 {
        le!(u16, self.bytes, field::RECFMT)
    }
    /// 0 for the admin queue.
    pub fn qid(&self) -> u16 {
        le!(u16, self.bytes, field::REQ_QID)
    }
    /// Host receive queue size: commands the host can receive responses for.
    pub fn hrqsize(&self) -> u16 {
        le!(u16, self.bytes, field::REQ_HRQSIZE)
    }
    /// Host send queue size, 0-based.
    pub fn hsqsize(&self) -> u16 {
        le!(u16, self.bytes, field::REQ_HSQSIZE)
    }
    pub fn cntlid(&self) -> u16 {
        le!(u16, self.bytes, field::REQ_CNTLID)
    }
}

impl RepPrivate<'_> {
    pub fn recfmt(&self) -> u16 {
        le!(u16, self.bytes, field::RECFMT)
    }
    /// Controller receive queue size.
    pub fn crqsize(&self) -> u16 {
        le!(u16, self.bytes, field::REP_CRQSIZE)
    }
}

impl RejPrivate<'_> {
    pub fn recfmt(&self) -> u16 {
        le!(u16, self.bytes, field::RECFMT)
    }
    /// Why the controller refused (figure 51): 1 invalid length ... 8 invalid ORD.
    pub fn status(&self) -> u16 {
        le!(u16, self.bytes, field::REJ_STATUS)
    }
}

/// The name of a REJ status (NVMe-oF 1.1 figure 51).
pub fn reject_status_name(status: u16) -> &'static str {
    match status {
        0x01 => "invalid private data length",
        0x02 => "invalid record format",
        0x03 => "invalid queue ID",
        0x04 => "invalid HSQSIZE",
        0x05 => "invalid HRQSIZE",
        0x06 => "no resources",
        0x07 => "invalid IRD",
        0x08 => "invalid ORD",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_fields() {
        // Hand-assembled from figure 49: RECFMT 0, QID 1, HRQSIZE 128, HSQSIZE 127, CNTLID
        // 0xffff.
        let mut b = [0u8; 32];
        b[2] = 1;
        b[4] = 128;
        b[6] = 127;
        b[8] = 0xff;
        b[9] = 0xff;
        let req = ReqPrivate::new_checked(&b, 0).unwrap();
        assert_eq!(req.recfmt(), 0);
        assert_eq!(req.qid(), 1);
        assert_eq!(req.hrqsize(), 128);
        assert_eq!(req.hsqsize(), 127);
        assert_eq!(req.cntlid(), 0xffff);
    }
}
