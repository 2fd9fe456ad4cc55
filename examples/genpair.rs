//! Writes a synthetic capture for the pairing benchmark (kept out of git).
//!
//! usage: genpair OUT REQUEST_QPS RESPONSES
//!
//! REQUEST_QPS queue pairs each send one RC SEND_ONLY from 10.0.0.1 to 10.0.0.2, at PSN 0;
//! then 10.0.0.2 sends RESPONSES ACKs back, at PSNs that answer none of those requests, so
//! that the requesters' ends stay unpaired and every response looks for its peer again.

use std::fs::File;
use std::io::{BufWriter, Write};

use rdmadump::crc::{IcrcPrefix, icrc};

/// Ethernet/IPv4/UDP 4791/BTH (and an AETH when `ack`), with a valid ICRC.
fn frame(request: bool, qp: u32, psn: u32) -> Vec<u8> {
    let (src, dst, opcode, extra) = if request {
        (1, 2, 0x04u8, 8usize)
    } else {
        (2, 1, 0x11u8, 4usize)
    };
    let udp_len = 8 + 12 + extra + 4;
    let ip_len = 20 + udp_len;
    let mut f = Vec::with_capacity(14 + ip_len);
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, dst, 0x02, 0, 0, 0, 0, src, 0x08, 0x00]);
    let mut ip = [
        0x45, 0x02, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, src, 10, 0, 0, dst,
    ];
    ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    let sum = ip
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
        .sum::<u32>();
    let sum = !(((sum & 0xffff) + (sum >> 16)) as u16);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    f.extend_from_slice(&ip);
    let mut udp = [0u8; 8];
    udp[0..2].copy_from_slice(&49152u16.to_be_bytes());
    udp[2..4].copy_from_slice(&4791u16.to_be_bytes());
    udp[4..6].copy_from_slice(&(udp_len as u16).to_be_bytes());
    f.extend_from_slice(&udp);
    let mut bth = [opcode, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0];
    bth[5..8].copy_from_slice(&qp.to_be_bytes()[1..]);
    bth[9..12].copy_from_slice(&psn.to_be_bytes()[1..]);
    f.extend_from_slice(&bth);
    // A request's 8 bytes of payload, or the AETH of an ACK (syndrome 0x1f: no credit).
    if request {
        f.extend_from_slice(&[0; 8]);
    } else {
        f.extend_from_slice(&[0x1f, 0, 0, 0]);
    }
    let crc = icrc(
        IcrcPrefix::RoceV2 {
            ip: &f[14..34],
            ipv6: false,
            udp: f[34..42].try_into().unwrap(),
        },
        &f[42..],
    );
    f.extend_from_slice(&crc.to_le_bytes());
    f
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: genpair OUT REQUEST_QPS RESPONSES");
        std::process::exit(2);
    }
    let qps: u32 = args[2].parse().expect("REQUEST_QPS");
    let responses: u32 = args[3].parse().expect("RESPONSES");
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&args[1])?);
    for w in [0xa1b2_3c4du32, 0x0004_0002, 0, 0, 262_144, 1] {
        out.write_all(&w.to_le_bytes())?;
    }
    let start_ns: u64 = 1_700_000_000_000_000_000;
    let packets = (0..qps)
        .map(|q| frame(true, 0x100 + q, 0))
        .chain((0..responses).map(|r| frame(false, 0x10_0000 + r % 1000, 0x40_0000 + r)));
    for (i, data) in packets.enumerate() {
        let ts = start_ns + i as u64 * 100;
        let (secs, nanos) = ((ts / 1_000_000_000) as u32, (ts % 1_000_000_000) as u32);
        for w in [secs, nanos, data.len() as u32, data.len() as u32] {
            out.write_all(&w.to_le_bytes())?;
        }
        out.write_all(&data)?;
    }
    out.flush()
}
