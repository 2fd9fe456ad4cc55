//! Writes a large synthetic RoCE v2 capture for benchmarks (kept out of git).
//!
//! usage: gencap OUT PACKETS PAYLOAD_BYTES FLOWS [pcap|pcapng]
//!
//! Every packet is Ethernet/IPv4/UDP 4791/BTH RC SEND_ONLY with a valid ICRC, round-robin
//! over FLOWS queue pairs with per-flow increasing PSNs, so the analyzer does real work and
//! finds nothing wrong.

use std::fs::File;
use std::io::{BufWriter, Write};

use rdmadump::crc::{IcrcPrefix, icrc};

fn frame(payload: usize, qp: u32, psn: u32) -> Vec<u8> {
    let udp_len = 8 + 12 + payload + 4;
    let ip_len = 20 + udp_len;
    let mut f = Vec::with_capacity(14 + ip_len);
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00]);
    let mut ip = [
        0x45, 0x02, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
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
    let mut bth = [0x04, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0];
    bth[5..8].copy_from_slice(&qp.to_be_bytes()[1..]);
    bth[9..12].copy_from_slice(&psn.to_be_bytes()[1..]);
    f.extend_from_slice(&bth);
    f.extend((0..payload).map(|i| (i as u8).wrapping_mul(31)));
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
    if args.len() < 5 {
        eprintln!("usage: gencap OUT PACKETS PAYLOAD_BYTES FLOWS [pcap|pcapng]");
        std::process::exit(2);
    }
    let packets: u64 = args[2].parse().expect("PACKETS");
    let payload: usize = args[3].parse().expect("PAYLOAD_BYTES");
    let flows: u32 = args[4].parse::<u32>().expect("FLOWS").max(1);
    let pcapng = args.get(5).is_some_and(|f| f == "pcapng");
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&args[1])?);
    if pcapng {
        // Section header, then one Ethernet interface with nanosecond timestamps.
        let shb: [u32; 7] = [0x0a0d0d0a, 28, 0x1a2b3c4d, 1, 0xffff_ffff, 0xffff_ffff, 28];
        for w in shb {
            out.write_all(&w.to_le_bytes())?;
        }
        out.write_all(&1u32.to_le_bytes())?;
        out.write_all(&32u32.to_le_bytes())?;
        out.write_all(&1u16.to_le_bytes())?;
        out.write_all(&0u16.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&[9, 0, 1, 0, 9, 0, 0, 0])?; // if_tsresol = 9
        out.write_all(&[0, 0, 0, 0])?; // opt_endofopt
        out.write_all(&32u32.to_le_bytes())?;
    } else {
        let header: [u32; 6] = [0xa1b2_3c4d, 0x0004_0002, 0, 0, 262_144, 1];
        for w in header {
            out.write_all(&w.to_le_bytes())?;
        }
    }
    let mut psns = vec![0u32; flows as usize];
    let start_ns: u64 = 1_700_000_000_000_000_000;
    for i in 0..packets {
        let flow = (i % u64::from(flows)) as u32;
        let psn = psns[flow as usize];
        psns[flow as usize] = (psn + 1) & 0xff_ffff;
        let data = frame(payload, 0x100 + flow, psn);
        let ts = start_ns + i * 100;
        if pcapng {
            let padded = data.len().div_ceil(4) * 4;
            let total = (32 + padded) as u32;
            for w in [
                6,
                total,
                0,
                (ts >> 32) as u32,
                ts as u32,
                data.len() as u32,
                data.len() as u32,
            ] {
                out.write_all(&w.to_le_bytes())?;
            }
            out.write_all(&data)?;
            out.write_all(&[0; 3][..padded - data.len()])?;
            out.write_all(&total.to_le_bytes())?;
        } else {
            let secs = (ts / 1_000_000_000) as u32;
            let nanos = (ts % 1_000_000_000) as u32;
            for w in [secs, nanos, data.len() as u32, data.len() as u32] {
                out.write_all(&w.to_le_bytes())?;
            }
            out.write_all(&data)?;
        }
    }
    out.flush()
}
