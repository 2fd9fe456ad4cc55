//! `filter_expr`: any text as a `-Y` filter. The lexer, the parser (slices, sets, ranges,
//! regexes, Wireshark names) and, when it compiles, the evaluator on every packet of the
//! fixtures.

use rdmadump::filter::{MAX_DEPTH, PacketFilter};

use super::fixture;

/// The whole input is the filter text (UTF-8, lossily; a command-line argument is text).
pub fn filter_expr(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(filter) = PacketFilter::from_expr(&text) else {
        return;
    };
    // A compiled filter's negation is a filter too, one level deeper, and selects exactly
    // the packets the filter leaves out: evaluation may not depend on where it sits.
    let negated = PacketFilter::from_expr(&format!("not ({text})"));
    let negated = match negated {
        Ok(negated) => Some(negated),
        Err(err) if err.to_string().contains(&MAX_DEPTH.to_string()) => None,
        Err(err) => panic!("`{text}` compiles but its negation does not: {err}"),
    };
    for pkt in fixture::packets() {
        let matched = filter.matches(pkt);
        if let Some(negated) = &negated {
            assert_ne!(
                matched,
                negated.matches(pkt),
                "`{text}` and its negation agree on frame {} ({:?})",
                pkt.frame,
                pkt.kind
            );
        }
    }
}
