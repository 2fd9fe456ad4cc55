//! Packet selection: `--qp`, `--kind` and, later, `-Y` expressions.

use crate::cli::{InputArgs, KindArg};
use crate::dissect::{Kind, Packet};

#[derive(Debug, Default)]
pub struct PacketFilter {
    qp: Option<u32>,
    kind: Option<Kind>,
}

impl PacketFilter {
    pub fn from_args(args: &InputArgs) -> anyhow::Result<Self> {
        Ok(PacketFilter {
            qp: args.qp.map(|q| q as u32),
            kind: args.kind.map(|k| match k {
                KindArg::RoceV1 => Kind::RoceV1,
                KindArg::RoceV2 => Kind::RoceV2,
                KindArg::Ib => Kind::Ib,
                KindArg::Pfc => Kind::Pfc,
                KindArg::Pause => Kind::Pause,
                KindArg::Other => Kind::Other,
                KindArg::Malformed => Kind::Malformed,
            }),
        })
    }

    pub fn matches(&self, pkt: &Packet<'_>) -> bool {
        if let Some(qp) = self.qp
            && pkt.bth.is_none_or(|b| b.dest_qp() != qp)
        {
            return false;
        }
        if let Some(kind) = self.kind
            && pkt.kind != kind
        {
            return false;
        }
        true
    }
}
