//! RPC-over-RDMA version 1 (RFC 8166): the transport header an RC SEND carries in front of
//! an ONC RPC message (RFC 5531), whose chunk lists name the buffers the peer moves with
//! RDMA READ and WRITE; and the RPC call or reply after it, with the NFS names (RFC 1813,
//! RFC 7530, RFC 8881) a storage engineer reads.
//!
//! Everything is XDR: big-endian 32-bit words. Every list is walked within the bytes the
//! frame holds, so no count a peer writes is trusted further than that.

pub mod chunks;
pub mod header;
pub mod nfs;
pub mod rpc;

/// The port IANA assigned to NFS over RDMA (RFC 5666), which rdma_cm puts in the service
/// ID of a REQ for an NFS/RDMA connection.
pub const NFS_RDMA_PORT: u16 = 20049;

/// The XDR word at byte `at` of `bytes`, if the bytes hold it.
#[inline]
pub(crate) fn word(bytes: &[u8], at: usize) -> Option<u32> {
    let end = at.checked_add(4)?;
    let w: &[u8; 4] = bytes.get(at..end)?.try_into().ok()?;
    Some(u32::from_be_bytes(*w))
}

/// An XDR variable-length opaque's size on the wire: its length word and its bytes padded to
/// a multiple of four, or `None` past `u32`.
#[inline]
pub(crate) fn opaque_len(len: u32) -> Option<usize> {
    (len as usize).checked_add(3).map(|n| 4 + (n & !3))
}
