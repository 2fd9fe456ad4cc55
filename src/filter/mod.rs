//! Packet selection: `-Y EXPR`, `--qp` and `--kind`, compiled once before reading.

mod expr;
mod lex;
mod literal;
mod names;
mod parse;
mod set;
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

/// A filter's text as the command line gives it: the expression, or with `-Y @FILE` and
/// `--filter-file FILE` the file's content, since an argument is capped at 128 KiB and a
/// generated filter can be longer. Its errors then name the file.
#[derive(Debug, Clone)]
pub struct FilterText {
    pub text: String,
    pub file: Option<String>,
}

impl FilterText {
    /// `-Y`: an expression, or `@FILE`.
    pub fn argument(arg: &str) -> Result<FilterText, String> {
        match arg.strip_prefix('@') {
            Some(file) => FilterText::file(file),
            None => Ok(FilterText {
                text: arg.to_string(),
                file: None,
            }),
        }
    }

    /// `--filter-file`: the filter in a file.
    pub fn file(path: &str) -> Result<FilterText, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the filter file {path}: {e}"))?;
        Ok(FilterText {
            text,
            file: Some(path.to_string()),
        })
    }

    /// Compiles the text, as [`PacketFilter::new`] does; an error names the file.
    pub fn compile(
        text: Option<&FilterText>,
        qp: Option<u32>,
        kind: Option<KindSelection>,
    ) -> Result<PacketFilter, FilterError> {
        PacketFilter::new(text.map(|t| t.text.as_str()), qp, kind).map_err(|e| {
            match text.and_then(|t| t.file.as_deref()) {
                Some(file) => e.in_file(file),
                None => e,
            }
        })
    }
}

impl std::ops::Deref for FilterText {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
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
