//! Classic pcap: microsecond and nanosecond magic, either byte order.

use super::{CaptureError, Input, Located, MAX_RECORD, WarningSink};

const GLOBAL_HEADER_LEN: usize = 24;
const RECORD_HEADER_LEN: usize = 16;

pub(crate) struct PcapState {
    big_endian: bool,
    /// Nanoseconds per unit of the record header's fractional timestamp.
    frac_ns: u64,
    linktype: u32,
}

impl PcapState {
    /// Recognises the four magic numbers; the header itself is read by `read_header`.
    pub fn detect(magic: [u8; 4]) -> Option<PcapState> {
        let (big_endian, frac_ns) = match magic {
            [0xd4, 0xc3, 0xb2, 0xa1] => (false, 1000),
            [0xa1, 0xb2, 0xc3, 0xd4] => (true, 1000),
            [0x4d, 0x3c, 0xb2, 0xa1] => (false, 1),
            [0xa1, 0xb2, 0x3c, 0x4d] => (true, 1),
            _ => return None,
        };
        Some(PcapState {
            big_endian,
            frac_ns,
            linktype: 0,
        })
    }

    fn u32(&self, b: [u8; 4]) -> u32 {
        if self.big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    }

    pub fn read_header<I: Input>(mut self, input: &mut I) -> Result<Self, CaptureError> {
        let header = input.peek(GLOBAL_HEADER_LEN)?;
        let Some(header) = header.first_chunk::<GLOBAL_HEADER_LEN>() else {
            return Err(CaptureError::Damaged {
                offset: 0,
                message: format!(
                    "pcap global header needs {GLOBAL_HEADER_LEN} bytes, file has {}",
                    header.len()
                ),
            });
        };
        let network = self.u32([header[20], header[21], header[22], header[23]]);
        // The top bits carry FCS-length flags (pcap-linktype(7)), not the link type.
        self.linktype = network & 0x03ff_ffff;
        input.consume(GLOBAL_HEADER_LEN);
        Ok(self)
    }

    pub fn locate<I: Input>(
        &mut self,
        input: &mut I,
        sink: &mut WarningSink<'_>,
    ) -> Result<Option<Located>, CaptureError> {
        let offset = input.position();
        let header = input.peek(RECORD_HEADER_LEN)?;
        if header.is_empty() {
            return Ok(None);
        }
        let Some(h) = header.first_chunk::<RECORD_HEADER_LEN>() else {
            sink.cut_short(offset, "record header", RECORD_HEADER_LEN, header.len());
            return Ok(None);
        };
        let ts_sec = self.u32([h[0], h[1], h[2], h[3]]);
        let ts_frac = self.u32([h[4], h[5], h[6], h[7]]);
        let caplen = self.u32([h[8], h[9], h[10], h[11]]) as usize;
        let orig_len = self.u32([h[12], h[13], h[14], h[15]]);
        if caplen > MAX_RECORD {
            return Err(CaptureError::Damaged {
                offset,
                message: format!(
                    "record header claims {caplen} captured bytes (limit {MAX_RECORD}); \
                     the pcap is damaged and has no markers to resynchronise on"
                ),
            });
        }
        let total_len = RECORD_HEADER_LEN + caplen;
        let available = input.peek(total_len)?.len();
        if available < total_len {
            sink.cut_short(offset, "record", total_len, available);
            return Ok(None);
        }
        Ok(Some(Located {
            total_len,
            data_start: RECORD_HEADER_LEN,
            caplen,
            orig_len,
            ts_ns: Some(u64::from(ts_sec) * 1_000_000_000 + u64::from(ts_frac) * self.frac_ns),
            linktype: self.linktype,
            iface: 0,
        }))
    }
}
