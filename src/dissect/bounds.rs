//! The bytes of a frame together with how long it was on the wire, so that every missing
//! byte can be classed as cut by the snaplen (normal) or promised but absent (malformed).

use crate::wire::{DecodeError, Layer};

/// Why decoding stopped before the end of the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The snaplen cut the frame: the missing bytes existed on the wire.
    Truncated(DecodeError),
    /// The bytes contradict themselves: a header or length field is impossible.
    Malformed(DecodeError),
}

#[derive(Debug, Clone, Copy)]
pub struct Bytes<'a> {
    /// What was captured, from the start of the frame (offsets are frame offsets).
    data: &'a [u8],
    /// Where the current layer ends on the wire.
    end: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8], wire_len: usize) -> Self {
        Bytes {
            data,
            end: wire_len,
        }
    }

    /// The wire end of the current layer.
    pub fn end(&self) -> usize {
        self.end
    }

    /// Captured bytes available up to the wire end.
    pub fn captured_end(&self) -> usize {
        self.data.len().min(self.end)
    }

    /// `len` bytes at `offset`, or where they are missing: beyond the wire end is malformed,
    /// beyond the captured end only truncated.
    #[inline]
    pub fn need(&self, offset: usize, len: usize, layer: Layer) -> Result<&'a [u8], Stop> {
        let want_end = offset.saturating_add(len);
        if want_end <= self.captured_end() {
            return Ok(&self.data[offset..want_end]);
        }
        let available = self.captured_end().saturating_sub(offset);
        let err = DecodeError::short(layer, offset, len, available);
        if want_end <= self.end {
            Err(Stop::Truncated(err))
        } else {
            Err(Stop::Malformed(err))
        }
    }

    /// The same frame, with a length field's end as the new wire end. A length field that
    /// reaches past the current end is malformed.
    pub fn limit(
        &self,
        end: usize,
        layer: Layer,
        offset: usize,
        why: &'static str,
    ) -> Result<Self, Stop> {
        if end > self.end {
            return Err(super::malformed(layer, offset, why));
        }
        Ok(Bytes {
            data: &self.data[..self.data.len().min(end)],
            end,
        })
    }

    /// Captured bytes from `start` up to `stop` (clamped to what was captured).
    pub fn captured(&self, start: usize, stop: usize) -> &'a [u8] {
        let stop = stop.min(self.data.len());
        self.data.get(start..stop).unwrap_or_default()
    }

    /// All of `start..stop`, if every byte of it was captured.
    pub fn complete(&self, start: usize, stop: usize) -> Option<&'a [u8]> {
        if stop <= self.data.len() && start <= stop {
            Some(&self.data[start..stop])
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_missing_bytes() {
        let data = [0u8; 10];
        let bytes = Bytes::new(&data, 20);
        assert!(bytes.need(4, 6, Layer::Bth).is_ok());
        assert!(matches!(
            bytes.need(8, 6, Layer::Bth),
            Err(Stop::Truncated(_))
        ));
        assert!(matches!(
            bytes.need(18, 6, Layer::Bth),
            Err(Stop::Malformed(_))
        ));
        assert!(matches!(
            bytes.need(usize::MAX, 6, Layer::Bth),
            Err(Stop::Malformed(_))
        ));
        let inner = bytes.limit(15, Layer::Ipv4, 0, "too long").unwrap();
        assert!(matches!(
            inner.need(12, 4, Layer::Udp),
            Err(Stop::Malformed(_))
        ));
        assert!(bytes.limit(21, Layer::Ipv4, 0, "too long").is_err());
    }
}
