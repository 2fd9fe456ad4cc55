//! `cli_parsers`: the values users type after an option. A selector byte picks the parser,
//! the rest is the text. Each parser must refuse or accept without panicking, and what it
//! accepts must survive being written out and parsed again.

use rdmadump::cli::{
    parse_dscp_pair, parse_duration, parse_field, parse_link_speed, parse_number, parse_offset,
    parse_pmtu, parse_size,
};
use rdmadump::fields;
use rdmadump::filter::time::{TimeBound, TimeWindow};
use rdmadump::output::fields::{FieldsFormat, FieldsOption, write_header, write_packet};

use super::fixture;

pub fn cli_parsers(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match selector % 10 {
        0 | 1 => time_bounds(&text),
        2 => {
            if let Ok(duration) = parse_duration(&text) {
                let again = parse_duration(&format!("{}ns", duration.as_nanos()));
                assert_eq!(again, Ok(duration), "`{text}` as nanoseconds");
            }
        }
        3 => {
            if let Ok(bytes) = parse_size(&text) {
                assert!(bytes >= 1 << 16, "`{text}` gives {bytes}, under 64K");
                assert_eq!(
                    parse_size(&bytes.to_string()),
                    Ok(bytes),
                    "`{text}` in bytes"
                );
            }
        }
        4 => {
            if let Ok(bps) = parse_link_speed(&text) {
                assert!(bps > 0, "`{text}` gives a link of 0 b/s");
                if bps % 1_000_000 == 0 {
                    let again = parse_link_speed(&format!("{}M", bps / 1_000_000));
                    assert_eq!(again, Ok(bps), "`{text}` in Mb/s");
                }
            }
        }
        5 => {
            if let Ok(n) = parse_number(&text) {
                assert_eq!(parse_number(&format!("{n:#x}")), Ok(n), "`{text}` in hex");
            }
            if let Ok(mtu) = parse_pmtu(&text) {
                assert!(mtu.is_power_of_two() && (256..=4096).contains(&mtu));
            }
        }
        6 => {
            if let Ok((path, ns)) = parse_offset(&text) {
                let again = format!("{}={ns}ns", path.display());
                assert_eq!(
                    parse_offset(&again),
                    Ok((path, ns)),
                    "`{text}` as `{again}`"
                );
            }
            if let Ok((dscp, priority)) = parse_dscp_pair(&text) {
                assert!(dscp < 64 && priority < 8, "`{text}`");
            }
        }
        7 => {
            if let Ok(arg) = parse_field(&text) {
                // The name given is kept for the header line, exactly as typed.
                assert_eq!(arg.name, text, "the header name changed");
            }
        }
        _ => fields_options(&text),
    }
}

/// `--since`/`--until`: a bound is printed back in a form that parses to itself, and the
/// window built from two bounds holds exactly the times between them.
fn time_bounds(text: &str) {
    let (since, until) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(since) = TimeBound::parse(since) else {
        return;
    };
    assert_eq!(
        TimeBound::parse(&since.to_string()),
        Ok(since),
        "`{text}` printed as `{since}`"
    );
    let until = TimeBound::parse(until).ok();
    let window = TimeWindow::new(Some(since), until);
    let anchor = 1_700_000_000_000_000_000u64;
    window.anchor(Some(anchor));
    let at = |bound: TimeBound| match bound {
        TimeBound::Absolute(ns) => ns,
        TimeBound::Relative(ns) => anchor.saturating_add(ns),
    };
    let from = at(since);
    let to = until.map_or(u64::MAX, at);
    for ts in [
        0,
        1,
        anchor,
        from.saturating_sub(1),
        from,
        from.saturating_add(1),
    ]
    .into_iter()
    .chain([to.saturating_sub(1), to, u64::MAX])
    {
        let inside = ts >= from && (until.is_none() || ts < to);
        assert_eq!(
            window.contains(Some(ts)),
            inside,
            "{ts} in [{since}, {until:?})"
        );
    }
    assert!(
        !window.contains(None),
        "a frame without a time is outside a window"
    );
}

/// `-E`: one option per line. When every option parses, every packet of the fixtures is
/// written with every field, and each gives exactly one line as long as no option puts a
/// newline in the output.
fn fields_options(text: &str) {
    let options: Result<Vec<FieldsOption>, String> =
        text.split('\n').map(FieldsOption::parse).collect();
    let Ok(options) = options else {
        return;
    };
    let format = FieldsFormat::new(&options);
    let all: Vec<&fields::Field> = fields::all().collect();
    let names: Vec<&str> = all.iter().map(|f| f.name).collect();
    let mut out = Vec::new();
    write_header(&mut out, &names, &format);
    let packets = fixture::packets();
    for pkt in packets {
        write_packet(&mut out, pkt, &all, &format);
    }
    let text = std::str::from_utf8(&out).expect("-T fields output is UTF-8");
    let newline_free = [format.separator, format.aggregator]
        .into_iter()
        .chain(format.quote)
        .all(|c| c != '\n');
    if newline_free {
        assert_eq!(
            text.lines().count(),
            packets.len() + 1,
            "one line per frame"
        );
        let columns = text
            .lines()
            .next()
            .map(|l| l.split(format.separator).count());
        // The header has a column per field unless a name holds the separator.
        if names.iter().all(|n| !n.contains(format.separator)) {
            assert_eq!(columns, Some(all.len()), "a header column per field");
        }
    }
}
