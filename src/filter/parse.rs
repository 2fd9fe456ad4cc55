//! The filter language: dotted field names, `== != < <= > >=`, `&& || !`, parentheses,
//! decimal and 0x numbers, double-quoted strings, `true` and `false`. Names and literals
//! are checked against the field table here, before any capture is read.
//!
//! The parser is built from nom combinators working on the text itself. Blanks are
//! skipped before each token, so when parsing stops, the unparsed rest of the text starts
//! at the offending token, and its length gives the column to report.

use std::net::IpAddr;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_until, take_while};
use nom::character::complete::{char, satisfy};
use nom::combinator::{map, not, opt, recognize, value};
use nom::error::{ErrorKind, ParseError};
use nom::sequence::{pair, preceded, terminated};
use nom::{IResult, Parser};

use super::fields::{self, Field, Type, Value};

/// How deeply parentheses and `!` may nest. The parser recurses once per level, so a
/// bound is what keeps a run of 20,000 `(` from overflowing the stack; no filter a person
/// writes comes near it.
pub const MAX_DEPTH: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug)]
pub enum Expr {
    /// A bare field: true when present (and, for flags, set).
    Test(&'static Field),
    Compare(&'static Field, Op, Value),
    /// A string field with an open set of values, compared with the literal's text.
    CompareText(&'static Field, Op, String),
    Not(Box<Expr>),
    /// Every operand of a run of `&&`, in the order written (two or more). A flat list
    /// rather than a left-deep tree, so that evaluating and dropping a generated chain of
    /// 100,000 clauses is a loop, not 100,000 nested calls. That leaves parentheses and `!`
    /// as the only source of depth, and `MAX_DEPTH` bounds those; capping the number of
    /// clauses instead would reject long but reasonable filters, such as a list of QPs.
    And(Vec<Expr>),
    /// Every operand of a run of `||`; flat for the same reason as `And`.
    Or(Vec<Expr>),
}

/// A problem with the filter text; `column` is 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    pub column: usize,
    pub message: String,
    pub text: String,
}

/// How much of the text to quote on either side of the column.
const CONTEXT: usize = 60;

impl std::fmt::Display for FilterError {
    /// Quotes the text under the message with a caret at the column, but only the part
    /// around the column: a generated filter can be 100 KB long, which would bury the
    /// caret and flood the terminal.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = &self.text;
        let at = (self.column - 1).min(text.len());
        let mut start = at.saturating_sub(CONTEXT);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (at + CONTEXT).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let before = if start > 0 { "…" } else { "" };
        let after = if end < text.len() { "…" } else { "" };
        let caret = before.chars().count() + text[start..at].chars().count() + 1;
        write!(
            f,
            "filter error at column {}: {}\n  {before}{}{after}\n  {:>caret$}",
            self.column,
            self.message,
            &text[start..end],
            "^"
        )
    }
}

impl std::error::Error for FilterError {}

/// Why parsing stopped, and where: `at` is the rest of the text, from the offending token.
#[derive(Debug)]
struct Stop<'a> {
    at: &'a str,
    message: String,
}

impl<'a> ParseError<&'a str> for Stop<'a> {
    /// nom's own mismatches only mean "not this alternative". Every place where an
    /// alternative must match turns them into a `Failure` with a message of its own, so
    /// this empty message never reaches the user.
    fn from_error_kind(at: &'a str, _: ErrorKind) -> Self {
        Stop {
            at,
            message: String::new(),
        }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

type Res<'a, T> = IResult<&'a str, T, Stop<'a>>;

/// A `Failure`, not an `Error`, so that no enclosing `alt` or `opt` tries something else.
fn stop<'a, T>(at: &'a str, message: impl Into<String>) -> Res<'a, T> {
    Err(nom::Err::Failure(Stop {
        at,
        message: message.into(),
    }))
}

/// The blanks the old lexer skipped, and no others (not `\r`): the language is unchanged.
fn blank(input: &str) -> Res<'_, &str> {
    take_while(|c| matches!(c, ' ' | '\t' | '\n'))(input)
}

fn field_name(input: &str) -> Res<'_, &str> {
    recognize(pair(
        satisfy(|c| c.is_ascii_alphabetic() || c == '_'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.'),
    ))
    .parse(input)
}

/// Decimal or 0x hex. Letters run on into the word, so that `12ab` is reported as one bad
/// number rather than read as `12` followed by a stray name.
fn number(input: &str) -> Res<'_, u64> {
    let (rest, word) = recognize(pair(
        satisfy(|c| c.is_ascii_digit()),
        take_while(|c: char| c.is_ascii_alphanumeric()),
    ))
    .parse(input)?;
    let parsed = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => word.parse(),
    };
    match parsed {
        Ok(n) => Ok((rest, n)),
        Err(_) => stop(input, format!("`{word}` is not a number")),
    }
}

/// A double-quoted string. No escapes: no value a field can take contains a quote.
fn string(input: &str) -> Res<'_, &str> {
    let (body, _) = char('"')(input)?;
    let closed: Res<'_, &str> = terminated(take_until("\""), char('"')).parse(body);
    closed.or_else(|_| stop(input, "string is not closed"))
}

fn comparison_op(input: &str) -> Res<'_, Op> {
    alt((
        value(Op::Eq, tag("==")),
        value(Op::Ne, tag("!=")),
        value(Op::Le, tag("<=")),
        value(Op::Ge, tag(">=")),
        value(Op::Lt, tag("<")),
        value(Op::Gt, tag(">")),
    ))
    .parse(input)
}

/// `!` as negation: `!=` is always the operator, wherever it appears.
fn bang(input: &str) -> Res<'_, char> {
    terminated(char('!'), not(char('='))).parse(input)
}

/// The error where the grammar needed something else than what `input` holds. If what
/// is there is not even a token (a stray character, an unclosed string, a bad number),
/// that is the clearer thing to say, and it is what the user has to fix first.
fn expected<'a>(input: &'a str, wanted: &str, at_end: &str) -> nom::Err<Stop<'a>> {
    let at = input.trim_start_matches([' ', '\t', '\n']);
    let mut any_token = alt((
        recognize(comparison_op),
        tag("&&"),
        tag("||"),
        tag("!"),
        tag("("),
        tag(")"),
        recognize(string),
        recognize(number),
        field_name,
    ));
    let message = match (any_token.parse(at), at.chars().next()) {
        (Err(nom::Err::Failure(malformed)), _) => return nom::Err::Failure(malformed),
        (_, None) => at_end.to_string(),
        (Err(_), Some(c)) => format!("unexpected `{c}`"),
        (Ok(_), Some(_)) => wanted.to_string(),
    };
    nom::Err::Failure(Stop { at, message })
}

/// Turns "no alternative matched" from `parser` into the error `expected` words.
fn expect<'a, O>(
    mut parser: impl Parser<&'a str, Output = O, Error = Stop<'a>>,
    wanted: &'static str,
    at_end: &'static str,
) -> impl FnMut(&'a str) -> Res<'a, O> {
    move |input| match parser.parse(input) {
        Err(nom::Err::Error(_)) => Err(expected(input, wanted, at_end)),
        done => done,
    }
}

/// The depth inside one more `(` or `!`, the one at `at`. Checked before the parser
/// recurses into what follows it, so the limit also bounds the stack the parser uses.
fn deeper(depth: usize, at: &str) -> Result<usize, nom::Err<Stop<'_>>> {
    if depth >= MAX_DEPTH {
        return Err(nom::Err::Failure(Stop {
            at,
            message: format!("filter nests deeper than {MAX_DEPTH} levels"),
        }));
    }
    Ok(depth + 1)
}

/// The text after `operator`, if `input` starts with it.
fn joined<'a>(operator: &'static str, input: &'a str) -> Option<&'a str> {
    let found: Res<'_, _> = preceded(blank, tag(operator)).parse(input);
    found.ok().map(|(rest, _)| rest)
}

/// The lowest precedence: operands of `||`, each a run of `&&`.
fn any_of(depth: usize, input: &str) -> Res<'_, Expr> {
    chain(depth, input, "||", all_of, Expr::Or)
}

fn all_of(depth: usize, input: &str) -> Res<'_, Expr> {
    chain(depth, input, "&&", operand, Expr::And)
}

/// Operands joined by `operator`, gathered in a loop however many there are. A plain
/// loop, not `many0`, for the same reason of stack as in `operand`: a parenthesised
/// operand recurses from here.
fn chain<'a>(
    depth: usize,
    input: &'a str,
    operator: &'static str,
    operand: fn(usize, &'a str) -> Res<'a, Expr>,
    join: fn(Vec<Expr>) -> Expr,
) -> Res<'a, Expr> {
    let (mut input, first) = operand(depth, input)?;
    let mut all = Vec::new();
    while let Some(rest) = joined(operator, input) {
        let (rest, next) = operand(depth, rest)?;
        all.push(next);
        input = rest;
    }
    if all.is_empty() {
        return Ok((input, first));
    }
    all.insert(0, first);
    Ok((input, join(all)))
}

/// How an operand begins; `at` is where, `rest` what follows the `!` or `(`.
enum Opening<'a> {
    Not { at: &'a str, rest: &'a str },
    Group { at: &'a str, rest: &'a str },
    Leaf(&'a str),
}

fn opening(input: &str) -> Opening<'_> {
    let at = input.trim_start_matches([' ', '\t', '\n']);
    let opener: Res<'_, bool> = alt((value(true, bang), value(false, char('(')))).parse(at);
    match opener {
        Ok((rest, true)) => Opening::Not { at, rest },
        Ok((rest, false)) => Opening::Group { at, rest },
        Err(_) => Opening::Leaf(at),
    }
}

/// What `&&` joins: a negation, a parenthesised expression, or a field test or comparison.
/// The first two recurse. Only plain calls lie between the recursive ones, with the nom
/// combinators in helpers such as `opening`: in a debug build every combinator and
/// temporary in a recursive function costs stack on each level, and 256 levels of
/// parentheses must fit comfortably in a 2 MiB thread.
fn operand(depth: usize, input: &str) -> Res<'_, Expr> {
    match opening(input) {
        Opening::Not { at, rest } => {
            let (rest, inner) = operand(deeper(depth, at)?, rest)?;
            Ok((rest, Expr::Not(Box::new(inner))))
        }
        Opening::Group { at, rest } => {
            let (rest, inner) = any_of(deeper(depth, at)?, rest)?;
            let (rest, _) = closing(rest)?;
            Ok((rest, inner))
        }
        Opening::Leaf(at) => leaf(at),
    }
}

fn leaf(at: &str) -> Res<'_, Expr> {
    match comparison(at) {
        Err(nom::Err::Error(_)) => Err(expected(
            at,
            "expected a field name, `!` or `(`",
            "expression ends too early",
        )),
        done => done,
    }
}

fn closing(input: &str) -> Res<'_, char> {
    expect(preceded(blank, char(')')), "expected `)`", "expected `)`").parse(input)
}

enum Literal<'a> {
    Number(u64),
    Str(&'a str),
    Name(&'a str),
}

fn comparison(input: &str) -> Res<'_, Expr> {
    let (at, _) = blank(input)?;
    let (rest, name) = field_name(at)?;
    let Some(field) = fields::find(name) else {
        return stop(at, format!("unknown field `{name}`"));
    };
    let (rest, op) = opt(preceded(blank, comparison_op)).parse(rest)?;
    let Some(op) = op else {
        return Ok((rest, Expr::Test(field)));
    };
    let (at, _) = blank(rest)?;
    let mut literal = alt((
        map(number, Literal::Number),
        map(string, Literal::Str),
        map(field_name, Literal::Name),
    ));
    let (rest, literal) = match literal.parse(at) {
        Err(nom::Err::Error(_)) => {
            let wanted = format!("`{name}` compares with {}", describe(field.ty));
            return Err(expected(at, &wanted, "expected a value after the operator"));
        }
        parsed => parsed?,
    };
    match typed(field, op, literal) {
        Ok(expr) => Ok((rest, expr)),
        Err(message) => stop(at, message),
    }
}

/// The comparison, once the literal is known to suit the field's type and the operator.
fn typed(field: &'static Field, op: Op, literal: Literal<'_>) -> Result<Expr, String> {
    let name = field.name;
    let value = match (field.ty, literal) {
        (Type::Int, Literal::Number(n)) => Value::Int(n),
        (Type::Bool, Literal::Number(n)) if n <= 1 => Value::Bool(n == 1),
        (Type::Bool, Literal::Name(word)) if word == "true" || word == "false" => {
            Value::Bool(word == "true")
        }
        (Type::Str, Literal::Str(s)) => match intern(field, s) {
            Interned::Known(known) => Value::Str(known),
            Interned::Open if matches!(op, Op::Eq | Op::Ne) => {
                return Ok(Expr::CompareText(field, op, s.to_string()));
            }
            Interned::Open => return Err(format!("`{name}` supports only == and !=")),
            Interned::Unknown => return Err(format!("`{s}` is not a value `{name}` can take")),
        },
        (Type::Ip, Literal::Str(s)) => match s.parse::<IpAddr>() {
            Ok(ip) => Value::Ip(ip),
            Err(_) => return Err(format!("`{s}` is not an IP address or GID")),
        },
        (Type::Mac, Literal::Str(s)) => match parse_mac(s) {
            Some(mac) => Value::Mac(mac),
            None => return Err(format!("`{s}` is not a MAC address")),
        },
        (ty, _) => return Err(format!("`{name}` compares with {}", describe(ty))),
    };
    if !matches!(field.ty, Type::Int) && !matches!(op, Op::Eq | Op::Ne) {
        return Err(format!("`{name}` supports only == and !="));
    }
    Ok(Expr::Compare(field, op, value))
}

fn describe(ty: Type) -> &'static str {
    match ty {
        Type::Int => "a number",
        Type::Bool => "true, false, 0 or 1",
        Type::Str => "a quoted string",
        Type::Ip => "a quoted IP address",
        Type::Mac => "a quoted MAC address",
    }
}

enum Interned {
    Known(&'static str),
    Unknown,
    /// The field's values are not a closed set.
    Open,
}

/// Most string fields take a fixed set of names; matching the literal against them here
/// tells the user at once about a typo.
fn intern(field: &Field, literal: &str) -> Interned {
    use crate::crc::CrcStatus;
    use crate::dissect::Kind;
    let names: Vec<&'static str> = match field.name {
        "kind" => Kind::ALL.iter().map(|k| k.name()).collect(),
        "icrc.status" | "vcrc.status" => [CrcStatus::Ok, CrcStatus::Bad, CrcStatus::Unverifiable]
            .iter()
            .map(|s| s.name())
            .collect(),
        "aeth.kind" => vec!["ack", "rnr_nak", "nak", "reserved"],
        "tunnel.type" => vec!["gre", "erspan", "vxlan"],
        "bth.opcode_name" => (0..=255u8)
            .map(|op| crate::wire::opcode::info(op).name)
            .collect(),
        _ => return Interned::Open,
    };
    match names.into_iter().find(|n| *n == literal) {
        Some(known) => Interned::Known(known),
        None => Interned::Unknown,
    }
}

fn parse_mac(s: &str) -> Option<[u8; 6]> {
    let mut mac = [0u8; 6];
    let mut parts = s.split([':', '-']);
    for byte in &mut mac {
        *byte = u8::from_str_radix(parts.next()?, 16).ok()?;
    }
    parts.next().is_none().then_some(mac)
}

pub fn parse(text: &str) -> Result<Expr, FilterError> {
    let end = expect(
        preceded(blank, nom::combinator::eof),
        "unexpected text after the expression",
        "",
    );
    match terminated(|i| any_of(0, i), end).parse(text) {
        Ok((_, expr)) => Ok(expr),
        Err(nom::Err::Error(stop) | nom::Err::Failure(stop)) => Err(FilterError {
            column: text.len() - stop.at.len() + 1,
            message: stop.message,
            text: text.to_string(),
        }),
        // Only streaming parsers ask for more input, and these are all complete ones.
        Err(nom::Err::Incomplete(_)) => Err(FilterError {
            column: text.len() + 1,
            message: "expression ends too early".into(),
            text: text.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fails(text: &str) -> (usize, String) {
        let err = parse(text).expect_err(text);
        (err.column, err.message)
    }

    #[test]
    fn error_messages_name_the_column() {
        for (text, column, message) in [
            ("bth.psn == 1 .", 14, "unexpected `.`"),
            ("bth.psn == 1 && &", 17, "unexpected `&`"),
            ("bth.psn = 1", 9, "unexpected `=`"),
            ("bth.psn == 1 && kind == \"pfc", 25, "string is not closed"),
            ("bth.psn == 12ab", 12, "`12ab` is not a number"),
            ("bth.psn == 0x", 12, "`0x` is not a number"),
            (
                "bth.psn == 99999999999999999999",
                12,
                "`99999999999999999999` is not a number",
            ),
            ("(kind == \"pfc\"", 15, "expected `)`"),
            ("(kind == \"pfc\" bth", 16, "expected `)`"),
            ("bth.psn == 1 &&", 16, "expression ends too early"),
            ("bth.psn == 1 ||  ", 18, "expression ends too early"),
            ("", 1, "expression ends too early"),
            ("!", 2, "expression ends too early"),
            ("bth.psn == 1 && )", 17, "expected a field name, `!` or `(`"),
            ("== 1", 1, "expected a field name, `!` or `(`"),
            ("bth.psn == 1 && 5", 17, "expected a field name, `!` or `(`"),
            ("bth.bogus == 1", 1, "unknown field `bth.bogus`"),
            ("true", 1, "unknown field `true`"),
            ("ip.ecn == ", 11, "expected a value after the operator"),
            (
                "bth.psn == 1 bth",
                14,
                "unexpected text after the expression",
            ),
            ("(bth) )", 7, "unexpected text after the expression"),
            ("bth.psn == \"1\"", 12, "`bth.psn` compares with a number"),
            ("bth.psn == (", 12, "`bth.psn` compares with a number"),
            (
                "bth.fecn == 2",
                13,
                "`bth.fecn` compares with true, false, 0 or 1",
            ),
            ("kind == 1", 9, "`kind` compares with a quoted string"),
            ("kind < \"pfc\"", 8, "`kind` supports only == and !="),
            (
                "error.layer > \"x\"",
                15,
                "`error.layer` supports only == and !=",
            ),
            (
                "kind == \"bogus\"",
                9,
                "`bogus` is not a value `kind` can take",
            ),
            (
                "ip.src == \"nope\"",
                11,
                "`nope` is not an IP address or GID",
            ),
            ("eth.src == \"02:00\"", 12, "`02:00` is not a MAC address"),
            (
                "ip.src < \"10.0.0.1\"",
                10,
                "`ip.src` supports only == and !=",
            ),
        ] {
            assert_eq!(fails(text), (column, message.to_string()), "{text}");
        }
    }

    #[test]
    fn the_language_is_unchanged() {
        for text in [
            "bth",
            "  bth.psn==0x1F\t&&\nbth.psn<=0X20 ",
            "!!bth.fecn",
            "!(bth.psn > 1) || (ip.ecn != 3 && !(udp))",
            "bth.becn == 1 || bth.becn == false",
            "error.layer != \"x\" && kind == \"pfc\"",
            "ip.src == \"::1\" && eth.dst == \"02-00-00-00-00-01\"",
            "_x || bth",
        ] {
            let parsed = parse(text).map(|_| ());
            if text.starts_with("_x") {
                assert_eq!(parsed.unwrap_err().message, "unknown field `_x`");
            } else {
                assert_eq!(parsed, Ok(()), "{text}");
            }
        }
    }

    /// `levels` of `opener`, then `inner`, then whatever closes them.
    fn nested(opener: &str, levels: usize, inner: &str, closer: &str) -> String {
        format!("{}{inner}{}", opener.repeat(levels), closer.repeat(levels))
    }

    fn too_deep(column: usize) -> (usize, String) {
        (
            column,
            format!("filter nests deeper than {MAX_DEPTH} levels"),
        )
    }

    #[test]
    fn parentheses_nest_up_to_the_limit() {
        for levels in [MAX_DEPTH - 1, MAX_DEPTH] {
            assert!(parse(&nested("(", levels, "bth", ")")).is_ok(), "{levels}");
        }
        let text = nested("(", MAX_DEPTH + 1, "bth", ")");
        assert_eq!(fails(&text), too_deep(MAX_DEPTH + 1));
        // Each level through both chains, the deepest the parser's stack goes.
        let opener = "bth || bth && (";
        assert!(parse(&nested(opener, MAX_DEPTH, "bth", ")")).is_ok());
        let text = nested(opener, MAX_DEPTH + 1, "bth", ")");
        assert_eq!(fails(&text), too_deep(opener.len() * (MAX_DEPTH + 1)));
        // Blanks move the column: the limit is reported where the 257th `(` stands.
        let text = nested(" (", MAX_DEPTH + 1, "bth", ")");
        assert_eq!(fails(&text), too_deep(2 * (MAX_DEPTH + 1)));
    }

    #[test]
    fn negations_nest_up_to_the_limit() {
        for levels in [MAX_DEPTH - 1, MAX_DEPTH] {
            assert!(parse(&nested("!", levels, "bth", "")).is_ok(), "{levels}");
        }
        let text = nested("!", MAX_DEPTH + 1, "bth", "");
        assert_eq!(fails(&text), too_deep(MAX_DEPTH + 1));
    }

    #[test]
    fn parentheses_and_negations_count_together() {
        let half = MAX_DEPTH / 2;
        assert!(parse(&nested("!(", half, "bth", ")")).is_ok());
        let text = nested("!(", half, "!bth", ")");
        assert_eq!(fails(&text), too_deep(2 * half + 1));
        // Siblings do not add up: depth is how deep, not how many.
        let side = nested("(", MAX_DEPTH - 1, "bth", ")");
        assert!(parse(&format!("({side} && {side}) || !{side}")).is_ok());
    }

    #[test]
    fn the_deepest_filters_evaluate() {
        use crate::dissect::Packet;
        use crate::filter::PacketFilter;

        let pkt = Packet {
            frame: 7,
            ..Packet::default()
        };
        for (text, want) in [
            (nested("(", MAX_DEPTH, "frame == 7", ")"), true),
            (nested("!", MAX_DEPTH, "frame == 7", ""), true),
            (nested("!", MAX_DEPTH - 1, "frame == 7", ""), false),
            (
                nested("frame == 8 || frame == 7 && (", MAX_DEPTH, "bth", ")"),
                false,
            ),
            // Each level negates the one inside it, and the innermost `bth` is false.
            (
                nested("frame == 8 || frame == 7 && !(", 127, "bth", ")"),
                true,
            ),
            (
                nested("frame == 8 || frame == 7 && !(", 128, "bth", ")"),
                false,
            ),
        ] {
            let filter = PacketFilter::from_expr(&text).unwrap();
            assert_eq!(filter.matches(&pkt), want, "{text}");
        }
    }

    #[test]
    fn twenty_thousand_openers_stop_at_the_limit() {
        let parens = format!("{}bth.psn", "(".repeat(20_000));
        assert_eq!(fails(&parens), too_deep(MAX_DEPTH + 1));
        let bangs = format!("{}bth.psn", "!".repeat(20_000));
        assert_eq!(fails(&bangs), too_deep(MAX_DEPTH + 1));
        assert_eq!(fails(&"(".repeat(20_000)), too_deep(MAX_DEPTH + 1));
    }

    #[test]
    fn a_hundred_thousand_clauses_parse_evaluate_and_drop() {
        use crate::dissect::Packet;
        use crate::filter::PacketFilter;

        let clauses = 100_000;
        let pkt = Packet {
            frame: 7,
            ..Packet::default()
        };
        let all = vec!["frame == 7"; clauses].join(" && ");
        assert!(PacketFilter::from_expr(&all).unwrap().matches(&pkt));
        // The last clause decides, so every one of them is evaluated.
        let last_fails = format!("{all} && frame != 7");
        assert!(!PacketFilter::from_expr(&last_fails).unwrap().matches(&pkt));
        let any = vec!["frame == 8"; clauses].join(" || ");
        assert!(!PacketFilter::from_expr(&any).unwrap().matches(&pkt));
        let mixed = vec!["frame == 8 && frame == 7"; clauses].join(" || ") + " || frame < 8";
        assert!(PacketFilter::from_expr(&mixed).unwrap().matches(&pkt));
        match parse(&all).unwrap() {
            Expr::And(operands) => assert_eq!(operands.len(), clauses),
            other => panic!("{other:?}"),
        }
        // A long chain still reports an error at the right column.
        let broken = format!("{all} && frame == 7 .");
        assert_eq!(fails(&broken), (broken.len(), "unexpected `.`".into()));
    }

    #[test]
    fn precedence_is_unchanged() {
        use crate::dissect::Packet;
        use crate::filter::PacketFilter;

        let pkt = Packet {
            frame: 7,
            ..Packet::default()
        };
        for (text, want) in [
            // `&&` binds tighter than `||`.
            ("frame == 7 || frame == 8 && frame == 9", true),
            ("(frame == 7 || frame == 8) && frame == 9", false),
            // `!` binds tighter than `&&`.
            ("!frame == 8 && frame == 7", true),
            ("!(frame == 7 && frame == 8)", true),
            ("!!frame == 7", true),
            // A comparison with a field the packet lacks is false, even `!=`.
            ("bth.psn != 1", false),
            ("!bth", true),
        ] {
            assert_eq!(
                PacketFilter::from_expr(text).unwrap().matches(&pkt),
                want,
                "{text}"
            );
        }
    }

    #[test]
    fn the_message_quotes_the_text_around_the_column() {
        let err = parse("bth.psn == 1 .").unwrap_err();
        assert_eq!(
            err.to_string(),
            "filter error at column 14: unexpected `.`\n  bth.psn == 1 .\n               ^"
        );
        let long = format!("{}bth", "(".repeat(20_000));
        let shown = parse(&long).unwrap_err().to_string();
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), 3, "{shown}");
        assert_eq!(
            lines[0],
            "filter error at column 257: filter nests deeper than 256 levels"
        );
        assert_eq!(lines[1], format!("  …{}…", "(".repeat(2 * CONTEXT)));
        // The caret stands under the 257th `(`, CONTEXT characters into the excerpt.
        assert_eq!(lines[2], format!("  {}^", " ".repeat(1 + CONTEXT)));
        let near_the_end = parse(&format!("{} && é .", vec!["bth"; 100].join(" && ")));
        let shown = near_the_end.unwrap_err().to_string();
        let lines: Vec<&str> = shown.lines().collect();
        assert!(
            lines[1].starts_with("  …") && lines[1].ends_with(" é ."),
            "{shown}"
        );
        // Columns count bytes, but the caret lines up by characters.
        let position = |line: &str, c| line.chars().position(|x| x == c);
        assert_eq!(position(lines[1], 'é'), position(lines[2], '^'), "{shown}");
    }
}
