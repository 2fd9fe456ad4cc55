//! Splits filter text into tokens, with nom 8 parsers over `&str`; the grammar in
//! `parse.rs` runs nom over the tokens. Field names and bare literals (numbers, addresses,
//! CIDR blocks, MACs, byte strings, ranges) are all one kind of token, a word: which one a
//! word is depends on the field it is compared with, which only the grammar knows, so the
//! lexer does not try.

use nom::branch::alt;
use nom::bytes::complete::{tag, take, take_while1};
use nom::character::complete::{anychar, char, multispace0, none_of, one_of};
use nom::combinator::{peek, recognize, rest, value};
use nom::multi::{fold, many0};
use nom::sequence::{pair, preceded, terminated};
use nom::{Finish, IResult, Parser};

use super::parse::{FilterError, Halt};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok<'a> {
    Word(&'a str),
    /// A double-quoted string, escapes resolved.
    Str(String),
    Punct(&'static str),
    End,
}

#[derive(Debug)]
pub struct Token<'a> {
    /// Byte offset in the filter text.
    pub at: usize,
    pub tok: Tok<'a>,
}

type Lexed<'a, O> = IResult<&'a str, O, Halt<&'a str>>;

/// Longest first, so that `===` is not read as `==` then `=`.
const PUNCTS: [&str; 21] = [
    "===", "==", "!=", "~=", "<=", ">=", "&&", "||", "^^", "<", ">", "!", "&", "~", "(", ")", "{",
    "}", "[", "]", ",",
];

const UNKNOWN_ESCAPE: &str = "unknown escape: use \\\", \\\\, \\n, \\t, \\r, \\xhh or \\ooo";

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-' | '/')
}

pub fn tokens<'a>(text: &'a str) -> Result<Vec<Token<'a>>, FilterError> {
    let token = |input: &'a str| {
        let at = text.len() - input.len();
        let tok = alt((word, string, punct));
        tok.map(|tok| Token { at, tok }).parse(input)
    };
    let lexed = terminated(
        many0(preceded(multispace0, token)),
        preceded(multispace0, end),
    )
    .parse(text)
    .finish();
    let mut out = match lexed {
        Ok((_, out)) => out,
        // `halt.at` is the rest of the text, from where the error is.
        Err(halt) => {
            return Err(FilterError::at(
                text,
                text.len() - halt.at.len(),
                halt.message,
            ));
        }
    };
    out.push(Token {
        at: text.len(),
        tok: Tok::End,
    });
    Ok(out)
}

/// The end of the text; anything else there is no token at all.
fn end(input: &str) -> Lexed<'_, ()> {
    match input.chars().next() {
        None => Ok((input, ())),
        Some(c) => Err(Halt::failure(input, format!("unexpected `{c}`"))),
    }
}

fn word(input: &str) -> Lexed<'_, Tok<'_>> {
    take_while1(is_word).map(Tok::Word).parse(input)
}

fn punct(input: &str) -> Lexed<'_, Tok<'_>> {
    alt(PUNCTS.map(|p| value(Tok::Punct(p), tag(p)))).parse(input)
}

/// A double-quoted string. Escapes as in Wireshark: `\"`, `\\`, `\n`, `\t`, `\r`, `\xhh`
/// and octal `\ooo`.
fn string(input: &str) -> Lexed<'_, Tok<'_>> {
    let (body, _) = char('"').parse(input)?;
    let (after, value) = fold(
        0..,
        alt((none_of("\"\\"), escape)),
        String::new,
        |mut value, c| {
            value.push(c);
            value
        },
    )
    .parse(body)?;
    match char::<_, Halt<&str>>('"').parse(after) {
        Ok((after, _)) => Ok((after, Tok::Str(value))),
        Err(_) => Err(Halt::failure(input, "string is not closed")),
    }
}

/// One escape, at its backslash. A backslash that ends the text is no escape: the string
/// is left open, which is the error to report.
fn escape(input: &str) -> Lexed<'_, char> {
    let (escaped, _) = terminated(char('\\'), peek(anychar)).parse(input)?;
    escaped_char(escaped).map_err(|_| Halt::failure(input, UNKNOWN_ESCAPE))
}

fn escaped_char(input: &str) -> Lexed<'_, char> {
    let byte = |radix| move |digits: &str| u8::from_str_radix(digits, radix).ok();
    alt((
        value('"', char('"')),
        value('\\', char('\\')),
        value('\n', char('n')),
        value('\t', char('t')),
        value('\r', char('r')),
        preceded(char('x'), up_to_two.map_opt(byte(16))).map(char::from),
        recognize(pair(one_of("01234567"), up_to_two))
            .map_opt(byte(8))
            .map(char::from),
    ))
    .parse(input)
}

/// The digits of `\xhh` or `\ooo` after the first: two characters, or as many as are left,
/// for `from_str_radix` to judge: `\x4` at the very end of the text is byte 4 (and then
/// the string is not closed), `\x4"` an unknown escape.
fn up_to_two(input: &str) -> Lexed<'_, &str> {
    alt((take(2usize), rest)).parse(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Tok<'_>> {
        tokens(text).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn splits_words_punctuation_and_strings() {
        assert_eq!(
            words("ip.src==10.0.0.0/8&&!eth.src[0:3] in {1..2, \"a\\\"b\\x41\\101\"}"),
            vec![
                Tok::Word("ip.src"),
                Tok::Punct("=="),
                Tok::Word("10.0.0.0/8"),
                Tok::Punct("&&"),
                Tok::Punct("!"),
                Tok::Word("eth.src"),
                Tok::Punct("["),
                Tok::Word("0:3"),
                Tok::Punct("]"),
                Tok::Word("in"),
                Tok::Punct("{"),
                Tok::Word("1..2"),
                Tok::Punct(","),
                Tok::Str("a\"bAA".into()),
                Tok::Punct("}"),
                Tok::End,
            ]
        );
        assert_eq!(words("a === b")[1], Tok::Punct("==="));
    }

    #[test]
    fn reports_bad_text_where_it_is() {
        let err = tokens("bth.psn == 1 $").unwrap_err();
        assert_eq!((err.column, err.message.as_str()), (14, "unexpected `$`"));
        let err = tokens("kind == \"pfc").unwrap_err();
        assert_eq!(
            (err.column, err.message.as_str()),
            (9, "string is not closed")
        );
        let err = tokens("kind == \"a\\qb\"").unwrap_err();
        assert_eq!(err.column, 11);
    }

    #[test]
    fn escapes_read_at_most_three_characters() {
        assert_eq!(
            words("\"\\101\\x41\\x7e\\\\\\n\\377\" \"\\xff\"")[..2],
            [Tok::Str("AA~\\\n\u{ff}".into()), Tok::Str("\u{ff}".into())]
        );
        for (text, column, message) in [
            // Whatever ends the text inside a string leaves it open.
            ("a == \"b\\", 6, "string is not closed"),
            ("a == \"b\\x4", 6, "string is not closed"),
            ("a == \"b\\1", 6, "string is not closed"),
            // Before the closing quote, `\x` takes two digits and octal three.
            ("a == \"b\\x4\"", 8, UNKNOWN_ESCAPE),
            ("a == \"b\\7\"", 8, UNKNOWN_ESCAPE),
            ("a == \"b\\400\"", 8, UNKNOWN_ESCAPE),
            ("a == \"b\\x\"", 8, UNKNOWN_ESCAPE),
            ("a == \"é\\q\"", 9, UNKNOWN_ESCAPE),
        ] {
            let err = tokens(text).unwrap_err();
            assert_eq!(
                (err.column, err.message.as_str()),
                (column, message),
                "{text}"
            );
        }
    }
}
