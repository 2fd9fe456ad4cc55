//! The nom layer: parsers over [`Bytes`] that take a header's bytes and yield its `wire`
//! view, failing with a [`Stop`] that says truncated or malformed, which layer, and where.
//!
//! Each is generic over nothing but the view, returns `impl Parser`, and inlines: a header
//! parse compiles to one bounds comparison and a pointer, as the hand-written slicing did.

use nom::error::{ErrorKind, ParseError};
use nom::{IResult, Input, Parser};

use super::bounds::{Bytes, Stop};
use crate::wire::aeth::Aeth;
use crate::wire::arp::ArpHeader;
use crate::wire::atomic_ack_eth::AtomicAckEth;
use crate::wire::atomic_eth::AtomicEth;
use crate::wire::bth::Bth;
use crate::wire::deth::Deth;
use crate::wire::erspan::{ErspanII, ErspanIII, ErspanPlatform};
use crate::wire::ethernet::{EthernetHeader, VlanTag};
use crate::wire::gre::GreHeader;
use crate::wire::grh::Grh;
use crate::wire::icmp::IcmpHeader;
use crate::wire::ieth::Ieth;
use crate::wire::immdt::ImmDt;
use crate::wire::ipoib::IpoibHeader;
use crate::wire::ipv4::Ipv4Header;
use crate::wire::ipv6::Ipv6Header;
use crate::wire::lrh::Lrh;
use crate::wire::mac_control::{MacControlOpcode, Pause, Pfc};
use crate::wire::rdeth::Rdeth;
use crate::wire::reth::Reth;
use crate::wire::tcp::TcpHeader;
use crate::wire::udp::UdpHeader;
use crate::wire::vxlan::VxlanHeader;
use crate::wire::xrceth::XrcEth;
use crate::wire::{DecodeError, Layer};

pub type PResult<'a, O> = IResult<Bytes<'a>, O, Stop>;

/// Only nom's own combinators call this; the parsers below build their `Stop` directly,
/// with the header's length and start offset, which an `ErrorKind` cannot carry.
impl<'a> ParseError<Bytes<'a>> for Stop {
    fn from_error_kind(input: Bytes<'a>, kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::Eof => input.short(input.input_len() + 1, input.layer()),
            _ => Stop::Malformed(DecodeError::invalid(
                input.layer(),
                input.at(),
                "bytes do not match the layer's format",
            )),
        }
    }

    fn append(_: Bytes<'a>, _: ErrorKind, other: Self) -> Self {
        // The innermost error already names the layer and offset; outer context adds nothing.
        other
    }
}

/// A `wire` header view: a fixed length and a constructor that checks it.
pub trait View<'a>: Sized {
    const LEN: usize;
    fn view(buf: &'a [u8], offset: usize) -> Result<Self, DecodeError>;
}

macro_rules! views {
    ($($view:ident),* $(,)?) => {
        $(impl<'a> View<'a> for $view<'a> {
            const LEN: usize = $view::LEN;
            #[inline]
            fn view(buf: &'a [u8], offset: usize) -> Result<Self, DecodeError> {
                $view::new_checked(buf, offset)
            }
        })*
    };
}

views!(
    EthernetHeader,
    VlanTag,
    MacControlOpcode,
    Pfc,
    Pause,
    Ipv4Header,
    Ipv6Header,
    UdpHeader,
    Lrh,
    Grh,
    Bth,
    Rdeth,
    Deth,
    XrcEth,
    Reth,
    AtomicEth,
    Aeth,
    AtomicAckEth,
    ImmDt,
    Ieth,
    GreHeader,
    ErspanII,
    ErspanIII,
    ErspanPlatform,
    VxlanHeader,
    IpoibHeader,
    ArpHeader,
    TcpHeader,
    IcmpHeader,
);

/// The header `H` of `layer` at the cursor.
#[inline]
pub fn header<'a, H: View<'a>>(layer: Layer) -> impl Parser<Bytes<'a>, Output = H, Error = Stop> {
    move |input: Bytes<'a>| -> PResult<'a, H> {
        let raw = input.need(H::LEN, layer).map_err(nom::Err::Error)?;
        let view = H::view(raw, input.at()).map_err(|e| nom::Err::Error(Stop::Malformed(e)))?;
        Ok((input.within(layer).skip(H::LEN), view))
    }
}

/// `N` bytes of `layer` at the cursor, for headers without a `wire` view.
#[inline]
pub fn array<'a, const N: usize>(
    layer: Layer,
) -> impl Parser<Bytes<'a>, Output = &'a [u8; N], Error = Stop> {
    move |input: Bytes<'a>| -> PResult<'a, &'a [u8; N]> {
        let raw = input.need(N, layer).map_err(nom::Err::Error)?;
        match raw.first_chunk::<N>() {
            Some(bytes) => Ok((input.within(layer).skip(N), bytes)),
            None => Err(nom::Err::Error(input.short(N, layer))),
        }
    }
}

/// `len` bytes of `layer` at the cursor, for lengths read from the packet.
#[inline]
pub fn take<'a>(
    len: usize,
    layer: Layer,
) -> impl Parser<Bytes<'a>, Output = &'a [u8], Error = Stop> {
    move |input: Bytes<'a>| -> PResult<'a, &'a [u8]> {
        let raw = input.need(len, layer).map_err(nom::Err::Error)?;
        Ok((input.within(layer).skip(len), raw))
    }
}

/// Runs `parser` on `input` in nom's complete mode: the capture holds all there is, so a
/// short input is an answer (truncated or malformed), never a request for more.
#[inline]
pub fn run<'a, O>(
    mut parser: impl Parser<Bytes<'a>, Output = O, Error = Stop>,
    input: Bytes<'a>,
) -> Result<(Bytes<'a>, O), Stop> {
    parser.parse_complete(input).map_err(|e| match e {
        nom::Err::Error(stop) | nom::Err::Failure(stop) => stop,
        // Complete-mode combinators do not ask for more; should one, the bytes it wanted
        // lie past the capture.
        nom::Err::Incomplete(needed) => {
            let more = match needed {
                nom::Needed::Size(n) => n.get(),
                nom::Needed::Unknown => 1,
            };
            input.short(input.input_len() + more, input.layer())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{Record, linktype};
    use crate::dissect::{DecodeOptions, dissect};
    use crate::wire::Problem;

    fn short(layer: Layer, offset: usize, required: usize, available: usize) -> DecodeError {
        DecodeError::short(layer, offset, required, available)
    }

    #[test]
    fn a_short_header_is_truncated_before_the_wire_end_and_malformed_after() {
        let data = [0u8; 20];
        // 12 BTH bytes at frame offset 8, all captured: the view and the rest after it.
        let (rest, bth) = run(
            header::<Bth>(Layer::Bth),
            Bytes::new(&data, 40, Layer::Udp).seek(8),
        )
        .unwrap();
        assert_eq!((rest.at(), bth.bytes().len()), (20, 12));
        // Captured 20 of a 40-byte frame: the BTH at 12 was cut by the snaplen.
        let cut = Bytes::new(&data, 40, Layer::Udp).seek(12);
        assert_eq!(
            run(header::<Bth>(Layer::Bth), cut).unwrap_err(),
            Stop::Truncated(short(Layer::Bth, 12, 12, 8))
        );
        // The same bytes when the frame was only 20 long: the BTH cannot fit on the wire.
        let whole = Bytes::new(&data, 20, Layer::Udp).seek(12);
        assert_eq!(
            run(header::<Bth>(Layer::Bth), whole).unwrap_err(),
            Stop::Malformed(short(Layer::Bth, 12, 12, 8))
        );
    }

    #[test]
    fn nom_combinators_over_bytes_name_the_layer_and_classify_too() {
        let data = [0u8; 6];
        let input = run(
            array::<2>(Layer::Ipv6),
            Bytes::new(&data, 10, Layer::Ethernet),
        )
        .unwrap()
        .0;
        // nom's `take` knows nothing of wire ends; the error it raises still says which.
        let mut take8 = nom::bytes::complete::take::<_, _, Stop>(8usize);
        assert_eq!(
            take8.parse_complete(input).unwrap_err(),
            nom::Err::Error(Stop::Truncated(short(Layer::Ipv6, 2, 5, 4)))
        );
        let (rest, four) = nom::bytes::complete::take::<_, _, Stop>(4usize)
            .parse_complete(input)
            .unwrap();
        assert_eq!((four.at(), four.end(), rest.at()), (2, 6, 6));
    }

    /// Ethernet, IPv4 (total length `ip_len`), UDP to 4791 (length `udp_len`), then `tail`.
    fn roce_v2(ip_len: u16, udp_len: u16, tail: &[u8]) -> Vec<u8> {
        let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00];
        let [ih, il] = ip_len.to_be_bytes();
        f.extend([
            0x45, 0, ih, il, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ]);
        let [uh, ul] = udp_len.to_be_bytes();
        f.extend([0xc0, 0x00, 0x12, 0xb7, uh, ul, 0, 0]);
        f.extend_from_slice(tail);
        f
    }

    fn stops(
        data: &[u8],
        orig_len: usize,
        link: u32,
    ) -> (Option<DecodeError>, Option<DecodeError>) {
        let record = Record {
            data,
            orig_len: orig_len as u32,
            ts_ns: None,
            linktype: link,
            iface: 0,
            offset: 0,
        };
        let pkt = dissect(&record, 1, &DecodeOptions::default());
        (pkt.truncated, pkt.error)
    }

    #[test]
    fn each_layer_boundary_tells_a_snaplen_cut_from_a_length_field_that_lies() {
        // Ethernet: 10 of the 14 header bytes; a 60-byte frame was cut, a 10-byte one is short.
        let eth = [0u8; 10];
        assert_eq!(
            stops(&eth, 60, linktype::ETHERNET),
            (Some(short(Layer::Ethernet, 0, 14, 10)), None)
        );
        assert_eq!(
            stops(&eth, 10, linktype::ETHERNET),
            (None, Some(short(Layer::Ethernet, 0, 14, 10)))
        );

        // UDP at 34: IP total length 28 covers it, but only 4 bytes were captured.
        let frame = roce_v2(28, 8, &[]);
        assert_eq!(
            stops(&frame[..38], 42, linktype::ETHERNET),
            (Some(short(Layer::Udp, 34, 8, 4)), None)
        );
        // IP total length 24 leaves UDP 4 bytes on the wire, whatever was captured.
        let frame = roce_v2(24, 8, &[]);
        assert_eq!(
            stops(&frame, 42, linktype::ETHERNET),
            (None, Some(short(Layer::Udp, 34, 8, 4)))
        );

        // BTH at 42: UDP length 8 + 12 + 4 (ICRC); SEND-only (opcode 4), cut after 6 bytes.
        let bth = [4, 0, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 7, 0xa, 0xb, 0xc, 0xd];
        let frame = roce_v2(20 + 24, 24, &bth);
        assert_eq!(
            stops(&frame[..48], 58, linktype::ETHERNET),
            (Some(short(Layer::Bth, 42, 12, 6)), None)
        );
        assert!(matches!(
            stops(&frame, 58, linktype::ETHERNET),
            (None, None)
        ));

        // RETH at 54: RDMA WRITE-only (opcode 0x0a) whose UDP length leaves no room for it.
        let mut write = bth;
        write[0] = 0x0a;
        let frame = roce_v2(20 + 24, 24, &write);
        let (truncated, error) = stops(&frame, 58, linktype::ETHERNET);
        assert_eq!(truncated, None);
        let error = error.expect("malformed");
        assert_eq!((error.layer, error.offset), (Layer::Reth, 54));
        assert_eq!(
            error.problem,
            Problem::Invalid("header runs past the end of the packet")
        );

        // LRH: native InfiniBand, 5 of its 8 bytes.
        let lrh = [0xf0, 0x02, 0, 1, 0, 9, 0, 2];
        assert_eq!(
            stops(&lrh[..5], 40, linktype::INFINIBAND),
            (Some(short(Layer::Lrh, 0, 8, 5)), None)
        );
        assert_eq!(
            stops(&lrh[..5], 5, linktype::INFINIBAND),
            (None, Some(short(Layer::Lrh, 0, 8, 5)))
        );
    }
}
