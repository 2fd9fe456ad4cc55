//! IP over InfiniBand: the IPoIB header in the payload of an InfiniBand SEND (datagram
//! mode on UD, connected mode on RC), and the LINKTYPE_IPOIB frames of a Linux IPoIB
//! interface.

use super::bounds::{Bytes, Stop};
use super::parse::{array, header, run};
use super::state::IpoibQps;
use super::{DecodeOptions, Packet, ip, upper};
use crate::wire::Layer;
use crate::wire::bth::Bth;
use crate::wire::ethernet::ethertype;
use crate::wire::ipoib::IpoibHeader;
use crate::wire::mad::MAX_MANAGEMENT_QP;
use crate::wire::opcode;

const ICRC_LEN: usize = 4;
/// Before the IPoIB header, LINKTYPE_IPOIB frames carry 20 bytes the Linux driver leaves
/// unused and the 20-byte destination hardware address (flags and QPN, then the GID).
const LINKTYPE_IPOIB_PSEUDO_LEN: usize = 40;
/// ARP hardware type of InfiniBand (RFC 4391 section 8).
const ARP_HRD_INFINIBAND: u16 = 32;
/// The IPoIB hardware address: 4 bytes of flags and QPN, then the 16-byte GID.
const IPOIB_HW_LEN: u8 = 20;

/// A LINKTYPE_IPOIB (242) frame.
pub fn link<'a>(pkt: &mut Packet<'a>, bytes: Bytes<'a>, opts: &DecodeOptions) -> Result<(), Stop> {
    let (rest, _) = run(array::<LINKTYPE_IPOIB_PSEUDO_LEN>(Layer::Ipoib), bytes)?;
    encapsulated(pkt, rest, opts)
}

/// The IPoIB header at the cursor and what its EtherType announces.
fn encapsulated<'a>(
    pkt: &mut Packet<'a>,
    bytes: Bytes<'a>,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let (rest, h) = run(header::<IpoibHeader>(Layer::Ipoib), bytes)?;
    pkt.ipoib = Some(h);
    match h.ethertype() {
        ethertype::IPV4 => ip::ipv4(pkt, rest, opts),
        ethertype::IPV6 => ip::ipv6(pkt, rest, opts),
        ethertype::ARP => upper::arp(pkt, rest),
        _ => Ok(()),
    }
}

/// After an InfiniBand transport packet was decoded up to its payload: decodes the payload
/// as IPoIB when the packet is a SEND that carries it. `packet` ends where the ICRC ends.
#[inline]
pub fn after_transport<'a>(
    pkt: &mut Packet<'a>,
    packet: Bytes<'a>,
    decoded: Result<(), Stop>,
    qps: Option<&IpoibQps>,
    opts: &DecodeOptions,
) -> Result<(), Stop> {
    let (Some(bth), Some(payload_len)) = (pkt.bth, pkt.payload_len) else {
        return decoded;
    };
    // A packet cut inside its headers has no payload to look at; one cut inside the
    // payload may still hold the IPoIB and IP headers.
    if let Err(Stop::Malformed(_)) = decoded {
        return decoded;
    }
    let Some(how) = carries_ipoib(&bth, pkt.payload, qps) else {
        return decoded;
    };
    let payload_end = packet.end() - ICRC_LEN - usize::from(bth.pad_count());
    let start = payload_end - payload_len as usize;
    let payload = packet
        .limit(payload_end, Layer::Ipoib, start, "payload ends early")?
        .seek(start);
    match (encapsulated(pkt, payload, opts), how) {
        // Only a guess made this payload IPoIB: a payload that then contradicts itself was
        // not IPoIB after all, and the InfiniBand packet around it is sound.
        (Err(Stop::Malformed(_)), Carrier::Guessed) => {
            pkt.ipoib = None;
            pkt.ip = None;
            pkt.udp = None;
            pkt.upper = None;
            decoded
        }
        (inner, _) => inner.and(decoded),
    }
}

/// Why a SEND's payload is taken as IPoIB.
#[derive(Clone, Copy)]
enum Carrier {
    /// A UD payload that looks like IPoIB.
    Guessed,
    /// An RC QP a CM exchange named.
    Learned,
}

/// Whether a SEND's payload is IPoIB: on a UD QP other than QP0/QP1 when the payload looks
/// like it, as tshark guesses too; on an RC QP when a CM exchange for the IPoIB-CM service
/// (RFC 4755) named the QP. Multi-packet RC messages are left alone: only their first
/// packet holds the headers, and the IP lengths would overrun it.
#[inline]
fn carries_ipoib(bth: &Bth<'_>, payload: &[u8], qps: Option<&IpoibQps>) -> Option<Carrier> {
    match bth.opcode() {
        // QP0 and QP1 take management datagrams, never IPoIB.
        opcode::UD_SEND_ONLY | opcode::UD_SEND_ONLY_WITH_IMMEDIATE => {
            (bth.dest_qp() > MAX_MANAGEMENT_QP && looks_like_ipoib(payload))
                .then_some(Carrier::Guessed)
        }
        opcode::RC_SEND_ONLY | opcode::RC_SEND_ONLY_WITH_IMMEDIATE => qps
            .is_some_and(|qps| qps.contains(bth.dest_qp()))
            .then_some(Carrier::Learned),
        _ => None,
    }
}

/// tshark takes a UD payload as IPoIB when the two bytes after a known EtherType (the
/// reserved field) are zero. That alone would take any payload starting `08 00 00 00` for
/// IPv4, so the header that follows must also agree with itself and fit the payload.
pub fn looks_like_ipoib(payload: &[u8]) -> bool {
    let [t0, t1, 0, 0, inner @ ..] = payload else {
        return false;
    };
    match u16::from_be_bytes([*t0, *t1]) {
        ethertype::IPV4 => match inner {
            [vihl, _, l0, l1, ..] => {
                let total = usize::from(u16::from_be_bytes([*l0, *l1]));
                vihl >> 4 == 4 && vihl & 0xf >= 5 && total >= 20 && total <= inner.len()
            }
            _ => false,
        },
        ethertype::IPV6 => match inner {
            [v, _, _, _, l0, l1, ..] => {
                let total = 40 + usize::from(u16::from_be_bytes([*l0, *l1]));
                v >> 4 == 6 && total <= inner.len()
            }
            _ => false,
        },
        ethertype::ARP => match inner {
            [h0, h1, p0, p1, hln, pln, ..] => {
                u16::from_be_bytes([*h0, *h1]) == ARP_HRD_INFINIBAND
                    && u16::from_be_bytes([*p0, *p1]) == ethertype::IPV4
                    && *hln == IPOIB_HW_LEN
                    && *pln == 4
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heuristic_wants_a_consistent_inner_header() {
        // IPoIB IPv4, IHL 5, total length 20: exactly fits.
        let mut p = vec![0x08, 0x00, 0, 0, 0x45, 0, 0, 20];
        p.resize(24, 0);
        assert!(looks_like_ipoib(&p));
        p[7] = 21;
        assert!(!looks_like_ipoib(&p), "total length past the payload");
        p[7] = 20;
        p[2] = 1;
        assert!(!looks_like_ipoib(&p), "reserved bytes not zero");
        let arp = [0x08, 0x06, 0, 0, 0, 32, 0x08, 0, 20, 4, 0, 1];
        assert!(looks_like_ipoib(&arp));
        assert!(!looks_like_ipoib(&arp[..9]));
        assert!(!looks_like_ipoib(&[0x88, 0x08, 0, 0, 0, 1]));
    }
}
