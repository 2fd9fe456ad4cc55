//! Packet selection: `-Y EXPR`, `--qp` and `--kind`, compiled once before reading.

mod expr;
mod lex;
mod literal;
mod names;
mod parse;
#[cfg(test)]
mod tests;
pub mod time;
mod tokens;
mod wireshark;

/// A field by the name a filter or `-e` gives: rdmadump's or Wireshark's.
pub use names::{find as find_field, unknown as unknown_field};
pub use parse::{FilterError, MAX_DEPTH};

use expr::Expr;

use crate::dissect::{Kind, Packet};
use crate::wire::opcode::CNP;

/// What `--kind` selects: a kind as the JSON `kind` key names it, or CNPs, which keep
/// `roce_v2` or `roce_v1` as their kind and are told apart by BTH opcode 0x81.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindSelection {
    Kind(Kind),
    Cnp,
}

impl KindSelection {
    pub const ALL: [KindSelection; Kind::ALL.len() + 1] = {
        let mut out = [KindSelection::Cnp; Kind::ALL.len() + 1];
        let mut i = 0;
        while i < Kind::ALL.len() {
            out[i] = KindSelection::Kind(Kind::ALL[i]);
            i += 1;
        }
        out
    };

    pub fn name(self) -> &'static str {
        match self {
            KindSelection::Kind(kind) => kind.name(),
            KindSelection::Cnp => "cnp",
        }
    }

    #[inline]
    fn matches(self, pkt: &Packet<'_>) -> bool {
        match self {
            KindSelection::Kind(kind) => pkt.kind == kind,
            KindSelection::Cnp => pkt.bth.is_some_and(|b| b.opcode() == CNP),
        }
    }
}

#[derive(Debug, Default)]
pub struct PacketFilter {
    expr: Option<Expr>,
    qp: Option<u32>,
    kind: Option<KindSelection>,
}

impl PacketFilter {
    /// Compiles a selection: an `-Y` expression, a destination QP and a frame kind, each
    /// optional; a packet must satisfy all that are given.
    pub fn new(
        expr: Option<&str>,
        qp: Option<u32>,
        kind: Option<KindSelection>,
    ) -> Result<Self, FilterError> {
        Ok(PacketFilter {
            expr: expr.map(parse::parse).transpose()?,
            qp,
            kind,
        })
    }

    /// Parses a filter expression alone; for tests and tools.
    pub fn from_expr(text: &str) -> Result<Self, FilterError> {
        Ok(PacketFilter {
            expr: Some(parse::parse(text)?),
            ..PacketFilter::default()
        })
    }

    #[inline]
    pub fn matches(&self, pkt: &Packet<'_>) -> bool {
        if let Some(qp) = self.qp
            && pkt.bth.is_none_or(|b| b.dest_qp() != qp)
        {
            return false;
        }
        if let Some(kind) = self.kind
            && !kind.matches(pkt)
        {
            return false;
        }
        self.expr.as_ref().is_none_or(|e| expr::eval(e, pkt))
    }
}
