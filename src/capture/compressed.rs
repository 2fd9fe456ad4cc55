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
        Some(Compression::Gzip) => Box::new(CutShortEnds(flate2::read::MultiGzDecoder::new(whole))),
        Some(Compression::Zstd) => Box::new(CutShortEnds(zstd::stream::read::Decoder::new(whole)?)),
        None => whole,
    })
}

/// A decompressor whose input ends before the compressed stream does (a copy cut short, a
/// capture still being written): both decoders say so with `UnexpectedEof`, after handing
/// out all they decoded. The error is marked [`CutShort`], so that the capture is taken
/// for one cut short, as an uncompressed file would be, rather than for a damaged one,
/// even where the cut falls between two records (in a checksum or a trailer).
struct CutShortEnds<R>(R);

impl<R: Read> Read for CutShortEnds<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf) {
            Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => {
                Err(io::Error::new(io::ErrorKind::UnexpectedEof, CutShort))
            }
            other => other,
        }
    }
}

/// The compressed stream ended before its end: what was decompressed is all there is.
#[derive(Debug)]
pub struct CutShort;

impl std::fmt::Display for CutShort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "capture cut short: the compressed stream ends early; every record \
             decompressed before the cut was read",
        )
    }
}

impl std::error::Error for CutShort {}

/// True for the error of a compressed stream cut short.
pub fn is_cut_short(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|inner| inner.is::<CutShort>())
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

    #[test]
    fn a_compressed_stream_cut_short_gives_what_it_decoded_then_says_so() {
        let plain: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&plain).unwrap();
        let gz = gz.finish().unwrap();
        let zst = zstd::encode_all(&plain[..], 1).unwrap();
        for (name, whole) in [("gzip", gz), ("zstd", zst)] {
            for keep in [whole.len() - 1, whole.len() / 2] {
                let mut got = Vec::new();
                let err = decompressing(Box::new(io::Cursor::new(whole[..keep].to_vec())))
                    .unwrap()
                    .read_to_end(&mut got)
                    .unwrap_err();
                assert!(is_cut_short(&err), "{name}, cut at {keep}: {err}");
                assert_eq!(
                    got[..],
                    plain[..got.len()],
                    "{name}: a prefix, cut at {keep}"
                );
            }
        }
    }
}
