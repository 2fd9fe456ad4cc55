//! Packet selection: `-Y EXPR`, `--qp` and `--kind`, compiled once before reading.

mod fields;
mod parse;
pub mod time;

/// The field catalogue, for tools that print fields by name (`-T fields -e`, `rdmadump fields`).
pub use fields::{FIELDS, Field, Type, Value, find as find_field};
pub use parse::FilterError;

use parse::{Expr, Op};

use crate::dissect::{Kind, Packet};

#[derive(Debug, Default)]
pub struct PacketFilter {
    expr: Option<Expr>,
    qp: Option<u32>,
    kind: Option<Kind>,
}

impl PacketFilter {
    /// Compiles a selection: an `-Y` expression, a destination QP and a frame kind, each
    /// optional; a packet must satisfy all that are given.
    pub fn new(
        expr: Option<&str>,
        qp: Option<u32>,
        kind: Option<Kind>,
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
            && pkt.kind != kind
        {
            return false;
        }
        self.expr.as_ref().is_none_or(|e| eval(e, pkt))
    }
}

fn eval(expr: &Expr, pkt: &Packet<'_>) -> bool {
    match expr {
        Expr::Not(inner) => !operand(inner, pkt),
        // Operand lists, not nested pairs, so a long chain is a loop here; what recursion
        // is left follows parentheses and `!`, which the parser limits to `MAX_DEPTH`.
        Expr::And(all) => all.iter().all(|e| operand(e, pkt)),
        Expr::Or(any) => any.iter().any(|e| operand(e, pkt)),
        leaf => operand(leaf, pkt),
    }
}

/// Tests a leaf in place, and calls `eval` only for the rest: most operands are leaves,
/// and a call for each one made evaluation slower than the binary tree the operand
/// lists replaced (measured with cachegrind on `read -Y`).
#[inline(always)]
fn operand(expr: &Expr, pkt: &Packet<'_>) -> bool {
    match expr {
        Expr::Test(field) => match (field.get)(pkt) {
            Some(Value::Bool(b)) => b,
            Some(_) => true,
            None => false,
        },
        // As in Wireshark, a comparison with a field the packet lacks is false, even `!=`.
        Expr::Compare(field, op, want) => match field.each {
            None => (field.get)(pkt).is_some_and(|got| compare(got, *op, *want)),
            Some(element) => (0..fields::MAX_ELEMENTS)
                .any(|i| element(pkt, i).is_some_and(|got| compare(got, *op, *want))),
        },
        Expr::CompareText(field, op, want) => match (field.get)(pkt) {
            Some(Value::Str(got)) => (got == want.as_str()) == (*op == Op::Eq),
            _ => false,
        },
        Expr::Not(_) | Expr::And(_) | Expr::Or(_) => eval(expr, pkt),
    }
}

// Once `eval` tests leaves in place the compiler stops inlining this on its own, and the
// call is a measurable share of evaluating a comparison.
#[inline(always)]
fn compare(got: Value, op: Op, want: Value) -> bool {
    match (got, want) {
        (Value::Int(a), Value::Int(b)) => match op {
            Op::Eq => a == b,
            Op::Ne => a != b,
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
        },
        (a, b) => match op {
            Op::Eq => a == b,
            Op::Ne => a != b,
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_with_the_column() {
        let err = PacketFilter::from_expr("bth.dest_qp == 0xb01 && bth.bogus == 1").unwrap_err();
        assert_eq!(err.column, 25);
        assert!(err.message.contains("bth.bogus"));
        let err = PacketFilter::from_expr("icrc.status == \"broken\"").unwrap_err();
        assert_eq!(err.column, 16);
        let err = PacketFilter::from_expr("(kind == \"pfc\"").unwrap_err();
        assert_eq!(err.column, 15);
        let err = PacketFilter::from_expr("ip.ecn == ").unwrap_err();
        assert_eq!(err.column, 11);
        assert!(PacketFilter::from_expr("ip.src < \"10.0.0.1\"").is_err());
    }

    #[test]
    fn accepts_the_documented_forms() {
        for text in [
            "bth.dest_qp == 0xb01",
            "icrc.status == \"bad\"",
            "kind == \"pfc\"",
            "aeth.kind == \"nak\"",
            "ip.ecn == 3",
            "!(bth.psn >= 10 || bth.psn < 2) && bth.fecn",
            "bth.becn == true && ip.src == \"10.0.0.1\" && eth.src != \"02:00:00:00:00:01\"",
            "grh.dgid == \"ff12:401b:ffff::ffff:ffff\"",
        ] {
            assert!(PacketFilter::from_expr(text).is_ok(), "{text}");
        }
    }
}
