//! The bytes of a frame together with how long it was on the wire, so that every missing
//! byte can be classed as cut by the snaplen (normal) or promised but absent (malformed).
//!
//! [`Bytes`] is also the input the nom parsers in [`super::parse`] run over: a cursor into
//! the frame that keeps frame offsets, so every error can say where it happened.

use nom::{Input, Needed};

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
    /// What was captured, from the start of the frame (offsets are frame offsets), never
    /// past the wire end.
    data: &'a [u8],
    /// Frame offset of the next byte to parse.
    at: usize,
    /// Where the current layer ends on the wire.
    end: usize,
    /// The layer whose header was taken last: nom's own combinators report only an
    /// `ErrorKind`, and this names the layer for them.
    layer: Layer,
}

impl<'a> Bytes<'a> {
    /// `layer` is the frame's outermost layer.
    pub fn new(data: &'a [u8], wire_len: usize, layer: Layer) -> Self {
        Bytes {
            data: &data[..data.len().min(wire_len)],
            at: 0,
            end: wire_len,
            layer,
        }
    }

    /// Frame offset of the next byte to parse.
    #[inline]
    pub fn at(&self) -> usize {
        self.at
    }

    /// The wire end of the current layer.
    #[inline]
    pub fn end(&self) -> usize {
        self.end
    }

    #[inline]
    pub fn layer(&self) -> Layer {
        self.layer
    }

    /// Captured bytes available up to the wire end.
    #[inline]
    pub fn captured_end(&self) -> usize {
        self.data.len()
    }

    /// The same bytes, parsing from frame offset `at`.
    #[inline]
    pub fn seek(self, at: usize) -> Self {
        Bytes { at, ..self }
    }

    /// The same bytes, `len` further on; whether those bytes exist is checked by whatever
    /// parses next.
    #[inline]
    pub fn skip(self, len: usize) -> Self {
        self.seek(self.at.saturating_add(len))
    }

    /// The same bytes, decoding `layer` from here on.
    #[inline]
    pub fn within(self, layer: Layer) -> Self {
        Bytes { layer, ..self }
    }

    /// Captured bytes from the cursor to the end of the layer.
    #[inline]
    fn rest(&self) -> &'a [u8] {
        self.data.get(self.at..).unwrap_or_default()
    }

    /// `len` bytes at the cursor, or where they are missing: beyond the wire end is
    /// malformed, beyond the captured end only truncated.
    #[inline]
    pub fn need(&self, len: usize, layer: Layer) -> Result<&'a [u8], Stop> {
        let want_end = self.at.saturating_add(len);
        if want_end <= self.data.len() {
            return Ok(&self.data[self.at..want_end]);
        }
        Err(self.short(len, layer))
    }

    /// Why `len` bytes at the cursor are not all there.
    #[cold]
    pub fn short(&self, len: usize, layer: Layer) -> Stop {
        let want_end = self.at.saturating_add(len);
        let available = self.data.len().saturating_sub(self.at);
        let err = DecodeError::short(layer, self.at, len, available);
        if want_end <= self.end {
            Stop::Truncated(err)
        } else {
            Stop::Malformed(err)
        }
    }

    /// The same frame and cursor, with a length field's end as the new wire end. A length
    /// field that reaches past the current end is malformed.
    #[inline]
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
            ..*self
        })
    }

    /// The same frame and cursor, ending where a header's length field says its layer
    /// ends. `check` is that header's `check_len`: it gets the room from `start`, the
    /// header's offset, to the current wire end, and returns the length it holds within it;
    /// the error it returns instead makes the frame malformed.
    #[inline]
    pub fn bounded(
        self,
        start: usize,
        check: impl FnOnce(usize) -> Result<usize, DecodeError>,
    ) -> Result<Self, Stop> {
        let len = check(self.end.saturating_sub(start)).map_err(Stop::Malformed)?;
        Ok(self.with_wire_end(start + len))
    }

    /// The same bytes with `end` as the wire end, wherever the current one is: for a
    /// container that states the wire length apart from how much it kept.
    #[inline]
    pub fn with_wire_end(self, end: usize) -> Self {
        Bytes {
            data: &self.data[..self.data.len().min(end)],
            end,
            ..self
        }
    }

    /// Captured bytes from `start` up to `stop` (clamped to what was captured).
    #[inline]
    pub fn captured(&self, start: usize, stop: usize) -> &'a [u8] {
        let stop = stop.min(self.data.len());
        self.data.get(start..stop).unwrap_or_default()
    }

    /// All of `start..stop`, if every byte of it was captured.
    #[inline]
    pub fn complete(&self, start: usize, stop: usize) -> Option<&'a [u8]> {
        if stop <= self.data.len() && start <= stop {
            Some(&self.data[start..stop])
        } else {
            None
        }
    }
}

/// nom sees the captured bytes from the cursor on. Taking a prefix makes its end the wire
/// end too, so a parser run on a prefix calls anything past it malformed.
impl<'a> Input for Bytes<'a> {
    type Item = u8;
    type Iter = std::iter::Copied<std::slice::Iter<'a, u8>>;
    type IterIndices = std::iter::Enumerate<Self::Iter>;

    #[inline]
    fn input_len(&self) -> usize {
        self.rest().len()
    }

    #[inline]
    fn take(&self, index: usize) -> Self {
        let stop = self.at.saturating_add(index);
        Bytes {
            data: &self.data[..stop.min(self.data.len())],
            end: stop,
            ..*self
        }
    }

    /// Unlike a slice, does not panic past the end: the next `need` reports the gap.
    #[inline]
    fn take_from(&self, index: usize) -> Self {
        self.skip(index)
    }

    #[inline]
    fn take_split(&self, index: usize) -> (Self, Self) {
        (self.take_from(index), self.take(index))
    }

    #[inline]
    fn position<P>(&self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool,
    {
        self.rest().iter().position(|&b| predicate(b))
    }

    #[inline]
    fn iter_elements(&self) -> Self::Iter {
        self.rest().iter().copied()
    }

    #[inline]
    fn iter_indices(&self) -> Self::IterIndices {
        self.iter_elements().enumerate()
    }

    #[inline]
    fn slice_index(&self, count: usize) -> Result<usize, Needed> {
        let len = self.input_len();
        if count <= len {
            Ok(count)
        } else {
            Err(Needed::new(count - len))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_missing_bytes() {
        let data = [0u8; 10];
        let bytes = Bytes::new(&data, 20, Layer::Ethernet);
        assert!(bytes.seek(4).need(6, Layer::Bth).is_ok());
        assert!(matches!(
            bytes.seek(8).need(6, Layer::Bth),
            Err(Stop::Truncated(_))
        ));
        assert!(matches!(
            bytes.seek(18).need(6, Layer::Bth),
            Err(Stop::Malformed(_))
        ));
        assert!(matches!(
            bytes.seek(usize::MAX).need(6, Layer::Bth),
            Err(Stop::Malformed(_))
        ));
        let inner = bytes.limit(15, Layer::Ipv4, 0, "too long").unwrap();
        assert!(matches!(
            inner.seek(12).need(4, Layer::Udp),
            Err(Stop::Malformed(_))
        ));
        assert!(bytes.limit(21, Layer::Ipv4, 0, "too long").is_err());
    }

    #[test]
    fn nom_sees_the_captured_rest_and_a_prefix_ends_on_the_wire() {
        let data = [1u8, 2, 3, 4, 5, 6];
        let bytes = Bytes::new(&data, 10, Layer::Ethernet).seek(2);
        assert_eq!(bytes.input_len(), 4);
        assert_eq!(bytes.iter_elements().collect::<Vec<_>>(), [3, 4, 5, 6]);
        let (rest, head) = bytes.take_split(2);
        assert_eq!((head.at(), head.end(), head.input_len()), (2, 4, 2));
        assert_eq!((rest.at(), rest.end(), rest.input_len()), (4, 10, 2));
        // Past a prefix's end nothing more can come on the wire.
        assert!(matches!(head.need(3, Layer::Bth), Err(Stop::Malformed(_))));
        assert_eq!(bytes.slice_index(5), Err(Needed::new(1)));
    }
}
