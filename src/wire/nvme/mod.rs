//! NVMe over Fabrics on the RDMA transport (NVMe-oF 1.1, section 7.3; NVMe base 2.0): the
//! capsules an RC SEND carries, the keyed SGL descriptor that names the host buffer the
//! controller reads or writes with RDMA, and the CM private data that sets a queue up.
//!
//! NVMe is little-endian, unlike every header below it: its views read with `le!`.

pub mod cm_private;
pub mod cqe;
pub mod names;
pub mod sgl;
pub mod sqe;

/// The TCP port IANA assigned to NVMe-oF, which rdma_cm puts in the service ID of a REQ
/// for an NVMe-oF queue over RDMA.
pub const NVME_RDMA_PORT: u16 = 4420;

pub(crate) use super::le;
