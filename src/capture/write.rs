//! Writing records to a new capture, byte for byte: the captured bytes, the original
//! length (a record the snaplen cut stays cut) and the timestamp. pcap for one link type,
//! pcapng for anything (several interfaces, link types or timestamp resolutions).
//!
//! Written here rather than with the pcap-file crate; docs/architecture.md says why.

use std::io::{self, Write};

use super::pcapng::block::{
    BYTE_ORDER_MAGIC, EPB, IDB, OPT_END as OPT_ENDOFOPT, OPT_IF_TSRESOL, SHB, SPB,
};
use super::{InterfaceInfo, TsResolution};

/// pcap's 16-byte record header and pcapng's 28-byte packet block head carry lengths in
/// 32 bits; no record rdmadump reads is longer (`MAX_RECORD`), but a caller could pass one.
fn len32(data: &[u8]) -> io::Result<u32> {
    u32::try_from(data.len()).map_err(|_| io::Error::other("record longer than 4 GiB"))
}

/// A classic pcap file, little-endian, with microsecond or nanosecond timestamps.
pub struct PcapWriter<W> {
    out: W,
    nanos: bool,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the global header (pcap(5)): version 2.4, no time zone, `interface`'s link
    /// type and snaplen. Resolutions other than nanoseconds are written in microseconds.
    pub fn new(mut out: W, interface: InterfaceInfo) -> io::Result<Self> {
        let nanos = interface.resolution == TsResolution::NANO;
        let magic: u32 = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
        let mut header = [0u8; 24];
        header[0..4].copy_from_slice(&magic.to_le_bytes());
        header[4..6].copy_from_slice(&2u16.to_le_bytes());
        header[6..8].copy_from_slice(&4u16.to_le_bytes());
        header[16..20].copy_from_slice(&interface.snaplen.to_le_bytes());
        header[20..24].copy_from_slice(&interface.linktype.to_le_bytes());
        out.write_all(&header)?;
        Ok(PcapWriter { out, nanos })
    }

    /// One record; a record without a timestamp (pcapng SPB) is written at time 0.
    pub fn write(&mut self, ts_ns: Option<u64>, orig_len: u32, data: &[u8]) -> io::Result<()> {
        let ts = ts_ns.unwrap_or(0);
        let secs = u32::try_from(ts / 1_000_000_000).map_err(|_| {
            io::Error::other(format!(
                "timestamp {ts} ns is past 2106, beyond pcap's 32-bit seconds: write pcapng \
                 (name the output *.pcapng)"
            ))
        })?;
        let mut frac = (ts % 1_000_000_000) as u32;
        if !self.nanos {
            frac /= 1000;
        }
        let mut header = [0u8; 16];
        header[0..4].copy_from_slice(&secs.to_le_bytes());
        header[4..8].copy_from_slice(&frac.to_le_bytes());
        header[8..12].copy_from_slice(&len32(data)?.to_le_bytes());
        header[12..16].copy_from_slice(&orig_len.to_le_bytes());
        self.out.write_all(&header)?;
        self.out.write_all(data)
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

const OPT_SHB_USERAPPL: u16 = 4;
/// What an Enhanced Packet Block holds besides its data and padding.
const EPB_OVERHEAD: usize = 32;
/// What a Simple Packet Block holds besides its data and padding.
const SPB_OVERHEAD: usize = 16;

/// A pcapng file, little-endian, of one section. Interfaces are declared as they are
/// added, each with its own link type, snaplen and timestamp resolution.
pub struct PcapNgWriter<W> {
    out: W,
    resolutions: Vec<TsResolution>,
}

impl<W: Write> PcapNgWriter<W> {
    /// Writes the section header, naming `application` as its writer.
    pub fn new(mut out: W, application: &str) -> io::Result<Self> {
        let mut options = Vec::new();
        push_option(&mut options, OPT_SHB_USERAPPL, application.as_bytes());
        options.extend_from_slice(&[0; 4]);
        let mut body = Vec::with_capacity(16 + options.len());
        body.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        // Section length unknown: the output may be a pipe.
        body.extend_from_slice(&(-1i64).to_le_bytes());
        body.extend_from_slice(&options);
        write_block(&mut out, SHB, &body)?;
        Ok(PcapNgWriter {
            out,
            resolutions: Vec::new(),
        })
    }

    /// Declares an interface; its id, for `write`, is the number declared before it.
    pub fn add_interface(&mut self, interface: InterfaceInfo) -> io::Result<u32> {
        let linktype = u16::try_from(interface.linktype).map_err(|_| {
            io::Error::other(format!(
                "link type {} does not fit pcapng's 16 bits",
                interface.linktype
            ))
        })?;
        let id = u32::try_from(self.resolutions.len())
            .map_err(|_| io::Error::other("too many interfaces"))?;
        let mut body = Vec::with_capacity(24);
        body.extend_from_slice(&linktype.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        body.extend_from_slice(&interface.snaplen.to_le_bytes());
        // Microseconds are the default, which readers assume without the option.
        if interface.resolution != TsResolution::MICRO {
            push_option(
                &mut body,
                OPT_IF_TSRESOL,
                &[interface.resolution.tsresol_byte()],
            );
            push_option(&mut body, OPT_ENDOFOPT, &[]);
        }
        write_block(&mut self.out, IDB, &body)?;
        self.resolutions.push(interface.resolution);
        Ok(id)
    }

    /// One record on interface `iface`: an Enhanced Packet Block, its time in that
    /// interface's units. A record without a timestamp is written as it was read, a Simple
    /// Packet Block, where one can hold it (on interface 0, and not cut: an SPB's captured
    /// length is implied); elsewhere as an EPB at time 0.
    pub fn write(
        &mut self,
        iface: u32,
        ts_ns: Option<u64>,
        orig_len: u32,
        data: &[u8],
    ) -> io::Result<()> {
        if ts_ns.is_none() && iface == 0 && data.len() == orig_len as usize {
            return self.write_simple(data);
        }
        let resolution = *self
            .resolutions
            .get(iface as usize)
            .ok_or_else(|| io::Error::other(format!("interface {iface} was never declared")))?;
        let units = resolution.units(ts_ns.unwrap_or(0));
        let caplen = len32(data)?;
        let padding = (4 - data.len() % 4) % 4;
        let total = u32::try_from(EPB_OVERHEAD + data.len() + padding)
            .map_err(|_| io::Error::other("record longer than 4 GiB"))?;
        let mut head = [0u8; 28];
        head[0..4].copy_from_slice(&EPB.to_le_bytes());
        head[4..8].copy_from_slice(&total.to_le_bytes());
        head[8..12].copy_from_slice(&iface.to_le_bytes());
        head[12..16].copy_from_slice(&((units >> 32) as u32).to_le_bytes());
        head[16..20].copy_from_slice(&(units as u32).to_le_bytes());
        head[20..24].copy_from_slice(&caplen.to_le_bytes());
        head[24..28].copy_from_slice(&orig_len.to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(data)?;
        self.out.write_all(&[0; 3][..padding])?;
        self.out.write_all(&total.to_le_bytes())
    }

    fn write_simple(&mut self, data: &[u8]) -> io::Result<()> {
        let padding = (4 - data.len() % 4) % 4;
        let total = u32::try_from(SPB_OVERHEAD + data.len() + padding)
            .map_err(|_| io::Error::other("record longer than 4 GiB"))?;
        let mut head = [0u8; 12];
        head[0..4].copy_from_slice(&SPB.to_le_bytes());
        head[4..8].copy_from_slice(&total.to_le_bytes());
        head[8..12].copy_from_slice(&len32(data)?.to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(data)?;
        self.out.write_all(&[0; 3][..padding])?;
        self.out.write_all(&total.to_le_bytes())
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// An option (pcapng §3.5): code, length, value padded to 32 bits.
fn push_option(body: &mut Vec<u8>, code: u16, value: &[u8]) {
    body.extend_from_slice(&code.to_le_bytes());
    body.extend_from_slice(&(value.len() as u16).to_le_bytes());
    body.extend_from_slice(value);
    body.resize(body.len().div_ceil(4) * 4, 0);
}

/// A whole block around `body`, which is already padded to 32 bits.
fn write_block(out: &mut impl Write, block_type: u32, body: &[u8]) -> io::Result<()> {
    let total = u32::try_from(12 + body.len()).map_err(|_| io::Error::other("block too long"))?;
    out.write_all(&block_type.to_le_bytes())?;
    out.write_all(&total.to_le_bytes())?;
    out.write_all(body)?;
    out.write_all(&total.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{CaptureReader, SliceInput};

    /// A record read back: data, original length, time, interface id and description.
    type ReadBack = (Vec<u8>, u32, Option<u64>, u32, InterfaceInfo);

    /// What the readers make of a written file: every record's fields, and the interfaces.
    fn read_back(bytes: &[u8]) -> Vec<ReadBack> {
        let mut reader = CaptureReader::new(SliceInput::new(bytes)).unwrap();
        let mut records = Vec::new();
        while reader.advance().unwrap() {
            let r = reader.current().unwrap();
            let (data, orig_len, ts, iface) = (r.data.to_vec(), r.orig_len, r.ts_ns, r.iface);
            records.push((data, orig_len, ts, iface, reader.interface(iface).unwrap()));
        }
        assert!(!reader.was_cut_short());
        records
    }

    #[test]
    fn pcap_keeps_cut_records_and_nanoseconds() {
        let ns = InterfaceInfo {
            linktype: 247,
            snaplen: 3,
            resolution: TsResolution::NANO,
        };
        let mut w = PcapWriter::new(Vec::new(), ns).unwrap();
        w.write(Some(1_700_000_000_123_456_789), 60, &[1, 2, 3])
            .unwrap();
        let bytes = w.into_inner();
        // pcap(5): nanosecond magic written little-endian.
        assert_eq!(bytes[..4], [0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(
            read_back(&bytes),
            [(vec![1, 2, 3], 60, Some(1_700_000_000_123_456_789), 0, ns)]
        );
        let mut w = PcapWriter::new(
            Vec::new(),
            InterfaceInfo {
                resolution: TsResolution::MICRO,
                ..ns
            },
        )
        .unwrap();
        assert!(
            w.write(
                Some(u64::from(u32::MAX) * 1_000_000_000 + 1_000_000_000),
                1,
                &[0]
            )
            .is_err()
        );
    }

    #[test]
    fn pcapng_interfaces_keep_link_types_and_resolutions() {
        let eth_us = InterfaceInfo {
            linktype: 1,
            snaplen: 0,
            resolution: TsResolution::MICRO,
        };
        let ib_bin = InterfaceInfo {
            linktype: 247,
            snaplen: 65535,
            resolution: TsResolution::Binary(20),
        };
        let mut w = PcapNgWriter::new(Vec::new(), "rdmadump test").unwrap();
        assert_eq!(w.add_interface(eth_us).unwrap(), 0);
        assert_eq!(w.add_interface(ib_bin).unwrap(), 1);
        w.write(1, Some(1_500_000_000), 9, &[0xaa; 5]).unwrap();
        w.write(0, Some(2_000_001_000), 4, &[0xbb; 4]).unwrap();
        w.write(0, None, 4, &[]).unwrap();
        w.write(0, None, 3, &[0xcc; 3]).unwrap();
        w.write(1, None, 3, &[0xdd; 3]).unwrap();
        assert!(w.write(2, Some(0), 0, &[]).is_err(), "undeclared interface");
        assert_eq!(
            read_back(&w.into_inner()),
            [
                (vec![0xaa; 5], 9, Some(1_500_000_000), 1, ib_bin),
                (vec![0xbb; 4], 4, Some(2_000_001_000), 0, eth_us),
                (vec![], 4, Some(0), 0, eth_us),
                (vec![0xcc; 3], 3, None, 0, eth_us),
                (vec![0xdd; 3], 3, Some(0), 1, ib_bin),
            ]
        );
    }
}
