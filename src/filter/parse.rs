//! The filter language, Wireshark 4's display-filter grammar for the fields rdmadump
//! decodes: `or`/`||` binds loosest, then `xor`/`^^`, then `and`/`&&`, then `not`/`!`, then
//! relations (`==`/`eq`/`any_eq`, `!=`/`ne`/`all_ne`, `~=`/`any_ne`, `===`/`all_eq`,
//! `<`/`lt`, `<=`/`le`, `>`/`gt`, `>=`/`ge`, `in {...}`, `not in {...}`, `contains`,
//! `matches`/`~`, `&`), entities (fields by rdmadump or Wireshark name, slices `[i:n]`,
//! `len()`, `lower()`, `upper()`), and bare literals. Names and literals are checked
//! against the field table here, before any capture is read.
//!
//! nom 8 parsers over the tokens of `lex.rs`, through [`Tokens`], which implements
//! `nom::Input` as `Bytes` does for the layers. An error the grammar commits to is a
//! `Failure` carrying its message and where it stands ([`Halt`]), so that no `alt` or
//! `opt` backtracks past it and puts another message in its place.
//!
//! Two parts call no combinator, for the stack. Operands joined by `and`, `or` and `xor`
//! are read in a loop and grouped by precedence afterwards, into flat lists, so a chain of
//! any length costs no stack. Parentheses, negations and function calls recurse, at most
//! `MAX_DEPTH` levels, between plain functions only: in a debug build every combinator on
//! the way down is a frame of its own. Written with `alt`, `flat_map`, `terminated` and a
//! `separated_list1` per precedence level, a parenthesis took 12.9 KiB of stack, and 256
//! of them overflowed a test thread's 2 MiB; now it takes 3.2 KiB (the hand-written parser
//! before, 4.8). The openers, operators and closers are nom parsers that have returned
//! before anything recurses.

use std::net::IpAddr;

use nom::branch::alt;
use nom::combinator::{eof, opt, peek, value};
use nom::error::{ErrorKind, ParseError};
use nom::multi::many_till;
use nom::sequence::{pair, preceded, terminated};
use nom::{Finish, IResult, Input, Parser};

use super::expr::{Check, Entity, Expr, Member, Op, Range, Source, Test};
use super::lex::{Tok, tokens};
use super::literal;
use super::names::{self, Naming};
use super::set::Set;
use super::tokens::{Tokens, spelled, token};
use crate::fields::{Field, Type, Value};

/// How deeply parentheses, negations and function calls may nest. The parser recurses once
/// per level, so a bound is what keeps a run of 20,000 `(` from overflowing the stack; no
/// filter a person writes comes near it.
pub const MAX_DEPTH: usize = 256;

/// A problem with the filter text; `column` is 1-based, counted in the whole text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    pub column: usize,
    pub message: String,
    pub text: String,
    /// The file the text was read from (`-Y @FILE`, `--filter-file`), if it was.
    pub file: Option<String>,
}

impl FilterError {
    pub(super) fn at(text: &str, offset: usize, message: String) -> Self {
        FilterError {
            column: offset + 1,
            message,
            text: text.to_string(),
            file: None,
        }
    }

    /// The same error, in the text of `file`.
    pub fn in_file(mut self, file: &str) -> Self {
        self.file = Some(file.to_string());
        self
    }
}

/// How much of the text to quote on either side of the column.
const CONTEXT: usize = 60;

impl std::fmt::Display for FilterError {
    /// Quotes the text under the message with a caret at the column, but only the part
    /// around the column: a generated filter can be 100 KB long, which would bury the
    /// caret and flood the terminal. A filter from a file is placed by line and column, and
    /// only its line is quoted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = &self.text;
        let mut at = (self.column - 1).min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let Some(file) = &self.file else {
            write!(
                f,
                "filter error at column {}: {}",
                self.column, self.message
            )?;
            return quote(f, text, at);
        };
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = text[..at].matches('\n').count() + 1;
        let column = text[line_start..at].chars().count() + 1;
        write!(
            f,
            "filter error in {file}, line {line} column {column}: {}",
            self.message
        )?;
        quote(f, &text[line_start..line_end], at - line_start)
    }
}

/// The text around byte `at`, and a caret under it.
fn quote(f: &mut std::fmt::Formatter<'_>, text: &str, at: usize) -> std::fmt::Result {
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
        "\n  {before}{}{after}\n  {:>caret$}",
        &text[start..end],
        "^"
    )
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

type Halted<'a> = Halt<Tokens<'a>>;
type Parsed<'a, O> = IResult<Tokens<'a>, O, Halted<'a>>;

pub fn parse(text: &str) -> Result<Expr, FilterError> {
    let tokens = tokens(text)?;
    let mut whole = terminated(
        |input| expression(0, input),
        must(eof, "unexpected text after the expression"),
    );
    match whole.parse(Tokens::new(&tokens)).finish() {
        Ok((_, expr)) => Ok(expr),
        Err(halt) => Err(FilterError::at(text, halt.at.offset(), halt.message)),
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

/// `parser`, committed: where it does not match, the error is what was `wanted`. At the
/// end of the text a missing closer is still named (`expected `)``), since that is the
/// fix; any other want there means the expression stopped early.
fn must<'a, O>(
    mut parser: impl Parser<Tokens<'a>, Output = O, Error = Halted<'a>>,
    wanted: &'static str,
) -> impl Parser<Tokens<'a>, Output = O, Error = Halted<'a>> {
    move |input: Tokens<'a>| match parser.parse(input) {
        Err(nom::Err::Error(_)) if input.input_len() == 0 && !wanted.starts_with("expected `") => {
            Err(Halt::failure(input, "expression ends too early"))
        }
        Err(nom::Err::Error(_)) => Err(Halt::failure(input, wanted)),
        done => done,
    }
}

/// `opener`, and the depth inside it. Past `MAX_DEPTH` the filter is refused at the
/// opener, before anything recurses.
fn opened<'a, O>(
    depth: usize,
    mut opener: impl Parser<Tokens<'a>, Output = O, Error = Halted<'a>>,
) -> impl Parser<Tokens<'a>, Output = (O, usize), Error = Halted<'a>> {
    move |input: Tokens<'a>| {
        let (rest, opened) = opener.parse(input)?;
        if depth >= MAX_DEPTH {
            let message = format!("filter nests deeper than {MAX_DEPTH} levels");
            return Err(Halt::failure(input, message));
        }
        Ok((rest, (opened, depth + 1)))
    }
}

/// The operators that join operands, loosest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    Or,
    Xor,
    And,
}

fn join(tok: &Tok<'_>) -> Option<Join> {
    match tok {
        Tok::Word("or") | Tok::Punct("||") => Some(Join::Or),
        Tok::Word("xor") | Tok::Punct("^^") => Some(Join::Xor),
        Tok::Word("and") | Tok::Punct("&&") => Some(Join::And),
        _ => None,
    }
}

/// Operands joined by `or`, `xor` and `and`, read in a loop however many there are, then
/// grouped by precedence into flat lists: evaluating and dropping a generated chain of
/// 100,000 clauses is then a loop too, not 100,000 nested calls.
fn expression<'a>(depth: usize, input: Tokens<'a>) -> Parsed<'a, Expr> {
    let (mut input, first) = operand(depth, input)?;
    let mut more = Vec::new();
    // `many0`, unrolled: what nests after an operator recurses through this loop, and in a
    // debug build many0's frame and the closure it calls take 2 KiB more a level (6.2 KiB
    // instead of 4.2 for `bth and (`, 1.6 MiB of a test thread's 2 MiB at 256 levels). An
    // operand fails only with a `Failure`, so an `Error` here means no operator follows.
    loop {
        match joined(depth, input) {
            Ok((rest, clause)) => {
                more.push(clause);
                input = rest;
            }
            Err(nom::Err::Error(_)) => return Ok((input, group(first, more))),
            Err(failure) => return Err(failure),
        }
    }
}

/// An operator and the operand after it.
fn joined<'a>(depth: usize, input: Tokens<'a>) -> Parsed<'a, (Join, Expr)> {
    let (after, join) = token(join).parse(input)?;
    let (rest, operand) = operand(depth, after)?;
    Ok((rest, (join, operand)))
}

/// Operands in the order written: `and` binds tightest, then `xor`, then `or`.
fn group(first: Expr, more: Vec<(Join, Expr)>) -> Expr {
    fn flat(mut all: Vec<Expr>, join: fn(Vec<Expr>) -> Expr) -> Expr {
        if all.len() == 1 {
            all.swap_remove(0)
        } else {
            join(all)
        }
    }
    let (mut any, mut one, mut all) = (Vec::new(), Vec::new(), vec![first]);
    for (join, operand) in more {
        if join != Join::And {
            one.push(flat(std::mem::take(&mut all), Expr::And));
        }
        if join == Join::Or {
            any.push(flat(std::mem::take(&mut one), Expr::Xor));
        }
        all.push(operand);
    }
    one.push(flat(all, Expr::And));
    any.push(flat(one, Expr::Xor));
    flat(any, Expr::Or)
}

#[derive(Debug, Clone, Copy)]
enum Opener {
    Not,
    Parenthesis,
}

/// `!`, `not` or `(`, and the depth after it.
fn opener<'a>(depth: usize, input: Tokens<'a>) -> Parsed<'a, Option<(Opener, usize)>> {
    let opener = alt((
        value(Opener::Not, spelled(&["!", "not"])),
        value(Opener::Parenthesis, spelled(&["("])),
    ));
    opt(opened(depth, opener)).parse(input)
}

fn closer<'a>(input: Tokens<'a>) -> Parsed<'a, ()> {
    let (rest, _) = must(spelled(&[")"]), "expected `)`").parse(input)?;
    Ok((rest, ()))
}

/// Where the grammar recurses, so a plain function (a parser type cannot contain itself),
/// and one that calls no combinator while it recurses: in a debug build each would be a
/// stack frame more per level. The openers are read by `opener`, which has returned by then.
fn operand<'a>(depth: usize, input: Tokens<'a>) -> Parsed<'a, Expr> {
    let (inside, opener) = opener(depth, input)?;
    match opener {
        Some((Opener::Not, depth)) => {
            let (rest, inner) = operand(depth, inside)?;
            Ok((rest, Expr::Not(Box::new(inner))))
        }
        Some((Opener::Parenthesis, depth)) => {
            let (after, inner) = expression(depth, inside)?;
            let (rest, ()) = closer(after)?;
            Ok((rest, inner))
        }
        None => relation(depth, input),
    }
}

/// What follows a subject in a relation.
#[derive(Clone, Copy)]
enum Verb {
    /// A comparison operator, with whether it must hold for all occurrences.
    Compare(Op, bool),
    In,
    NotIn,
    Contains,
    Matches,
    BitAnd,
}

fn verb<'a>(input: Tokens<'a>) -> Parsed<'a, Verb> {
    alt((
        token(comparison).map(|(op, all)| Verb::Compare(op, all)),
        value(Verb::In, spelled(&["in"])),
        value(Verb::NotIn, pair(spelled(&["not"]), spelled(&["in"]))),
        value(Verb::Contains, spelled(&["contains"])),
        value(Verb::Matches, spelled(&["matches", "~"])),
        value(Verb::BitAnd, spelled(&["&", "bitwise_and"])),
    ))
    .parse(input)
}

fn comparison(tok: &Tok<'_>) -> Option<(Op, bool)> {
    let (Tok::Punct(spelling) | Tok::Word(spelling)) = tok else {
        return None;
    };
    Some(match *spelling {
        "==" | "eq" | "any_eq" => (Op::Eq, false),
        "!=" | "ne" | "all_ne" => (Op::Ne, true),
        "~=" | "any_ne" => (Op::Ne, false),
        "===" | "all_eq" => (Op::Eq, true),
        "<" | "lt" => (Op::Lt, false),
        "<=" | "le" => (Op::Le, false),
        ">" | "gt" => (Op::Gt, false),
        ">=" | "ge" => (Op::Ge, false),
        _ => return None,
    })
}

fn relation<'a>(depth: usize, input: Tokens<'a>) -> Parsed<'a, Expr> {
    peek(must(field_word(), "expected a field name, `!` or `(`")).parse(input)?;
    let (at, (subject, naming)) = subject(depth, input)?;
    let (rest, verb) = opt(verb).parse(at)?;
    let Some(verb) = verb else {
        return Ok((rest, exists(subject, naming)));
    };
    if subject.ty == Type::Protocol {
        let message = format!(
            "`{}` is a protocol: test it alone (`{0}`, `!{0}`), or compare one of its fields",
            subject.name
        );
        return Err(Halt::failure(at, message));
    }
    match verb {
        Verb::Compare(op, all) => compare(subject, op, all, at, rest),
        Verb::In => set(subject, rest),
        Verb::NotIn => {
            let (rest, set) = set(subject, rest)?;
            Ok((rest, Expr::Not(Box::new(set))))
        }
        Verb::Contains => contains(subject, rest),
        Verb::Matches => matches(subject, rest),
        Verb::BitAnd => bit_test(subject, rest),
    }
}

/// A bare subject: a field is present (and, for an rdmadump flag, set).
fn exists(subject: Subject, naming: Naming) -> Expr {
    match subject.entity {
        Entity::Field(field) if naming == Naming::Rdmadump => Expr::Test(field),
        Entity::Field(field) => Expr::Exists(field),
        entity => check(entity, false, false, Test::Exists),
    }
}

/// A word that can name a field: not a number, not a keyword.
fn field_word<'a>() -> impl Parser<Tokens<'a>, Output = &'a str, Error = Halted<'a>> {
    token(|tok| match *tok {
        Tok::Word(word)
            if !word.starts_with(|c: char| c.is_ascii_digit()) && !KEYWORDS.contains(&word) =>
        {
            Some(word)
        }
        _ => None,
    })
}

/// A field, a slice of one, or a function of one.
fn subject<'a>(depth: usize, input: Tokens<'a>) -> Parsed<'a, (Subject, Naming)> {
    let (inside, call) = function(depth, input)?;
    let Some((name, depth)) = call else {
        return field_or_slice(input);
    };
    let (after, (inner, naming)) = subject(depth, inside)?;
    let (rest, ()) = closer(after)?;
    let subject = applied(name, inner).map_err(|message| Halt::failure(input, message))?;
    Ok((rest, (subject, naming)))
}

/// `len(`, `lower(` or `upper(`: the function's name, and the depth inside it.
fn function<'a>(depth: usize, input: Tokens<'a>) -> Parsed<'a, Option<(&'a str, usize)>> {
    let name = token(|tok| match *tok {
        Tok::Word(name @ ("len" | "lower" | "upper")) => Some(name),
        _ => None,
    });
    opt(opened(depth, terminated(name, spelled(&["("])))).parse(input)
}

/// The function `name` of `inner`.
fn applied(name: &str, inner: Subject) -> Result<Subject, String> {
    let Entity::Field(field) = inner.entity else {
        return Err(format!("`{name}()` takes a field"));
    };
    match name {
        "len" => Ok(Subject {
            entity: Entity::Len(field),
            ty: Type::Int,
            name: format!("len({})", inner.name),
        }),
        _ if field.ty != Type::Str => Err(format!(
            "`{name}()` takes a string field; `{}` is not one",
            inner.name
        )),
        _ => Ok(Subject {
            entity: Entity::Case(field, name == "upper"),
            ty: Type::Str,
            name: format!("{name}({})", inner.name),
        }),
    }
}

fn field_or_slice<'a>(input: Tokens<'a>) -> Parsed<'a, (Subject, Naming)> {
    let (rest, word) = must(field_word(), "expected a field name").parse(input)?;
    let Some((field, naming)) = names::resolve(word) else {
        return Err(Halt::failure(input, names::unknown(word)));
    };
    let (inside, bracket) = opt(spelled(&["["])).parse(rest)?;
    if bracket.is_none() {
        let subject = Subject {
            entity: Entity::Field(field),
            ty: field.ty,
            name: word.to_string(),
        };
        return Ok((rest, (subject, naming)));
    }
    let source = if field.name == "frame" {
        Source::Frame
    } else if matches!(field.ty, Type::Mac | Type::Ip) || field.bytes > 0 {
        Source::Field(field)
    } else {
        let message = "only addresses, byte fields and `frame` (its bytes) can be sliced";
        return Err(Halt::failure(rest, message));
    };
    let slice = token(|tok| match *tok {
        Tok::Word(word) => Some(word),
        _ => None,
    });
    let no_slice = |at| Err(Halt::failure(at, "expected a slice such as [0:3]"));
    let (after, slice) = alt((slice, no_slice)).parse(inside)?;
    let Some(range) = range(slice) else {
        let message = format!("`{slice}` is not a slice: write [i:n], [i-j], [i] or [i:]");
        return Err(Halt::failure(inside, message));
    };
    let (rest, _) = must(spelled(&["]"]), "expected `]`").parse(after)?;
    let subject = Subject {
        entity: Entity::Slice(source, range),
        ty: Type::Mac,
        name: format!("{word}[...]"),
    };
    Ok((rest, (subject, naming)))
}

/// The literal after an operator: a word or a quoted string.
fn literal<'a>(subject: &Subject, input: Tokens<'a>) -> Parsed<'a, Literal<'a>> {
    let value = token(|tok| match tok {
        Tok::Word(word) => Some(Literal::Word(word)),
        Tok::Str(text) => Some(Literal::Quoted(text.clone())),
        _ => None,
    });
    let wrong = |at: Tokens<'a>| {
        let message = if at.input_len() == 0 {
            "expected a value after the operator".to_string()
        } else {
            format!("`{}` compares with {}", subject.name, describe(subject.ty))
        };
        Err(Halt::failure(at, message))
    };
    alt((value, wrong)).parse(input)
}

/// `at` is the operator, `input` what follows it.
fn compare<'a>(
    subject: Subject,
    op: Op,
    all: bool,
    at: Tokens<'a>,
    input: Tokens<'a>,
) -> Parsed<'a, Expr> {
    let (rest, literal) = literal(&subject, input)?;
    let ordered = !matches!(op, Op::Eq | Op::Ne);
    let only_equality = || {
        let message = format!("`{}` supports only == and !=", subject.name);
        Err(Halt::failure(at, message))
    };
    if ordered && subject.ty == Type::Bool {
        return only_equality();
    }
    let fail = |message: String| Err(Halt::failure(input, message));
    let typed = typed(&subject, &literal);
    if let Ok(Typed::Value(Value::Ip(IpAddr::V6(_))) | Typed::Cidr(IpAddr::V6(_), _)) = typed {
        ipv4_only(&subject).map_err(fail_at(input))?;
    }
    let value = match typed {
        Ok(Typed::Value(value)) => value,
        Ok(Typed::Cidr(addr, bits)) if !ordered => {
            let test = Test::Cidr(addr, bits);
            return Ok((rest, check(subject.entity, op == Op::Ne, all, test)));
        }
        Ok(Typed::Cidr(..)) => {
            return fail("a CIDR block compares only with == and !=".into());
        }
        Ok(Typed::Text(text)) if !ordered => {
            let test = Test::Text(text);
            return Ok((rest, check(subject.entity, op == Op::Ne, all, test)));
        }
        Ok(Typed::Text(_)) => return only_equality(),
        Ok(Typed::Cnp) => {
            let cnp = Expr::Compare(
                names::resolve("bth.opcode")
                    .expect("bth.opcode is a field")
                    .0,
                Op::Eq,
                Value::Int(u64::from(crate::wire::opcode::CNP)),
            );
            return match op {
                Op::Eq => Ok((rest, cnp)),
                Op::Ne => Ok((rest, Expr::Not(Box::new(cnp)))),
                _ => Err(Halt::failure(at, "`kind` supports only == and !=")),
            };
        }
        Ok(Typed::Bytes(bytes)) => {
            let test = Test::Bytes(op, bytes);
            return Ok((rest, check(as_bytes(subject.entity), false, all, test)));
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
                    let test = Test::Field(op, other);
                    Ok((rest, check(subject.entity, false, all, test)))
                }
                _ => fail(message),
            };
        }
    };
    let expr = match subject.entity {
        // One occurrence, or any of several: the plain comparison, the common case.
        Entity::Field(field) if !all || field.each.is_none() => Expr::Compare(field, op, value),
        entity => check(entity, false, all, Test::Compare(op, value)),
    };
    Ok((rest, expr))
}

/// `{...}` after `in`: members, each a value, a CIDR block or a range.
fn set<'a>(subject: Subject, input: Tokens<'a>) -> Parsed<'a, Expr> {
    let (input, _) = must(spelled(&["{"]), "expected `{`").parse(input)?;
    let empty = |at: Tokens<'a>| {
        spelled(&["}"]).parse(at)?;
        Err(Halt::failure(at, "a set needs at least one member"))
    };
    let one = |input| member(&subject, input);
    // Wireshark 4 separates members with commas, Wireshark 3 with blanks.
    let more = many_till(preceded(opt(spelled(&[","])), one), spelled(&["}"]));
    let (rest, (first, (more, _))) = alt((empty, pair(one, more))).parse(input)?;
    let members: Vec<Member> = std::iter::once(first).chain(more).collect();
    // A field Wireshark shows as bytes is looked up as bytes, its numbers too.
    if let Entity::Field(field) = subject.entity
        && field.bytes > 0
    {
        let width = usize::from(field.bytes).min(8);
        let members = members
            .into_iter()
            .map(|m| match m {
                Member::One(Value::Int(n)) => Member::Bytes(n.to_be_bytes()[8 - width..].to_vec()),
                m => m,
            })
            .collect();
        let test = Test::In(Set::new(members));
        return Ok((rest, check(as_bytes(subject.entity), false, false, test)));
    }
    Ok((
        rest,
        check(subject.entity, false, false, Test::In(Set::new(members))),
    ))
}

/// A value, a CIDR block, or a range (`1..5` or `1 .. 5`). At the end of the text what
/// is missing is the set's `}`, not a value.
fn member<'a>(subject: &Subject, input: Tokens<'a>) -> Parsed<'a, Member> {
    if input.input_len() == 0 {
        return Err(Halt::failure(input, "expected `}`"));
    }
    let (rest, value) = literal(subject, input)?;
    let fail = |message| Halt::failure(input, message);
    if let Literal::Word(w) = value
        && w.contains("..")
        && w != ".."
    {
        let (low, high) = w.split_once("..").unwrap_or((w, w));
        let low = single(subject, &Literal::Word(low)).map_err(fail)?;
        let high = single(subject, &Literal::Word(high)).map_err(fail)?;
        return Ok((rest, Member::Range(low, high)));
    }
    let (after, dots) = opt(spelled(&[".."])).parse(rest)?;
    if dots.is_some() {
        let low = single(subject, &value).map_err(fail)?;
        let (after_high, high) = literal(subject, after)?;
        let high = single(subject, &high).map_err(|m| Halt::failure(after, m))?;
        return Ok((after_high, Member::Range(low, high)));
    }
    let typed = typed(subject, &value).map_err(fail)?;
    if let Typed::Value(Value::Ip(IpAddr::V6(_))) | Typed::Cidr(IpAddr::V6(_), _) = typed {
        ipv4_only(subject).map_err(fail)?;
    }
    let member = match typed {
        Typed::Value(v) => Member::One(v),
        Typed::Cidr(addr, bits) => Member::Cidr(addr, bits),
        Typed::Text(text) => Member::Text(text),
        Typed::Cnp => {
            return Err(fail("write `kind == \"cnp\"`; a set cannot hold it".into()));
        }
        Typed::Bytes(b) => Member::Bytes(b),
    };
    Ok((rest, member))
}

fn contains<'a>(subject: Subject, input: Tokens<'a>) -> Parsed<'a, Expr> {
    let (rest, literal) = literal(&subject, input)?;
    let fail = |message| Halt::failure(input, message);
    let frame = matches!(subject.entity, Entity::Field(f) if f.name == "frame");
    let bytes = frame || matches!(subject.entity, Entity::Slice(..));
    let needle = match (subject.ty, literal) {
        (_, Literal::Quoted(s)) if bytes => latin1(&s).map_err(fail)?,
        (_, Literal::Word(w)) if bytes => literal::bytes(w).map_err(fail)?,
        (Type::Str, Literal::Quoted(s)) => s.into_bytes(),
        (Type::Str, Literal::Word(w)) => w.as_bytes().to_vec(),
        (Type::Mac, Literal::Word(w)) => literal::bytes(w).map_err(fail)?,
        _ => {
            return Err(fail(format!(
                "`{}` is not a string or address; `contains` needs one",
                subject.name
            )));
        }
    };
    let test = Test::Contains(needle);
    let entity = match subject.entity {
        // Wireshark's `frame contains`: the frame's bytes, as `frame[...]` has them.
        Entity::Field(_) if frame => Entity::Slice(Source::Frame, Range::WHOLE),
        entity => entity,
    };
    Ok((rest, check(entity, false, false, test)))
}

fn matches<'a>(subject: Subject, input: Tokens<'a>) -> Parsed<'a, Expr> {
    let (rest, literal) = literal(&subject, input)?;
    let fail = |message| Halt::failure(input, message);
    let Literal::Quoted(pattern) = literal else {
        return Err(fail("`matches` takes a quoted regular expression".into()));
    };
    if subject.ty != Type::Str {
        let message = format!("`{}` is not a string; `matches` needs one", subject.name);
        return Err(fail(message));
    }
    // Case-insensitive, as Wireshark's `matches` is; `(?-i)` turns that off.
    let regex = regex::RegexBuilder::new(&pattern)
        .case_insensitive(true)
        .build()
        .map_err(|e| fail(format!("bad regular expression: {e}")))?;
    let test = Test::Matches(regex);
    Ok((rest, check(subject.entity, false, false, test)))
}

fn bit_test<'a>(subject: Subject, input: Tokens<'a>) -> Parsed<'a, Expr> {
    let (rest, literal) = literal(&subject, input)?;
    let fail = |message| Halt::failure(input, message);
    let slice = matches!(subject.entity, Entity::Slice(..));
    if subject.ty != Type::Int && !slice {
        let message = format!("`{}` is not a number; `&` needs one", subject.name);
        return Err(fail(message));
    }
    let Literal::Word(w) = literal else {
        return Err(fail(format!("`{}` compares with a number", subject.name)));
    };
    let mask = literal::int(w).map_err(fail)?;
    Ok((
        rest,
        check(subject.entity, false, false, Test::BitAnd(mask)),
    ))
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
            Literal::Quoted(s) => latin1(s).map(Typed::Bytes),
        };
    }
    // An integer Wireshark shows as bytes compares with a byte string as Wireshark's does:
    // `infiniband.immdt == 11:22:33:44` or `== "\x11\x22\x33\x44"`.
    if let Entity::Field(field) = subject.entity
        && field.bytes > 0
    {
        match literal {
            Literal::Word(w) if w.contains(':') => return literal::bytes(w).map(Typed::Bytes),
            Literal::Quoted(s) => return latin1(s).map(Typed::Bytes),
            Literal::Word(_) => {}
        }
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
        // Wireshark's absolute-time literal, in quotes: `"2024-05-01 10:00:00"`.
        (Type::Time, Literal::Quoted(s)) => {
            Value::Time(super::time::absolute(s).ok_or_else(|| {
                format!(
                    "`{s}` is not a time: write \"2024-05-01 10:00:00.5\", \"May  1, 2024 \
                     10:00:00\" (both UTC), 2024-05-01T10:00:00Z or epoch seconds"
                )
            })?)
        }
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

/// A quoted byte string: each character one byte, as `\xhh` escapes write them.
fn latin1(text: &str) -> Result<Vec<u8>, String> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| format!("`{text}` is not a byte string: write its bytes as \\xhh"))
}

/// A field compared as bytes: the whole of it, as a slice.
fn as_bytes(entity: Entity) -> Entity {
    match entity {
        Entity::Field(field) => Entity::Slice(Source::Field(field), Range::WHOLE),
        entity => entity,
    }
}

/// `ip.*` are IPv4's, as in Wireshark: an IPv6 literal there is a mistake to name, not a
/// comparison that silently matches nothing.
fn ipv4_only(subject: &Subject) -> Result<(), String> {
    let Entity::Field(field) = subject.entity else {
        return Ok(());
    };
    let Some(leaf) = field.name.strip_prefix("ip.") else {
        return Ok(());
    };
    let either = if leaf == "addr" {
        "addr".to_string()
    } else {
        format!("addr.{leaf}")
    };
    Err(format!(
        "`{}` is IPv4's, as in Wireshark: for IPv6 write `ipv6.{leaf}`, for either version `{either}`",
        subject.name
    ))
}

fn fail_at<'a>(at: Tokens<'a>) -> impl Fn(String) -> nom::Err<Halted<'a>> {
    move |message| Halt::failure(at, message)
}

fn describe(ty: Type) -> &'static str {
    match ty {
        Type::Int => "a number",
        Type::Bool => "true, false, 0 or 1",
        Type::Str => "a string",
        Type::Ip => "an IP address or CIDR block",
        Type::Mac => "a MAC address",
        Type::Time => "seconds since the epoch or a quoted date",
        Type::Protocol => "nothing: a protocol is tested alone",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A branch that takes any token, for `alt` to fall back on.
    fn anything<'a>() -> impl Parser<Tokens<'a>, Output = Option<Expr>, Error = Halted<'a>> {
        token(|_| Some(None))
    }

    #[test]
    fn a_committed_error_keeps_its_message_inside_alt() {
        let all = tokens("bth.psn == \"1\"").unwrap();
        let input = Tokens::new(&all);
        let relation = |input| relation(0, input).map(|(rest, expr)| (rest, Some(expr)));
        let Err(nom::Err::Failure(halt)) = alt((relation, anything())).parse(input) else {
            panic!("the fallback replaced the relation's error");
        };
        assert_eq!(
            (halt.at.offset(), halt.message.as_str()),
            (11, "`bth.psn` compares with a number")
        );
        // A mere mismatch lets `alt` try the next branch; a committed one does not.
        let paren = || spelled(&["("]).map(|_| None);
        assert!(alt((paren(), anything())).parse(input).is_ok());
        let Err(nom::Err::Failure(halt)) =
            alt((must(paren(), "expected `(`"), anything())).parse(input)
        else {
            panic!("`must` did not commit");
        };
        assert_eq!(
            (halt.at.offset(), halt.message.as_str()),
            (0, "expected `(`")
        );
    }

    #[test]
    fn precedence_groups_flat_lists() {
        let shape = |text: &str| {
            fn shape(expr: &Expr) -> String {
                let list = |name, all: &[Expr]| {
                    let inner: Vec<String> = all.iter().map(shape).collect();
                    format!("{name}({})", inner.join(" "))
                };
                match expr {
                    Expr::Or(all) => list("or", all),
                    Expr::Xor(all) => list("xor", all),
                    Expr::And(all) => list("and", all),
                    Expr::Not(inner) => format!("not {}", shape(inner)),
                    _ => "x".into(),
                }
            }
            shape(&parse(text).unwrap())
        };
        assert_eq!(shape("bth"), "x");
        assert_eq!(shape("bth and bth && bth"), "and(x x x)");
        assert_eq!(
            shape("bth and bth or bth xor bth and bth or !bth"),
            "or(and(x x) xor(x and(x x)) not x)"
        );
        assert_eq!(shape("bth ^^ (bth || bth) ^^ bth"), "xor(x or(x x) x)");
    }
}
