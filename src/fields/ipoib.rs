//! IP over InfiniBand.

use super::{Field, Parquet, Type, Value};

/// IP over InfiniBand's encapsulation header.
pub(super) const IPOIB: &[Field] = &[int!(
    "ipoib.ethertype",
    "IPoIB encapsulation EtherType",
    |p| p.ipoib.map(|h| h.ethertype())
)];

pub(super) const PRESENT: &[Field] = &[header!("ipoib", "is IP over InfiniBand", |p| p
    .ipoib
    .is_some())];
