//! `rdmadump read`: one tcpdump-like line per frame.

use std::io::Write;

use super::time::Clock;
use crate::crc::{CrcCheck, CrcStatus};
use crate::dissect::{Encap, Kind, Packet, Ulp};
use crate::wire::aeth::{self, Syndrome};
use crate::wire::erspan::ErspanCommon;
use crate::wire::opcode;

/// Appends one line (with its newline) describing `pkt`.
/// `file` names the input when several are merged, so frame numbers stay unambiguous.
pub fn write_packet(out: &mut Vec<u8>, pkt: &Packet<'_>, clock: &mut Clock, file: Option<&str>) {
    write_frame(out, pkt, file);
    clock.write(out, pkt.ts_ns);
    write_rest(out, pkt);
}

/// The start of a line, up to where the time goes.
pub fn write_frame(out: &mut Vec<u8>, pkt: &Packet<'_>, file: Option<&str>) {
    match file {
        Some(name) => {
            let _ = write!(out, "{name}:{} ", pkt.frame);
        }
        None => {
            let _ = write!(out, "{:>6} ", pkt.frame);
        }
    }
}

/// The rest of a line after the time, newline included.
pub fn write_rest(out: &mut Vec<u8>, pkt: &Packet<'_>) {
    let _ = write!(out, " {:<9}", pkt.kind.name());
    write_tunnels(out, pkt);
    for tag in pkt.vlans.iter() {
        let _ = write!(out, " vlan {} p{}", tag.vid(), tag.pcp());
    }
    if super::text_other::write_endpoints(out, pkt) {
        // Named by its protocol and ports, like tcpdump.
    } else {
        write_addresses(out, pkt);
    }
    write_transport(out, pkt);
}

fn write_addresses(out: &mut Vec<u8>, pkt: &Packet<'_>) {
    match (pkt.src_addr(), pkt.dst_addr()) {
        (Some(src), Some(dst)) => {
            let _ = write!(out, " {src} > {dst}");
        }
        _ => {
            if let Some(eth) = &pkt.eth {
                let _ = write!(out, " {} > {}", eth.src(), eth.dst());
            }
        }
    }
}

fn write_transport(out: &mut Vec<u8>, pkt: &Packet<'_>) {
    if let Some(bth) = &pkt.bth {
        let _ = write!(
            out,
            " {} qp {:#x} psn {}",
            opcode::info(bth.opcode()).name,
            bth.dest_qp(),
            bth.psn()
        );
        let flags = [
            (bth.solicited_event(), "SE"),
            (bth.migreq(), "M"),
            (bth.ack_req(), "AckReq"),
            (bth.fecn(), "FECN"),
            (bth.becn(), "BECN"),
            (pkt.ecn_ce(), "CE"),
        ];
        let mut first = true;
        for (_, name) in flags.iter().filter(|(set, _)| *set) {
            out.extend_from_slice(if first { b" [" } else { b"," });
            out.extend_from_slice(name.as_bytes());
            first = false;
        }
        if !first {
            out.push(b']');
        }
    } else if pkt.ecn_ce() {
        out.extend_from_slice(b" [CE]");
    }
    if let Some(aeth) = &pkt.aeth {
        let _ = match aeth.decode() {
            Syndrome::Ack { credit_code } => match aeth::credits(credit_code) {
                Some(count) => write!(out, " ACK credits {count} msn {}", aeth.msn()),
                None => write!(out, " ACK credits invalid msn {}", aeth.msn()),
            },
            Syndrome::RnrNak { timer } => write!(
                out,
                " RNR-NAK timer {timer} ({}) msn {}",
                RnrDelay(aeth::rnr_timer_us(timer)),
                aeth.msn()
            ),
            Syndrome::Nak(code) => write!(out, " NAK {} msn {}", code.name(), aeth.msn()),
            Syndrome::Reserved => write!(out, " AETH reserved syndrome {:#x}", aeth.syndrome()),
        };
    }
    if let Some(reth) = &pkt.reth {
        let _ = write!(
            out,
            " va {:#x} rkey {:#x} dma_len {}",
            reth.va(),
            reth.rkey(),
            reth.dma_len()
        );
    }
    if let Some(deth) = &pkt.deth {
        let _ = write!(out, " src_qp {:#x} qkey {:#x}", deth.src_qp(), deth.qkey());
    }
    if let Some(len) = pkt.payload_len {
        let _ = write!(out, " payload {len}");
    }
    if let Some(mad) = &pkt.mad {
        super::mad_text::write_mad(out, mad);
    }
    match &pkt.ulp {
        Some(Ulp::Nvme(nvme)) => super::nvme_read::write_summary(out, nvme),
        Some(Ulp::Rpc(rpc)) => super::rpcrdma_read::write_summary(out, rpc),
        Some(Ulp::Iser(iser)) => super::iser_read::write_summary(out, iser),
        Some(Ulp::Smbd(smbd)) => super::smbd_read::write_summary(out, smbd),
        None => {}
    }
    if let Some(pfc) = &pkt.pfc {
        let quanta = pfc.quanta();
        for (priority, q) in quanta.iter().enumerate().filter(|(p, _)| pfc.enabled(*p)) {
            let _ = if *q == 0 {
                write!(out, " p{priority}=XON")
            } else {
                write!(out, " p{priority}={q}")
            };
        }
        if pfc.class_enable() & 0xff == 0 {
            out.extend_from_slice(b" no priorities enabled");
        }
    }
    if let Some(pause) = &pkt.pause {
        let _ = write!(out, " quanta {}", pause.quanta());
    }
    write_crc(out, "ICRC", pkt.icrc, 8);
    write_crc(out, "VCRC", pkt.vcrc, 4);
    if pkt.kind == Kind::Malformed
        && let Some(err) = &pkt.error
    {
        let _ = write!(out, " !! {err}");
    }
    if let Some(cut) = &pkt.truncated {
        let _ = write!(out, " [snaplen cut {} at offset {}]", cut.layer, cut.offset);
    }
    out.push(b'\n');
}

/// Each tunnel, outermost first, as `type src > dst detail |`, so that what follows the
/// last bar reads as the line of the bare inner frame.
fn write_tunnels(out: &mut Vec<u8>, pkt: &Packet<'_>) {
    for tunnel in pkt.tunnels.iter() {
        let (src, dst) = (tunnel.ip.src(), tunnel.ip.dst());
        let _ = match &tunnel.encap {
            Encap::Gre(gre) => {
                let _ = write!(
                    out,
                    " gre {src} > {dst} proto {:#06x}",
                    gre.header.protocol()
                );
                match gre.key() {
                    Some(key) => write!(out, " key {key:#x}"),
                    None => Ok(()),
                }
            }
            Encap::ErspanI(_) => write!(out, " erspan1 {src} > {dst}"),
            Encap::ErspanII(_, h) => write!(
                out,
                " erspan2 {src} > {dst} session {} vlan {}",
                h.session_id(),
                h.vlan()
            ),
            Encap::ErspanIII(_, h, _) => write!(
                out,
                " erspan3 {src} > {dst} session {} vlan {} {}",
                h.session_id(),
                h.vlan(),
                if h.egress() { "egress" } else { "ingress" }
            ),
            Encap::Vxlan(_, h) => write!(out, " vxlan {src} > {dst} vni {}", h.vni()),
        };
        out.extend_from_slice(b" |");
    }
    if pkt.tunnels.too_deep {
        out.extend_from_slice(b" (tunnels nested deeper not decoded)");
    }
}

fn write_crc(out: &mut Vec<u8>, name: &str, check: Option<CrcCheck>, digits: usize) {
    let Some(check) = check else { return };
    let _ = match (check.status, check.stored, check.computed) {
        (CrcStatus::Ok, ..) => Ok(()),
        (CrcStatus::Bad, Some(stored), Some(computed)) => write!(
            out,
            " {name} BAD (stored 0x{stored:0digits$x}, computed 0x{computed:0digits$x})"
        ),
        (status, ..) => write!(out, " {name} {}", status.name()),
    };
}

/// An RNR back-off as the specification's table prints it: milliseconds with two decimals.
struct RnrDelay(u32);

impl std::fmt::Display for RnrDelay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:02} ms", self.0 / 1000, self.0 % 1000 / 10)
    }
}
