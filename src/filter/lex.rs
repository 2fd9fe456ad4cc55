//! Splits filter text into tokens. Field names and bare literals (numbers, addresses, CIDR
//! blocks, MACs, byte strings, ranges) are all one kind of token, a word: which one a word
//! is depends on the field it is compared with, and the parser decides that.

use super::parse::FilterError;

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

/// Longest first, so that `===` is not read as `==` then `=`.
const PUNCTS: &[&str] = &[
    "===", "==", "!=", "~=", "<=", ">=", "&&", "||", "^^", "<", ">", "!", "&", "~", "(", ")", "{",
    "}", "[", "]", ",",
];

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-' | b'/')
}

pub fn tokens(text: &str) -> Result<Vec<Token<'_>>, FilterError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        } else if is_word(c) {
            let start = i;
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            out.push(Token {
                at: start,
                tok: Tok::Word(&text[start..i]),
            });
        } else if c == b'"' {
            let (value, end) = string(text, i)?;
            out.push(Token {
                at: i,
                tok: Tok::Str(value),
            });
            i = end;
        } else if let Some(p) = PUNCTS.iter().find(|p| text[i..].starts_with(**p)) {
            out.push(Token {
                at: i,
                tok: Tok::Punct(p),
            });
            i += p.len();
        } else {
            let c = text[i..].chars().next().unwrap_or('?');
            return Err(FilterError::at(text, i, format!("unexpected `{c}`")));
        }
    }
    out.push(Token {
        at: text.len(),
        tok: Tok::End,
    });
    Ok(out)
}

/// The string opening at `start`, and the offset after its closing quote. Escapes as in
/// Wireshark: `\"`, `\\`, `\n`, `\t`, `\r`, `\xhh` and octal `\ooo`.
fn string(text: &str, start: usize) -> Result<(String, usize), FilterError> {
    let mut value = String::new();
    let mut chars = text[start + 1..].char_indices();
    let unclosed = || FilterError::at(text, start, "string is not closed".to_string());
    while let Some((offset, c)) = chars.next() {
        match c {
            '"' => return Ok((value, start + 1 + offset + 1)),
            '\\' => {
                let (at, escaped) = chars.next().ok_or_else(unclosed)?;
                let bad = || {
                    FilterError::at(
                        text,
                        start + 1 + at - 1,
                        "unknown escape: use \\\", \\\\, \\n, \\t, \\r, \\xhh or \\ooo".to_string(),
                    )
                };
                match escaped {
                    '"' | '\\' => value.push(escaped),
                    'n' => value.push('\n'),
                    't' => value.push('\t'),
                    'r' => value.push('\r'),
                    'x' => {
                        let digits: String = chars.clone().take(2).map(|(_, c)| c).collect();
                        let byte = u8::from_str_radix(&digits, 16).map_err(|_| bad())?;
                        chars.nth(1);
                        value.push(char::from(byte));
                    }
                    '0'..='7' => {
                        let rest: String = chars.clone().take(2).map(|(_, c)| c).collect();
                        let digits = format!("{escaped}{rest}");
                        let byte = u8::from_str_radix(&digits, 8).map_err(|_| bad())?;
                        chars.nth(1);
                        value.push(char::from(byte));
                    }
                    _ => return Err(bad()),
                }
            }
            _ => value.push(c),
        }
    }
    Err(unclosed())
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
}
