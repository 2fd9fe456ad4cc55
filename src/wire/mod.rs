//! Typed, zero-copy views over protocol headers.
//!
//! Every header is a `Copy` view holding a reference to a fixed-size array. Each file states
//! its header's field offsets once, in a private `mod field`, and derives the header's
//! length from the last field. The length is checked once, in `new_checked`; after that the
//! accessors index a `[u8; N]` with those constants, so the compiler proves they cannot
//! panic and emits no bounds checks.
//!
//! A header with a length field checks it in its own `check_len`, against the room its
//! enclosing layer leaves, and names the field's offset in the error, so each length is
//! validated in one place whichever path through the frame reaches it.

pub mod aeth;
pub mod arp;
pub mod atomic_ack_eth;
pub mod atomic_eth;
pub mod bth;
pub mod deth;
pub mod erspan;
pub mod ethernet;
pub mod gre;
pub mod grh;
pub mod icmp;
pub mod ieth;
pub mod immdt;
pub mod ipoib;
pub mod ipv4;
pub mod ipv6;
pub mod iser;
pub mod lrh;
pub mod mac_control;
pub mod mad;
pub mod nvme;
pub mod opcode;
pub mod rdeth;
pub mod reth;
pub mod rpcrdma;
pub mod smbd;
pub mod tcp;
pub mod udp;
pub mod vxlan;
pub mod xrceth;

use std::fmt;

/// The protocol layer at which decoding stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Erf,
    Sll,
    Ethernet,
    Vlan,
    Ipv4,
    Ipv6,
    Udp,
    Lrh,
    Grh,
    Bth,
    Reth,
    Aeth,
    Deth,
    Rdeth,
    ImmDt,
    Ieth,
    AtomicEth,
    AtomicAckEth,
    XrcEth,
    Feth,
    Cnp,
    Payload,
    Icrc,
    Vcrc,
    MacControl,
    Mad,
    Smp,
    Sa,
    Perf,
    Cm,
    Gre,
    Erspan,
    Vxlan,
    Ipoib,
    Arp,
    Tcp,
    Icmp,
    Nvme,
    RpcRdma,
    Rpc,
    Iser,
    Iscsi,
    SmbDirect,
    Smb2,
}

impl Layer {
    pub fn name(self) -> &'static str {
        match self {
            Layer::Erf => "erf",
            Layer::Sll => "sll",
            Layer::Ethernet => "eth",
            Layer::Vlan => "vlan",
            Layer::Ipv4 => "ipv4",
            Layer::Ipv6 => "ipv6",
            Layer::Udp => "udp",
            Layer::Lrh => "lrh",
            Layer::Grh => "grh",
            Layer::Bth => "bth",
            Layer::Reth => "reth",
            Layer::Aeth => "aeth",
            Layer::Deth => "deth",
            Layer::Rdeth => "rdeth",
            Layer::ImmDt => "immdt",
            Layer::Ieth => "ieth",
            Layer::AtomicEth => "atomic_eth",
            Layer::AtomicAckEth => "atomic_ack_eth",
            Layer::XrcEth => "xrceth",
            Layer::Feth => "feth",
            Layer::Cnp => "cnp",
            Layer::Payload => "payload",
            Layer::Icrc => "icrc",
            Layer::Vcrc => "vcrc",
            Layer::MacControl => "mac_control",
            Layer::Mad => "mad",
            Layer::Smp => "smp",
            Layer::Sa => "sa",
            Layer::Perf => "perf",
            Layer::Cm => "cm",
            Layer::Gre => "gre",
            Layer::Erspan => "erspan",
            Layer::Vxlan => "vxlan",
            Layer::Ipoib => "ipoib",
            Layer::Arp => "arp",
            Layer::Tcp => "tcp",
            Layer::Icmp => "icmp",
            Layer::Nvme => "nvme",
            Layer::RpcRdma => "rpcrdma",
            Layer::Rpc => "rpc",
            Layer::Iser => "iser",
            Layer::Iscsi => "iscsi",
            Layer::SmbDirect => "smbd",
            Layer::Smb2 => "smb2",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where and why a header could not be decoded. `offset` counts bytes from the start of the
/// frame as the capture record holds it.
///
/// Offsets and lengths are 32 bits: a record holds at most `capture::MAX_RECORD` bytes and
/// no length field is wider. A `Packet` carries two of these, so 24 bytes instead of 40
/// keep it half a cache line smaller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeError {
    pub layer: Layer,
    pub offset: u32,
    pub problem: Problem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// The header needs `required` bytes but only `available` are there.
    Short { required: u32, available: u32 },
    /// A field holds a value the protocol does not allow; the text names the field.
    Invalid(&'static str),
}

/// A length or offset as 32 bits; a larger one (none is) reads as the largest.
fn narrow(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

impl DecodeError {
    pub fn short(layer: Layer, offset: usize, required: usize, available: usize) -> Self {
        DecodeError {
            layer,
            offset: narrow(offset),
            problem: Problem::Short {
                required: narrow(required),
                available: narrow(available),
            },
        }
    }

    pub fn invalid(layer: Layer, offset: usize, why: &'static str) -> Self {
        DecodeError {
            layer,
            offset: narrow(offset),
            problem: Problem::Invalid(why),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problem {
            Problem::Short {
                required,
                available,
            } => write!(
                f,
                "{} at offset {}: needs {} bytes, {} present",
                self.layer, self.offset, required, available
            ),
            Problem::Invalid(why) => write!(f, "{} at offset {}: {}", self.layer, self.offset, why),
        }
    }
}

/// A decode error is a leaf: it says where the bytes went wrong, and nothing caused it.
impl std::error::Error for DecodeError {}

/// Splits off the first `N` bytes as a fixed-size array, or says how short the buffer is.
#[inline]
pub fn take<const N: usize>(
    buf: &[u8],
    layer: Layer,
    offset: usize,
) -> Result<&[u8; N], DecodeError> {
    match buf.first_chunk::<N>() {
        Some(bytes) => Ok(bytes),
        None => Err(DecodeError::short(layer, offset, N, buf.len())),
    }
}

/// Where a field lies in its header: the byte range the standard draws it over. Each header
/// file keeps its fields in a private `mod field`, and the header's length follows from the
/// last of them.
pub(crate) type Field = std::ops::Range<usize>;

/// Declares a header view: a `Copy` struct over `&[u8; LEN]` with `new_checked`,
/// `new_unchecked`-free construction and access to the raw bytes.
macro_rules! header_view {
    ($(#[$doc:meta])* $name:ident, $len:expr, $layer:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<'a> {
            bytes: &'a [u8; $len],
        }

        impl<'a> $name<'a> {
            pub const LEN: usize = $len;

            /// Checks the length once; `offset` only labels an error.
            #[inline]
            pub fn new_checked(buf: &'a [u8], offset: usize) -> Result<Self, $crate::wire::DecodeError> {
                $crate::wire::take::<{ $len }>(buf, $layer, offset).map(|bytes| $name { bytes })
            }

            #[inline]
            pub fn bytes(&self) -> &'a [u8; $len] {
                self.bytes
            }
        }

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({:02x?})", stringify!($name), self.bytes)
            }
        }
    };
}
pub(crate) use header_view;

/// Reads the field `$field`, a [`Field`] constant, out of a checked view's byte array with
/// one of the readers below (`u16_at`, `u24_at`, `u32_at`, `u64_at`, `array_at`, `sub_at`):
/// `get!(u16_at, self.bytes, field::LENGTH)`. The range reaches the reader as constants, so
/// a field of the wrong width or past the array is a compile error and the indexing below
/// compiles to plain loads.
macro_rules! get {
    (array_at, $bytes:expr, $field:expr) => {
        $crate::wire::array_at::<{ $field.start }, { $field.end }, _, _>($bytes)
    };
    (sub_at, $bytes:expr, $field:expr) => {
        $crate::wire::sub_at::<{ $field.start }, { $field.end }, _, _>($bytes)
    };
    ($read:ident, $bytes:expr, $field:expr) => {
        $crate::wire::$read::<{ $field.start }, { $field.end }, _>($bytes)
    };
}
pub(crate) use get;

/// Reads the little-endian field `$field` of a checked view's byte array, for the headers
/// above RDMA that Windows and NVMe lay out little-endian (SMB Direct, SMB2, NVMe).
macro_rules! le {
    (u16, $bytes:expr, $field:expr) => {
        u16::from_le_bytes(*$crate::wire::get!(sub_at, $bytes, $field))
    };
    (u32, $bytes:expr, $field:expr) => {
        u32::from_le_bytes(*$crate::wire::get!(sub_at, $bytes, $field))
    };
    (u64, $bytes:expr, $field:expr) => {
        u64::from_le_bytes(*$crate::wire::get!(sub_at, $bytes, $field))
    };
}
pub(crate) use le;

// Field readers over the constant range `S..E`. The `const` assertion turns a field of the
// wrong width or out of range into a compile error, so the index checks below are provably
// dead and the optimiser drops them. Single bytes need no reader: a constant index into the
// array is checked at compile time already.

#[inline]
pub(crate) fn u16_at<const S: usize, const E: usize, const N: usize>(b: &[u8; N]) -> u16 {
    const { assert!(S + 2 == E && E <= N) };
    u16::from_be_bytes([b[S], b[S + 1]])
}

#[inline]
pub(crate) fn u24_at<const S: usize, const E: usize, const N: usize>(b: &[u8; N]) -> u32 {
    const { assert!(S + 3 == E && E <= N) };
    u32::from_be_bytes([0, b[S], b[S + 1], b[S + 2]])
}

#[inline]
pub(crate) fn u32_at<const S: usize, const E: usize, const N: usize>(b: &[u8; N]) -> u32 {
    const { assert!(S + 4 == E && E <= N) };
    u32::from_be_bytes([b[S], b[S + 1], b[S + 2], b[S + 3]])
}

#[inline]
pub(crate) fn u64_at<const S: usize, const E: usize, const N: usize>(b: &[u8; N]) -> u64 {
    const { assert!(S + 8 == E && E <= N) };
    u64::from_be_bytes([
        b[S],
        b[S + 1],
        b[S + 2],
        b[S + 3],
        b[S + 4],
        b[S + 5],
        b[S + 6],
        b[S + 7],
    ])
}

#[inline]
pub(crate) fn array_at<const S: usize, const E: usize, const N: usize, const L: usize>(
    b: &[u8; N],
) -> [u8; L] {
    const { assert!(S + L == E && E <= N) };
    let mut out = [0u8; L];
    out.copy_from_slice(&b[S..E]);
    out
}

/// The field's bytes in place, as an array reference: for blocks a view hands on whole.
#[inline]
pub(crate) fn sub_at<const S: usize, const E: usize, const N: usize, const L: usize>(
    b: &[u8; N],
) -> &[u8; L] {
    const { assert!(S + L == E && E <= N) };
    match b[S..].first_chunk::<L>() {
        Some(part) => part,
        // The const assertion above rules this out at compile time.
        None => unreachable!(),
    }
}
