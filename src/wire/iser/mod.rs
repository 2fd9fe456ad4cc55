//! iSER, iSCSI Extensions for RDMA (RFC 7145): the 28-byte iSER header an RC SEND carries
//! in front of an iSCSI PDU, naming the initiator's buffers the target moves data to and
//! from with RDMA WRITE and READ; the iSCSI Basic Header Segment after it (RFC 7143); and
//! the SCSI CDB a SCSI Command carries (SBC-3, SPC-4), with the names a storage engineer
//! reads.
//!
//! iSER and iSCSI are big-endian, like the transport below them.

pub mod bhs;
pub mod cdb;
pub mod header;

/// The port IANA assigned to iSCSI, which rdma_cm puts in the service ID of a REQ for an
/// iSER connection.
pub const ISER_PORT: u16 = 3260;
