//! A capture that is already in memory: what Spark's `binaryFile` source hands the Python
//! package for a capture in an object store (S3, HDFS, GCS), which has no local path to map.
//! It is read in place, as a mapped file is, so that it is never copied again.

use std::fmt;
use std::io;
use std::sync::Arc;

use super::{Source, compressed};

/// A capture's bytes, shared with whoever holds them (a Python buffer, a `Vec`).
#[derive(Clone)]
pub struct InMemory(Arc<dyn AsRef<[u8]> + Send + Sync>);

impl InMemory {
    pub fn new(bytes: impl AsRef<[u8]> + Send + Sync + 'static) -> Self {
        InMemory(Arc::new(bytes))
    }

    pub fn len(&self) -> usize {
        self.as_ref().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl AsRef<[u8]> for InMemory {
    fn as_ref(&self) -> &[u8] {
        (*self.0).as_ref()
    }
}

/// The length only: a capture's bytes are no use in a message.
impl fmt::Debug for InMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InMemory({} bytes)", self.len())
    }
}

impl Source {
    /// A capture in memory: read in place, or through its decompressor when it is a gzip
    /// or zstd file, as a file on disk would be.
    pub fn in_memory(bytes: InMemory) -> io::Result<Source> {
        let start = &bytes.as_ref()[..bytes.len().min(compressed::SNIFF_LEN)];
        if compressed::detect(start).is_some() {
            let reader = Box::new(io::Cursor::new(bytes));
            return Ok(Source::Stream(compressed::decompressing(reader)?, None));
        }
        Ok(Source::Memory(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::AnyReader;

    /// A classic pcap (microsecond timestamps, Ethernet) of `frames` 60-byte records.
    fn pcap(frames: usize) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        out.extend_from_slice(&2u16.to_le_bytes());
        out.extend_from_slice(&4u16.to_le_bytes());
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(&65535u32.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        for i in 0..frames as u32 {
            out.extend_from_slice(&1_700_000_000u32.to_le_bytes());
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&60u32.to_le_bytes());
            out.extend_from_slice(&60u32.to_le_bytes());
            out.extend_from_slice(&[0; 60]);
        }
        out
    }

    fn records(source: &mut Source) -> usize {
        let mut reader = AnyReader::open(source).unwrap();
        let mut count = 0;
        while reader.advance().unwrap() {
            count += 1;
        }
        count
    }

    #[test]
    fn a_capture_in_memory_is_read_in_place() {
        let mut source = Source::in_memory(InMemory::new(pcap(3))).unwrap();
        assert!(matches!(source, Source::Memory(_)));
        assert_eq!(records(&mut source), 3);
    }

    #[test]
    fn a_compressed_capture_in_memory_is_decompressed() {
        let mut packed = Vec::new();
        let mut encoder = flate2::write::GzEncoder::new(&mut packed, flate2::Compression::fast());
        io::Write::write_all(&mut encoder, &pcap(4)).unwrap();
        encoder.finish().unwrap();
        let mut source = Source::in_memory(InMemory::new(packed)).unwrap();
        assert!(matches!(source, Source::Stream(..)));
        assert_eq!(records(&mut source), 4);
    }
}
