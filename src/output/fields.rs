//! `rdmadump read -T fields -e NAME...`: chosen fields, one line per frame, laid out as
//! tshark lays out its `-T fields` output and shaped by the same `-E` options.

use std::io::Write;

use crate::dissect::Packet;
use crate::fields::{Field, Value};

/// Which values of a field that occurs more than once in a frame (a tunnel field) to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Occurrence {
    First,
    Last,
    #[default]
    All,
}

/// The `-E` options, with tshark's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldsFormat {
    pub separator: char,
    pub header: bool,
    /// The quote put around each non-empty value, if any.
    pub quote: Option<char>,
    pub occurrence: Occurrence,
    /// Between the values of `Occurrence::All`.
    pub aggregator: char,
}

impl Default for FieldsFormat {
    fn default() -> Self {
        FieldsFormat {
            separator: '\t',
            header: false,
            quote: None,
            occurrence: Occurrence::All,
            aggregator: ',',
        }
    }
}

/// One `-E option=value`, checked when the command line is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldsOption {
    Separator(char),
    Header(bool),
    Quote(Option<char>),
    Occurrence(Occurrence),
    Aggregator(char),
}

impl FieldsOption {
    /// `separator=/t|/s|C`, `header=y|n`, `quote=d|s|n`, `occurrence=f|l|a`,
    /// `aggregator=/s|C`. As in tshark, a separator or aggregator is one character: only
    /// the first of a longer value counts.
    pub fn parse(text: &str) -> Result<FieldsOption, String> {
        let Some((name, value)) = text.split_once('=') else {
            return Err(format!(
                "`{text}` is not OPTION=VALUE; the options are separator=/t|/s|C, header=y|n, \
                 quote=d|s|n, occurrence=f|l|a and aggregator=/s|C"
            ));
        };
        let bad = |expected: &str| Err(format!("`{text}`: {name} takes {expected}"));
        match name {
            "separator" | "aggregator" => {
                let c = match value {
                    "/t" => '\t',
                    "/s" => ' ',
                    _ => match value.chars().next() {
                        Some(c) => c,
                        None => return bad("/t, /s or a character"),
                    },
                };
                Ok(if name == "separator" {
                    FieldsOption::Separator(c)
                } else {
                    FieldsOption::Aggregator(c)
                })
            }
            "header" => match value {
                "y" => Ok(FieldsOption::Header(true)),
                "n" => Ok(FieldsOption::Header(false)),
                _ => bad("y or n"),
            },
            "quote" => match value {
                "d" => Ok(FieldsOption::Quote(Some('"'))),
                "s" => Ok(FieldsOption::Quote(Some('\''))),
                "n" => Ok(FieldsOption::Quote(None)),
                _ => bad("d (double), s (single) or n (none)"),
            },
            "occurrence" => match value {
                "f" => Ok(FieldsOption::Occurrence(Occurrence::First)),
                "l" => Ok(FieldsOption::Occurrence(Occurrence::Last)),
                "a" => Ok(FieldsOption::Occurrence(Occurrence::All)),
                _ => bad("f (first), l (last) or a (all)"),
            },
            _ => Err(format!(
                "`{name}` is not a -E option: use separator, header, quote, occurrence or \
                 aggregator"
            )),
        }
    }
}

impl FieldsFormat {
    /// The format the options make, later options winning.
    pub fn new(options: &[FieldsOption]) -> Self {
        let mut format = FieldsFormat::default();
        for option in options {
            match *option {
                FieldsOption::Separator(c) => format.separator = c,
                FieldsOption::Header(on) => format.header = on,
                FieldsOption::Quote(q) => format.quote = q,
                FieldsOption::Occurrence(o) => format.occurrence = o,
                FieldsOption::Aggregator(c) => format.aggregator = c,
            }
        }
        format
    }
}

/// The header line: the field names as given, unquoted, as tshark writes it.
pub fn write_header(out: &mut Vec<u8>, names: &[&str], format: &FieldsFormat) {
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            push_char(out, format.separator);
        }
        out.extend_from_slice(name.as_bytes());
    }
    out.push(b'\n');
}

/// Appends the line of `pkt`: each field's value, or nothing where the frame lacks it.
pub fn write_packet(out: &mut Vec<u8>, pkt: &Packet<'_>, fields: &[&Field], format: &FieldsFormat) {
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            push_char(out, format.separator);
        }
        let start = out.len();
        if let Some(q) = format.quote {
            push_char(out, q);
        }
        let value_start = out.len();
        match field.each {
            None => {
                if let Some(value) = (field.get)(pkt) {
                    write_value(out, value);
                }
            }
            Some(each) => {
                let mut values = each.values(pkt);
                let chosen = match format.occurrence {
                    Occurrence::First => values.next(),
                    Occurrence::Last => values.next_back(),
                    Occurrence::All => {
                        for (n, value) in values.enumerate() {
                            if n > 0 {
                                push_char(out, format.aggregator);
                            }
                            write_value(out, value);
                        }
                        None
                    }
                };
                if let Some(value) = chosen {
                    write_value(out, value);
                }
            }
        }
        match format.quote {
            // tshark leaves an absent value empty, not as an empty quoted string.
            Some(_) if out.len() == value_start => out.truncate(start),
            Some(q) => push_char(out, q),
            None => {}
        }
    }
    out.push(b'\n');
}

/// A value as tshark prints the corresponding field: integers in decimal, booleans as 1
/// or 0, addresses in their usual notation (MACs lowercase with colons, IPv6 and GIDs
/// compressed), names as they are.
pub fn write_value(out: &mut Vec<u8>, value: Value) {
    match value {
        Value::Int(n) => out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
        Value::Bool(b) => out.push(if b { b'1' } else { b'0' }),
        Value::Str(s) => out.extend_from_slice(s.as_bytes()),
        // Epoch seconds with every nanosecond, as tshark prints frame.time_epoch.
        Value::Time(ns) => {
            let _ = write!(out, "{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
        }
        // Writing to a Vec cannot fail, and Display for addresses allocates nothing.
        Value::Ip(ip) => {
            let _ = write!(out, "{ip}");
        }
        Value::Mac(m) => {
            let _ = write!(
                out,
                "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
                m[0], m[1], m[2], m[3], m[4], m[5]
            );
        }
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_as_tshark_reads_them() {
        let parse = FieldsOption::parse;
        assert_eq!(parse("separator=,"), Ok(FieldsOption::Separator(',')));
        assert_eq!(parse("separator=/t"), Ok(FieldsOption::Separator('\t')));
        assert_eq!(parse("separator=/s"), Ok(FieldsOption::Separator(' ')));
        assert_eq!(parse("separator=ab"), Ok(FieldsOption::Separator('a')));
        assert_eq!(parse("aggregator=;"), Ok(FieldsOption::Aggregator(';')));
        assert_eq!(parse("header=y"), Ok(FieldsOption::Header(true)));
        assert_eq!(parse("quote=s"), Ok(FieldsOption::Quote(Some('\''))));
        assert_eq!(
            parse("occurrence=l"),
            Ok(FieldsOption::Occurrence(Occurrence::Last))
        );
        for bad in [
            "quote=x",
            "header=yes",
            "bogus=1",
            "separator",
            "separator=",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_are_written_as_tshark_writes_them() {
        let mut out = Vec::new();
        for value in [
            Value::Int(4791),
            Value::Bool(true),
            Value::Bool(false),
            Value::Str("bad"),
            Value::Ip("fe80::1".parse().expect("ip")),
            Value::Mac([0x02, 0, 0, 0, 0, 0xab]),
        ] {
            write_value(&mut out, value);
            out.push(b' ');
        }
        assert_eq!(out, b"4791 1 0 bad fe80::1 02:00:00:00:00:ab ");
    }
}
