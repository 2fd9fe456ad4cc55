//! gzip- and zstd-compressed captures, recognised by their magic number rather than the
//! file name, and read as a stream through the decompressor: a compressed file is never
//! mapped or decompressed whole, so memory stays bounded by the largest record.

use std::io::{self, Read};

/// RFC 1952: ID1 ID2.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// RFC 8878: the zstd frame magic, 0xFD2FB528 little-endian.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// Bytes needed to tell the formats apart.
pub const SNIFF_LEN: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
}

/// The compression the first bytes of a file announce, if any.
pub fn detect(start: &[u8]) -> Option<Compression> {
    if start.starts_with(&ZSTD_MAGIC) {
        Some(Compression::Zstd)
    } else if start.starts_with(&GZIP_MAGIC) {
        Some(Compression::Gzip)
    } else {
        None
    }
}

/// `reader`, decompressed when its first bytes say it is compressed. The bytes looked at
/// are put back in front, so nothing is lost whichever way it goes.
pub fn decompressing(mut reader: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut start = [0u8; SNIFF_LEN];
    let mut got = 0;
    while got < SNIFF_LEN {
        match reader.read(&mut start[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let whole: Box<dyn Read + Send> =
        Box::new(io::Cursor::new(start).take(got as u64).chain(reader));
    Ok(match detect(&start[..got]) {
        // Multi-member, as `cat a.gz b.gz` and parallel gzip tools write.
        Some(Compression::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(whole)),
        Some(Compression::Zstd) => Box::new(zstd::stream::read::Decoder::new(whole)?),
        None => whole,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(data: Vec<u8>) -> Vec<u8> {
        let mut out = Vec::new();
        decompressing(Box::new(io::Cursor::new(data)))
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn plain_gzip_and_zstd_read_the_same() {
        let plain: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&plain).unwrap();
        let gz = gz.finish().unwrap();
        let zst = zstd::encode_all(&plain[..], 1).unwrap();
        assert_eq!(detect(&gz), Some(Compression::Gzip));
        assert_eq!(detect(&zst), Some(Compression::Zstd));
        assert_eq!(read_all(plain.clone()), plain);
        assert_eq!(read_all(gz), plain);
        assert_eq!(read_all(zst), plain);
        assert_eq!(read_all(vec![0x1f]), vec![0x1f], "shorter than any magic");
    }
}
