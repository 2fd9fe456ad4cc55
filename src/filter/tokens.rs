//! The input the `-Y` grammar's nom parsers run over: the lexer's tokens, as `Bytes` is for
//! the layers. Every token keeps its byte offset in the filter text, so wherever a parser
//! stops, the input it stopped at says which column to report.

use nom::bytes::complete::take;
use nom::error::ParseError;
use nom::{Input, Needed, Parser};

use super::lex::{Tok, Token};

#[derive(Debug, Clone, Copy)]
pub struct Tokens<'a> {
    /// Every token of the filter, ending with `Tok::End`. The end token is never an element:
    /// it is kept so that an input that has run out still knows where in the text it is.
    all: &'a [Token<'a>],
    /// Index of this input's first token.
    next: usize,
    /// One past its last token; at most the index of `Tok::End`.
    end: usize,
}

impl<'a> Tokens<'a> {
    /// `all` as `lex::tokens` gives it, ending with `Tok::End`.
    pub fn new(all: &'a [Token<'a>]) -> Self {
        debug_assert!(matches!(all.last(), Some(Token { tok: Tok::End, .. })));
        Tokens {
            all,
            next: 0,
            end: all.len().saturating_sub(1),
        }
    }

    /// Byte offset in the filter text of the next token, or where the input ends.
    pub fn offset(&self) -> usize {
        self.all[self.next].at
    }

    fn rest(&self) -> &'a [Token<'a>] {
        &self.all[self.next..self.end]
    }

    fn at(&self, index: usize) -> usize {
        self.next.saturating_add(index).min(self.end)
    }
}

/// Past the end, `take` and `take_from` stop at it rather than panic as a slice would.
impl<'a> Input for Tokens<'a> {
    type Item = &'a Token<'a>;
    type Iter = std::slice::Iter<'a, Token<'a>>;
    type IterIndices = std::iter::Enumerate<Self::Iter>;

    fn input_len(&self) -> usize {
        self.end - self.next
    }

    fn take(&self, index: usize) -> Self {
        Tokens {
            end: self.at(index),
            ..*self
        }
    }

    fn take_from(&self, index: usize) -> Self {
        Tokens {
            next: self.at(index),
            ..*self
        }
    }

    fn take_split(&self, index: usize) -> (Self, Self) {
        (self.take_from(index), self.take(index))
    }

    fn position<P>(&self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool,
    {
        self.rest().iter().position(predicate)
    }

    fn iter_elements(&self) -> Self::Iter {
        self.rest().iter()
    }

    fn iter_indices(&self) -> Self::IterIndices {
        self.iter_elements().enumerate()
    }

    fn slice_index(&self, count: usize) -> Result<usize, Needed> {
        let len = self.input_len();
        if count <= len {
            Ok(count)
        } else {
            Err(Needed::new(count - len))
        }
    }
}

/// The next token, as `pick` reads it; a mismatch is an `Error`, for `alt` to try another.
pub fn token<'a, T, E>(
    pick: impl Fn(&'a Tok<'a>) -> Option<T>,
) -> impl Parser<Tokens<'a>, Output = T, Error = E>
where
    E: ParseError<Tokens<'a>>,
{
    take(1usize).map_opt(move |one: Tokens<'a>| pick(&one.rest()[0].tok))
}

/// The next token if it is one of `spellings`, punctuation or keyword: the grammar's `tag`.
pub fn spelled<'a, E>(
    spellings: &'static [&'static str],
) -> impl Parser<Tokens<'a>, Output = &'a Tok<'a>, Error = E>
where
    E: ParseError<Tokens<'a>>,
{
    token(move |tok| match tok {
        Tok::Punct(s) | Tok::Word(s) if spellings.contains(s) => Some(tok),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use nom::error::{Error, ErrorKind};
    use nom::multi::many0;

    use super::*;
    use crate::filter::lex::tokens;

    type Plain<'a> = Error<Tokens<'a>>;

    fn toks<'a>(input: &Tokens<'a>) -> Vec<&'a Tok<'a>> {
        input.iter_elements().map(|t| &t.tok).collect()
    }

    #[test]
    fn end_is_where_the_text_ends_and_no_element() {
        let all = tokens("a == 1 ").unwrap();
        let input = Tokens::new(&all);
        assert_eq!(input.input_len(), 3);
        assert_eq!(
            toks(&input),
            [&Tok::Word("a"), &Tok::Punct("=="), &Tok::Word("1")]
        );
        let done = input.take_from(3);
        assert_eq!((done.input_len(), done.offset()), (0, 7));
        let empty = tokens("").unwrap();
        assert_eq!(Tokens::new(&empty).input_len(), 0);
        assert_eq!(Tokens::new(&empty).offset(), 0);
    }

    #[test]
    fn take_split_gives_the_rest_then_the_prefix() {
        let all = tokens("x in {1 2}").unwrap();
        let input = Tokens::new(&all);
        let (rest, prefix) = input.take_split(2);
        assert_eq!(toks(&prefix), [&Tok::Word("x"), &Tok::Word("in")]);
        assert_eq!(
            toks(&rest),
            [
                &Tok::Punct("{"),
                &Tok::Word("1"),
                &Tok::Word("2"),
                &Tok::Punct("}")
            ]
        );
        assert_eq!((prefix.offset(), rest.offset()), (0, 5));
        // A prefix that has run out stands where the rest begins.
        assert_eq!(prefix.take_from(2).offset(), 5);
        // Past the end stops at the end.
        assert_eq!(input.take_from(99).input_len(), 0);
        assert_eq!(input.take(99).input_len(), 6);
        assert_eq!(rest.take(1).take_from(5).offset(), 6);
    }

    #[test]
    fn position_and_indices_count_from_the_input() {
        let all = tokens("a && b || c").unwrap();
        let rest = Tokens::new(&all).take_from(1);
        let is_or = |t: &Token<'_>| t.tok == Tok::Punct("||");
        assert_eq!(rest.position(is_or), Some(2));
        assert_eq!(rest.take(2).position(is_or), None);
        let indices: Vec<(usize, usize)> = rest.iter_indices().map(|(i, t)| (i, t.at)).collect();
        assert_eq!(indices, [(0, 2), (1, 5), (2, 7), (3, 10)]);
        assert_eq!(rest.slice_index(4), Ok(4));
        assert_eq!(rest.slice_index(6), Err(Needed::new(2)));
    }

    #[test]
    fn nom_combinators_run_over_tokens() {
        let all = tokens("not ( a )").unwrap();
        let input = Tokens::new(&all);
        let (rest, taken) = take::<_, _, Plain<'_>>(2usize).parse(input).unwrap();
        assert_eq!(toks(&taken), [&Tok::Word("not"), &Tok::Punct("(")]);
        assert_eq!(rest.offset(), 6);
        let (rest, words) = many0(spelled::<Plain<'_>>(&["not", "(", "a"]))
            .parse(input)
            .unwrap();
        assert_eq!(words.len(), 3);
        assert_eq!(toks(&rest), [&Tok::Punct(")")]);
        let Err(nom::Err::Error(err)) = spelled::<Plain<'_>>(&["("]).parse(input) else {
            panic!("`not` is not `(`");
        };
        assert_eq!((err.input.offset(), err.code), (0, ErrorKind::MapOpt));
        let end = input.take_from(4);
        let Err(nom::Err::Error(err)) = spelled::<Plain<'_>>(&[")"]).parse(end) else {
            panic!("nothing is left");
        };
        assert_eq!((err.input.offset(), err.code), (9, ErrorKind::Eof));
    }
}
