//! The filter language, Wireshark 4's display-filter grammar for the fields rdmadump
//! decodes: `or`/`||` binds loosest, then `xor`/`^^`, then `and`/`&&`, then `not`/`!`, then
//! relations (`==`/`eq`/`any_eq`, `!=`/`ne`/`all_ne`, `~=`/`any_ne`, `===`/`all_eq`,
//! `<`/`lt`, `<=`/`le`, `>`/`gt`, `>=`/`ge`, `in {...}`, `not in {...}`, `contains`,
//! `matches`/`~`, `&`), entities (fields by rdmadump or Wireshark name, slices `[i:n]`,
//! `len()`, `lower()`, `upper()`), and bare literals. Names and literals are checked
//! against the field table here, before any capture is read.
//!
//! A hand-written recursive descent over the tokens of `lex.rs`: precedence climbing
//! keeps each level a loop, so a long chain of clauses costs no stack, and only
//! parentheses, negations and function calls recurse, which `MAX_DEPTH` bounds.

use std::net::IpAddr;

use nom::error::{ErrorKind, ParseError};

use super::expr::{Check, Entity, Expr, Member, Op, Range, Source, Test};
use super::fields::{Field, Type, Value};
use super::lex::{Tok, Token, tokens};
use super::literal;
use super::names::{self, Naming};

/// How deeply parentheses, negations and function calls may nest. The parser recurses once
/// per level, so a bound is what keeps a run of 20,000 `(` from overflowing the stack; no
/// filter a person writes comes near it.
pub const MAX_DEPTH: usize = 256;

/// A problem with the filter text; `column` is 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    pub column: usize,
    pub message: String,
    pub text: String,
}

impl FilterError {
    pub(super) fn at(text: &str, offset: usize, message: String) -> Self {
        FilterError {
            column: offset + 1,
            message,
            text: text.to_string(),
        }
    }
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

/// Why the lexer or the grammar stopped, and where: `at` is the input from the offending
/// character or token on, which places the column.
#[derive(Debug)]
pub struct Halt<I> {
    pub at: I,
    pub message: String,
}

impl<I> Halt<I> {
    /// A `Failure`, not an `Error`: the grammar has committed, so no enclosing `alt`, `opt`
    /// or list may backtrack past it and put another message in its place.
    pub fn failure(at: I, message: impl Into<String>) -> nom::Err<Self> {
        nom::Err::Failure(Halt {
            at,
            message: message.into(),
        })
    }
}

impl<I> ParseError<I> for Halt<I> {
    /// nom's own mismatches only mean "not this alternative". Wherever one could reach the
    /// user, the grammar turns it into a `failure` with a message of its own, so this empty
    /// one is never shown.
    fn from_error_kind(at: I, _: ErrorKind) -> Self {
        Halt {
            at,
            message: String::new(),
        }
    }

    fn append(_: I, _: ErrorKind, other: Self) -> Self {
        other
    }
}

pub fn parse(text: &str) -> Result<Expr, FilterError> {
    let tokens = tokens(text)?;
    let mut parser = Parser {
        text,
        tokens: &tokens,
        next: 0,
    };
    let expr = parser.any_of(0)?;
    match parser.peek() {
        Tok::End => Ok(expr),
        _ => Err(parser.error("unexpected text after the expression")),
    }
}

/// Words the grammar reserves; no field has these names.
const KEYWORDS: &[&str] = &[
    "and",
    "or",
    "xor",
    "not",
    "in",
    "contains",
    "matches",
    "bitwise_and",
    "eq",
    "ne",
    "gt",
    "lt",
    "ge",
    "le",
    "any_eq",
    "all_ne",
    "any_ne",
    "all_eq",
];

/// What a relation compares: the field behind the entity, and the type the entity has.
struct Subject {
    entity: Entity,
    ty: Type,
    name: String,
}

struct Parser<'t, 'a> {
    text: &'a str,
    tokens: &'t [Token<'a>],
    next: usize,
}

impl<'t, 'a> Parser<'t, 'a> {
    fn peek(&self) -> &'t Tok<'a> {
        &self.tokens[self.next].tok
    }

    fn offset(&self) -> usize {
        self.tokens[self.next].at
    }

    fn bump(&mut self) -> &'t Tok<'a> {
        let tok = &self.tokens[self.next].tok;
        if self.next + 1 < self.tokens.len() {
            self.next += 1;
        }
        tok
    }

    fn error(&self, message: impl Into<String>) -> FilterError {
        FilterError::at(self.text, self.offset(), message.into())
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> FilterError {
        FilterError::at(self.text, offset, message.into())
    }

    /// Takes the next token if it is one of `spellings` (punctuation or keyword).
    fn eat(&mut self, spellings: &[&str]) -> bool {
        let found = match self.peek() {
            Tok::Punct(p) => spellings.contains(p),
            Tok::Word(w) => spellings.contains(w),
            _ => false,
        };
        if found {
            self.bump();
        }
        found
    }

    fn expect(&mut self, spelling: &'static str) -> Result<(), FilterError> {
        if self.eat(&[spelling]) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("expected `{spelling}`")))
        }
    }

    /// The error for a token the grammar did not want here. At the end of the text a missing
    /// closer is still named (`expected `)``), since that is the fix; any other want there
    /// means the expression stopped early.
    fn unexpected(&self, wanted: &str) -> FilterError {
        match self.peek() {
            Tok::End if wanted.starts_with("expected `") => self.error(wanted),
            Tok::End => self.error("expression ends too early"),
            _ => self.error(wanted),
        }
    }

    fn deeper(&self, depth: usize, at: usize) -> Result<usize, FilterError> {
        if depth >= MAX_DEPTH {
            return Err(self.error_at(at, format!("filter nests deeper than {MAX_DEPTH} levels")));
        }
        Ok(depth + 1)
    }

    fn any_of(&mut self, depth: usize) -> Result<Expr, FilterError> {
        self.chain(depth, &["or", "||"], Self::one_of, Expr::Or)
    }

    fn one_of(&mut self, depth: usize) -> Result<Expr, FilterError> {
        self.chain(depth, &["xor", "^^"], Self::all_of, Expr::Xor)
    }

    fn all_of(&mut self, depth: usize) -> Result<Expr, FilterError> {
        self.chain(depth, &["and", "&&"], Self::operand, Expr::And)
    }

    /// Operands joined by one operator, gathered in a loop however many there are, into a
    /// flat list: evaluating and dropping a generated chain of 100,000 clauses is then a
    /// loop, not 100,000 nested calls.
    fn chain(
        &mut self,
        depth: usize,
        operator: &[&str],
        operand: fn(&mut Self, usize) -> Result<Expr, FilterError>,
        join: fn(Vec<Expr>) -> Expr,
    ) -> Result<Expr, FilterError> {
        let first = operand(self, depth)?;
        if !self.eat(operator) {
            return Ok(first);
        }
        let mut all = vec![first];
        loop {
            all.push(operand(self, depth)?);
            if !self.eat(operator) {
                return Ok(join(all));
            }
        }
    }

    fn operand(&mut self, depth: usize) -> Result<Expr, FilterError> {
        let at = self.offset();
        if self.eat(&["!", "not"]) {
            let inner = self.operand(self.deeper(depth, at)?)?;
            return Ok(Expr::Not(Box::new(inner)));
        }
        if self.eat(&["("]) {
            let inner = self.any_of(self.deeper(depth, at)?)?;
            self.expect(")")?;
            return Ok(inner);
        }
        self.relation(depth)
    }

    fn relation(&mut self, depth: usize) -> Result<Expr, FilterError> {
        let Tok::Word(word) = *self.peek() else {
            return Err(self.unexpected("expected a field name, `!` or `(`"));
        };
        if word.starts_with(|c: char| c.is_ascii_digit()) || KEYWORDS.contains(&word) {
            return Err(self.error("expected a field name, `!` or `(`"));
        }
        let (subject, naming) = self.subject(depth)?;
        let at = self.offset();
        if let Some(op) = self.comparison() {
            let (op, all) = op;
            return self.compare(subject, op, all, at);
        }
        if self.eat(&["in"]) {
            return self.set(subject);
        }
        if matches!(self.peek(), Tok::Word("not")) {
            let after_not = &self.tokens[(self.next + 1).min(self.tokens.len() - 1)].tok;
            if *after_not == Tok::Word("in") {
                self.bump();
                self.bump();
                return Ok(Expr::Not(Box::new(self.set(subject)?)));
            }
        }
        if self.eat(&["contains"]) {
            return self.contains(subject);
        }
        if self.eat(&["matches", "~"]) {
            return self.matches(subject);
        }
        if self.eat(&["&", "bitwise_and"]) {
            return self.bit_test(subject);
        }
        match subject.entity {
            Entity::Field(field) if naming == Naming::Rdmadump => Ok(Expr::Test(field)),
            Entity::Field(field) => Ok(Expr::Exists(field)),
            entity => Ok(Expr::Check(Box::new(Check {
                entity,
                all: false,
                negate: false,
                test: Test::Exists,
            }))),
        }
    }

    /// A field, a slice of one, or a function of one.
    fn subject(&mut self, depth: usize) -> Result<(Subject, Naming), FilterError> {
        let at = self.offset();
        let Tok::Word(word) = *self.peek() else {
            return Err(self.unexpected("expected a field name"));
        };
        if word.starts_with(|c: char| c.is_ascii_digit()) || KEYWORDS.contains(&word) {
            return Err(self.error("expected a field name"));
        }
        self.bump();
        if matches!(word, "len" | "lower" | "upper") && *self.peek() == Tok::Punct("(") {
            let depth = self.deeper(depth, at)?;
            self.bump();
            let (inner, naming) = self.subject(depth)?;
            self.expect(")")?;
            let Entity::Field(field) = inner.entity else {
                return Err(self.error_at(at, format!("`{word}()` takes a field")));
            };
            let subject = match word {
                "len" => Subject {
                    entity: Entity::Len(field),
                    ty: Type::Int,
                    name: format!("len({})", inner.name),
                },
                _ if field.ty != Type::Str => {
                    return Err(self.error_at(
                        at,
                        format!(
                            "`{word}()` takes a string field; `{}` is not one",
                            inner.name
                        ),
                    ));
                }
                _ => Subject {
                    entity: Entity::Case(field, word == "upper"),
                    ty: Type::Str,
                    name: format!("{word}({})", inner.name),
                },
            };
            return Ok((subject, naming));
        }
        let (field, naming) = match names::resolve(word) {
            Some(found) => found,
            None => return Err(self.error_at(at, names::unknown(word))),
        };
        if *self.peek() != Tok::Punct("[") {
            let subject = Subject {
                entity: Entity::Field(field),
                ty: field.ty,
                name: word.to_string(),
            };
            return Ok((subject, naming));
        }
        let source = if field.name == "frame" {
            Source::Frame
        } else if matches!(field.ty, Type::Mac | Type::Ip) {
            Source::Field(field)
        } else {
            return Err(self.error("only addresses and `frame` (its bytes) can be sliced"));
        };
        self.bump();
        let range_at = self.offset();
        let range = match self.bump() {
            Tok::Word(w) => range(w).ok_or_else(|| {
                self.error_at(
                    range_at,
                    format!("`{w}` is not a slice: write [i:n], [i-j], [i] or [i:]"),
                )
            })?,
            _ => return Err(self.error_at(range_at, "expected a slice such as [0:3]")),
        };
        self.expect("]")?;
        let subject = Subject {
            entity: Entity::Slice(source, range),
            ty: Type::Mac,
            name: format!("{word}[...]"),
        };
        Ok((subject, naming))
    }

    /// A comparison operator, with whether it must hold for all occurrences.
    fn comparison(&mut self) -> Option<(Op, bool)> {
        let found = match self.peek() {
            Tok::Punct(p) => match *p {
                "==" => (Op::Eq, false),
                "!=" => (Op::Ne, true),
                "~=" => (Op::Ne, false),
                "===" => (Op::Eq, true),
                "<" => (Op::Lt, false),
                "<=" => (Op::Le, false),
                ">" => (Op::Gt, false),
                ">=" => (Op::Ge, false),
                _ => return None,
            },
            Tok::Word(w) => match *w {
                "eq" | "any_eq" => (Op::Eq, false),
                "ne" | "all_ne" => (Op::Ne, true),
                "any_ne" => (Op::Ne, false),
                "all_eq" => (Op::Eq, true),
                "lt" => (Op::Lt, false),
                "le" => (Op::Le, false),
                "gt" => (Op::Gt, false),
                "ge" => (Op::Ge, false),
                _ => return None,
            },
            _ => return None,
        };
        self.bump();
        Some(found)
    }

    /// The literal after an operator: a word or a quoted string, and where it stands.
    fn literal(&mut self, subject: &Subject) -> Result<(Literal<'a>, usize), FilterError> {
        let at = self.offset();
        let literal = match self.peek() {
            Tok::Word(w) => Literal::Word(w),
            Tok::Str(s) => Literal::Quoted(s.clone()),
            Tok::End => return Err(self.error("expected a value after the operator")),
            _ => {
                return Err(self.error(format!(
                    "`{}` compares with {}",
                    subject.name,
                    describe(subject.ty)
                )));
            }
        };
        self.bump();
        Ok((literal, at))
    }

    fn compare(
        &mut self,
        subject: Subject,
        op: Op,
        all: bool,
        at: usize,
    ) -> Result<Expr, FilterError> {
        let (literal, at_literal) = self.literal(&subject)?;
        let ordered = !matches!(op, Op::Eq | Op::Ne);
        if ordered && subject.ty == Type::Bool {
            return Err(self.error_at(at, format!("`{}` supports only == and !=", subject.name)));
        }
        let fail = |message: String| FilterError::at(self.text, at_literal, message);
        let value = match typed(&subject, &literal) {
            Ok(Typed::Value(value)) => value,
            Ok(Typed::Cidr(addr, bits)) if !ordered => {
                return Ok(check(
                    subject.entity,
                    op == Op::Ne,
                    all,
                    Test::Cidr(addr, bits),
                ));
            }
            Ok(Typed::Cidr(..)) => {
                return Err(fail("a CIDR block compares only with == and !=".into()));
            }
            Ok(Typed::Text(text)) if !ordered => {
                return Ok(check(subject.entity, op == Op::Ne, all, Test::Text(text)));
            }
            Ok(Typed::Text(_)) => {
                return Err(
                    self.error_at(at, format!("`{}` supports only == and !=", subject.name))
                );
            }
            Ok(Typed::Cnp) => {
                let cnp = Expr::Compare(
                    names::resolve("bth.opcode")
                        .expect("bth.opcode is a field")
                        .0,
                    Op::Eq,
                    Value::Int(u64::from(crate::wire::opcode::CNP)),
                );
                return match op {
                    Op::Eq => Ok(cnp),
                    Op::Ne => Ok(Expr::Not(Box::new(cnp))),
                    _ => Err(self.error_at(at, "`kind` supports only == and !=")),
                };
            }
            Ok(Typed::Bytes(bytes)) => {
                return Ok(check(subject.entity, false, all, Test::Bytes(op, bytes)));
            }
            Err(message) => {
                // Not a literal of the field's type: perhaps another field of that type,
                // as in Wireshark's `frame.cap_len < frame.len`.
                let other = match literal {
                    Literal::Word(w) => names::resolve(w).map(|(f, _)| f),
                    Literal::Quoted(_) => None,
                };
                return match (other, &subject.entity) {
                    (Some(other), Entity::Field(_)) if other.ty == subject.ty => {
                        Ok(check(subject.entity, false, all, Test::Field(op, other)))
                    }
                    _ => Err(fail(message)),
                };
            }
        };
        match subject.entity {
            // One occurrence, or any of several: the plain comparison, the common case.
            Entity::Field(field) if !all || field.each.is_none() => {
                Ok(Expr::Compare(field, op, value))
            }
            entity => Ok(check(entity, false, all, Test::Compare(op, value))),
        }
    }

    fn set(&mut self, subject: Subject) -> Result<Expr, FilterError> {
        self.expect("{")?;
        let mut members = Vec::new();
        loop {
            if self.eat(&["}"]) {
                break;
            }
            if !members.is_empty() {
                // Wireshark 4 separates members with commas, Wireshark 3 with blanks.
                self.eat(&[","]);
            }
            let (literal, at) = match self.peek() {
                Tok::End => return Err(self.error("expected `}`")),
                _ => self.literal(&subject)?,
            };
            let fail = |m: String| FilterError::at(self.text, at, m);
            let member = match literal {
                Literal::Word(w) if w.contains("..") && w != ".." => {
                    let (low, high) = w.split_once("..").unwrap_or((w, w));
                    let low = single(&subject, &Literal::Word(low)).map_err(fail)?;
                    let high = single(&subject, &Literal::Word(high)).map_err(fail)?;
                    Member::Range(low, high)
                }
                literal if *self.peek() == Tok::Word("..") => {
                    self.bump();
                    let low = single(&subject, &literal).map_err(fail)?;
                    let (high, at) = self.literal(&subject)?;
                    let high =
                        single(&subject, &high).map_err(|m| FilterError::at(self.text, at, m))?;
                    Member::Range(low, high)
                }
                literal => match typed(&subject, &literal).map_err(fail)? {
                    Typed::Value(v) => Member::One(v),
                    Typed::Cidr(addr, bits) => Member::Cidr(addr, bits),
                    Typed::Text(text) => Member::Text(text),
                    Typed::Cnp => {
                        return Err(fail("write `kind == \"cnp\"`; a set cannot hold it".into()));
                    }
                    Typed::Bytes(b) => Member::Bytes(b),
                },
            };
            members.push(member);
        }
        if members.is_empty() {
            return Err(self.error_at(
                self.tokens[self.next - 1].at,
                "a set needs at least one member",
            ));
        }
        Ok(check(subject.entity, false, false, Test::In(members)))
    }

    fn contains(&mut self, subject: Subject) -> Result<Expr, FilterError> {
        let (literal, at) = self.literal(&subject)?;
        let needle = match (subject.ty, literal) {
            (Type::Str, Literal::Quoted(s)) => s.into_bytes(),
            (Type::Str, Literal::Word(w)) => w.as_bytes().to_vec(),
            (Type::Mac, Literal::Word(w)) => literal::bytes(w).map_err(|m| self.error_at(at, m))?,
            _ => {
                return Err(self.error_at(
                    at,
                    format!(
                        "`{}` is not a string or address; `contains` needs one",
                        subject.name
                    ),
                ));
            }
        };
        Ok(check(subject.entity, false, false, Test::Contains(needle)))
    }

    fn matches(&mut self, subject: Subject) -> Result<Expr, FilterError> {
        let (literal, at) = self.literal(&subject)?;
        let Literal::Quoted(pattern) = literal else {
            return Err(self.error_at(at, "`matches` takes a quoted regular expression"));
        };
        if subject.ty != Type::Str {
            return Err(self.error_at(
                at,
                format!("`{}` is not a string; `matches` needs one", subject.name),
            ));
        }
        // Case-insensitive, as Wireshark's `matches` is; `(?-i)` turns that off.
        let regex = regex::RegexBuilder::new(&pattern)
            .case_insensitive(true)
            .build()
            .map_err(|e| self.error_at(at, format!("bad regular expression: {e}")))?;
        Ok(check(subject.entity, false, false, Test::Matches(regex)))
    }

    fn bit_test(&mut self, subject: Subject) -> Result<Expr, FilterError> {
        let (literal, at) = self.literal(&subject)?;
        let slice = matches!(subject.entity, Entity::Slice(..));
        if subject.ty != Type::Int && !slice {
            return Err(self.error_at(
                at,
                format!("`{}` is not a number; `&` needs one", subject.name),
            ));
        }
        let Literal::Word(w) = literal else {
            return Err(self.error_at(at, format!("`{}` compares with a number", subject.name)));
        };
        let mask = literal::int(w).map_err(|m| self.error_at(at, m))?;
        Ok(check(subject.entity, false, false, Test::BitAnd(mask)))
    }
}

fn check(entity: Entity, negate: bool, all: bool, test: Test) -> Expr {
    Expr::Check(Box::new(Check {
        entity,
        all,
        negate,
        test,
    }))
}

enum Literal<'a> {
    Word(&'a str),
    Quoted(String),
}

enum Typed {
    Value(Value),
    Cidr(IpAddr, u8),
    /// A string field with an open set of values, compared with the literal's text.
    Text(String),
    /// `kind == "cnp"`: not a kind of its own, but BTH opcode 0x81.
    Cnp,
    Bytes(Vec<u8>),
}

/// One value, for a range's ends.
fn single(subject: &Subject, literal: &Literal<'_>) -> Result<Value, String> {
    match typed(subject, literal)? {
        Typed::Value(v) => Ok(v),
        _ => Err(format!(
            "a range's ends are single values of `{}`",
            subject.name
        )),
    }
}

/// The literal as a value of the subject's type, or what form was expected.
fn typed(subject: &Subject, literal: &Literal<'_>) -> Result<Typed, String> {
    let name = &subject.name;
    let wrong = || format!("`{name}` compares with {}", describe(subject.ty));
    if let Entity::Slice(..) = subject.entity {
        return match literal {
            Literal::Word(w) => literal::bytes(w).map(Typed::Bytes),
            Literal::Quoted(s) => Ok(Typed::Bytes(s.as_bytes().to_vec())),
        };
    }
    let value = match (subject.ty, literal) {
        (Type::Int, Literal::Word(w)) => Value::Int(literal::int(w)?),
        (Type::Bool, Literal::Word(w)) => Value::Bool(literal::boolean(w).map_err(|_| wrong())?),
        (Type::Ip, _) => {
            let text = match literal {
                Literal::Word(w) => w,
                Literal::Quoted(s) => s.as_str(),
            };
            return match literal::ip(text)? {
                (addr, Some(bits)) => Ok(Typed::Cidr(addr, bits)),
                (addr, None) => Ok(Typed::Value(Value::Ip(addr))),
            };
        }
        (Type::Mac, Literal::Word(w)) => Value::Mac(literal::mac(w)?),
        (Type::Mac, Literal::Quoted(s)) => Value::Mac(literal::mac(s)?),
        (Type::Time, Literal::Word(w)) => Value::Time(literal::time(w)?),
        (Type::Str, literal) => {
            let text = match literal {
                Literal::Word(w) => w,
                Literal::Quoted(s) => s.as_str(),
            };
            if let Entity::Case(..) = subject.entity {
                return Ok(Typed::Text(text.to_string()));
            }
            let Entity::Field(field) = subject.entity else {
                return Err(wrong());
            };
            if field.name == "kind" && text == "cnp" {
                return Ok(Typed::Cnp);
            }
            return match intern(field, text) {
                Interned::Known(known) => Ok(Typed::Value(Value::Str(known))),
                Interned::Open => Ok(Typed::Text(text.to_string())),
                Interned::Unknown(names) => Err(format!(
                    "`{text}` is not a value `{name}` can take: {}",
                    names.join(", ")
                )),
            };
        }
        _ => return Err(wrong()),
    };
    Ok(Typed::Value(value))
}

fn describe(ty: Type) -> &'static str {
    match ty {
        Type::Int => "a number",
        Type::Bool => "true, false, 0 or 1",
        Type::Str => "a string",
        Type::Ip => "an IP address or CIDR block",
        Type::Mac => "a MAC address",
        Type::Time => "seconds since the epoch",
    }
}

/// `i:n` (start and length), `i-j` (first and last), `i` (one byte), `i:` (to the end),
/// `:n` (the first n); a negative start counts from the end.
fn range(word: &str) -> Option<Range> {
    let int = |s: &str| s.parse::<i64>().ok();
    if let Some((start, len)) = word.split_once(':') {
        let start = if start.is_empty() { 0 } else { int(start)? };
        let len = if len.is_empty() {
            None
        } else {
            Some(usize::try_from(int(len)?).ok()?)
        };
        return Some(Range { start, len });
    }
    // `-` also starts a negative index, so `-3` alone is one byte from the end.
    if let Some((first, last)) = word.get(1..).and_then(|w| w.split_once('-')) {
        let first = int(&format!("{}{first}", &word[..1]))?;
        let last = int(last)?;
        let len = usize::try_from(last - first + 1).ok()?;
        return Some(Range {
            start: first,
            len: Some(len),
        });
    }
    Some(Range {
        start: int(word)?,
        len: Some(1),
    })
}

enum Interned {
    Known(&'static str),
    Unknown(Vec<&'static str>),
    /// The field's values are not a closed set.
    Open,
}

/// Most string fields take a fixed set of names; matching the literal against them here
/// tells the user at once about a typo.
fn intern(field: &Field, literal: &str) -> Interned {
    use crate::crc::CrcStatus;
    use crate::dissect::Kind;
    let names: Vec<&'static str> = match field.name {
        "kind" => Kind::ALL.iter().map(|k| k.name()).chain(["cnp"]).collect(),
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
    match names.iter().find(|n| **n == literal) {
        Some(known) => Interned::Known(known),
        None if field.name == "bth.opcode_name" => {
            Interned::Unknown(vec!["an opcode name such as RC_SEND_ONLY"])
        }
        None => Interned::Unknown(names),
    }
}
