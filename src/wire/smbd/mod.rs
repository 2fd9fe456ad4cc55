//! SMB Direct (MS-SMBD): the SMB2 transport over RDMA. An RC SEND carries a negotiate
//! request or response, or a data transfer message whose data is (a fragment of) an SMB2
//! message (MS-SMB2); SMB2 READ and WRITE may name the client's buffers by RDMA buffer
//! descriptors, which the server then moves with RDMA WRITE and READ.
//!
//! Everything here is little-endian, as Windows lays it out.

pub mod data;
pub mod negotiate;
pub mod nt_status;
pub mod rw;
pub mod smb2;

/// The port MS-SMBD 2.1 names for SMB Direct, which rdma_cm puts in the service ID of a
/// REQ for an SMB Direct connection.
pub const SMBD_PORT: u16 = 5445;

/// SMB Direct protocol version 1.0, the only one MS-SMBD defines (0x0100).
pub const VERSION_1: u16 = 0x0100;
