//! The filter language: dotted field names, `== != < <= > >=`, `&& || !`, parentheses,
//! decimal and 0x numbers, double-quoted strings, `true` and `false`. Names and literals
//! are checked against the field table here, before any capture is read.

use std::net::IpAddr;

use super::fields::{self, Field, Type, Value};

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
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

/// A problem with the filter text; `column` is 1-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("filter error at column {column}: {message}\n  {text}\n  {caret:>width$}", caret = "^", width = .column)]
pub struct FilterError {
    pub column: usize,
    pub message: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Number(u64),
    Str(String),
    Op(Op),
    And,
    Or,
    Not,
    Open,
    Close,
}

fn error(text: &str, column: usize, message: impl Into<String>) -> FilterError {
    FilterError {
        column,
        message: message.into(),
        text: text.to_string(),
    }
}

fn lex(text: &str) -> Result<Vec<(Token, usize)>, FilterError> {
    let mut tokens = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let column = i + 1;
        let two = bytes.get(i..i + 2).unwrap_or_default();
        let (token, len) = match c {
            b' ' | b'\t' | b'\n' => {
                i += 1;
                continue;
            }
            b'(' => (Token::Open, 1),
            b')' => (Token::Close, 1),
            _ if two == b"&&" => (Token::And, 2),
            _ if two == b"||" => (Token::Or, 2),
            _ if two == b"==" => (Token::Op(Op::Eq), 2),
            _ if two == b"!=" => (Token::Op(Op::Ne), 2),
            _ if two == b"<=" => (Token::Op(Op::Le), 2),
            _ if two == b">=" => (Token::Op(Op::Ge), 2),
            b'<' => (Token::Op(Op::Lt), 1),
            b'>' => (Token::Op(Op::Gt), 1),
            b'!' => (Token::Not, 1),
            b'"' => {
                let rest = &text[i + 1..];
                let Some(end) = rest.find('"') else {
                    return Err(error(text, column, "string is not closed"));
                };
                (Token::Str(rest[..end].to_string()), end + 2)
            }
            b'0'..=b'9' => {
                let len = bytes[i..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric())
                    .count();
                let word = &text[i..i + len];
                let parsed = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => word.parse(),
                };
                match parsed {
                    Ok(n) => (Token::Number(n), len),
                    Err(_) => {
                        return Err(error(text, column, format!("`{word}` is not a number")));
                    }
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let len = bytes[i..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'.')
                    .count();
                (Token::Name(text[i..i + len].to_string()), len)
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(error(text, column, format!("unexpected `{ch}`")));
            }
        };
        tokens.push((token, column));
        i += len;
    }
    Ok(tokens)
}

struct Parser<'t> {
    text: &'t str,
    tokens: Vec<(Token, usize)>,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(t, _)| t)
    }

    fn column(&self) -> usize {
        self.tokens
            .get(self.pos)
            .map_or(self.text.len() + 1, |(_, c)| *c)
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, FilterError> {
        Err(error(self.text, self.column(), message))
    }

    fn or(&mut self) -> Result<Expr, FilterError> {
        let mut left = self.and()?;
        while self.peek() == Some(&Token::Or) {
            self.pos += 1;
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, FilterError> {
        let mut left = self.unary()?;
        while self.peek() == Some(&Token::And) {
            self.pos += 1;
            left = Expr::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, FilterError> {
        match self.peek() {
            Some(Token::Not) => {
                self.pos += 1;
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Some(Token::Open) => {
                self.pos += 1;
                let inner = self.or()?;
                if self.peek() != Some(&Token::Close) {
                    return self.fail("expected `)`");
                }
                self.pos += 1;
                Ok(inner)
            }
            Some(Token::Name(_)) => self.comparison(),
            Some(_) => self.fail("expected a field name, `!` or `(`"),
            None => self.fail("expression ends too early"),
        }
    }

    fn comparison(&mut self) -> Result<Expr, FilterError> {
        let name_column = self.column();
        let Some(Token::Name(name)) = self.peek().cloned() else {
            return self.fail("expected a field name");
        };
        let Some(field) = fields::find(&name) else {
            return Err(error(
                self.text,
                name_column,
                format!("unknown field `{name}`"),
            ));
        };
        self.pos += 1;
        let Some(Token::Op(op)) = self.peek().cloned() else {
            return Ok(Expr::Test(field));
        };
        self.pos += 1;
        let value_column = self.column();
        let literal = self.tokens.get(self.pos).map(|(t, _)| t.clone());
        self.pos += 1;
        let bad = |message: String| Err(error(self.text, value_column, message));
        let value = match (field.ty, literal) {
            (Type::Int, Some(Token::Number(n))) => Value::Int(n),
            (Type::Bool, Some(Token::Number(n))) if n <= 1 => Value::Bool(n == 1),
            (Type::Bool, Some(Token::Name(word))) if word == "true" || word == "false" => {
                Value::Bool(word == "true")
            }
            (Type::Str, Some(Token::Str(s))) => match intern(field, &s) {
                Interned::Known(known) => Value::Str(known),
                Interned::Open => {
                    if !matches!(op, Op::Eq | Op::Ne) {
                        return bad(format!("`{name}` supports only == and !="));
                    }
                    return Ok(Expr::CompareText(field, op, s));
                }
                Interned::Unknown => return bad(format!("`{s}` is not a value `{name}` can take")),
            },
            (Type::Ip, Some(Token::Str(s))) => match s.parse::<IpAddr>() {
                Ok(ip) => Value::Ip(ip),
                Err(_) => return bad(format!("`{s}` is not an IP address or GID")),
            },
            (Type::Mac, Some(Token::Str(s))) => match parse_mac(&s) {
                Some(mac) => Value::Mac(mac),
                None => return bad(format!("`{s}` is not a MAC address")),
            },
            (ty, Some(_)) => return bad(format!("`{name}` compares with {}", describe(ty))),
            (_, None) => return bad("expected a value after the operator".into()),
        };
        if !matches!(field.ty, Type::Int) && !matches!(op, Op::Eq | Op::Ne) {
            return Err(error(
                self.text,
                value_column,
                format!("`{name}` supports only == and !="),
            ));
        }
        Ok(Expr::Compare(field, op, value))
    }
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
    let tokens = lex(text)?;
    let mut parser = Parser {
        text,
        tokens,
        pos: 0,
    };
    let expr = parser.or()?;
    if parser.pos < parser.tokens.len() {
        return parser.fail("unexpected text after the expression");
    }
    Ok(expr)
}
