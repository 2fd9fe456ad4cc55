//! Name resolution: rdmadump's names, then Wireshark's, and for a name neither has, the
//! message that helps most: what Wireshark's name corresponds to, or the nearest spelling.

use super::wireshark;
use crate::fields::{self, FIELDS, Field, WIRESHARK_ONLY, WiresharkName};

/// Whose name a filter used. A bare Wireshark name tests presence, as in Wireshark; a bare
/// rdmadump flag tests that it is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    Rdmadump,
    Wireshark,
}

/// A field by its rdmadump name or its Wireshark name.
pub fn find(name: &str) -> Option<&'static Field> {
    resolve(name).map(|(field, _)| field)
}

pub fn resolve(name: &str) -> Option<(&'static Field, Naming)> {
    if let Some(field) = fields::by_rdmadump_name(name) {
        return Some((field, Naming::Rdmadump));
    }
    FIELDS
        .iter()
        .find(|f| matches!(f.wireshark, WiresharkName::Other(theirs) if theirs == name))
        .or_else(|| WIRESHARK_ONLY.iter().find(|f| f.name == name))
        .map(|field| (field, Naming::Wireshark))
}

/// Why `name` names no field, in words that point at the one meant.
pub fn unknown(name: &str) -> String {
    if let Some((_, nearest)) = wireshark::NOT_DECODED.iter().find(|(n, _)| *n == name) {
        return format!(
            "rdmadump does not decode Wireshark's `{name}`; the nearest field is `{nearest}`"
        );
    }
    let protocol = name.split('.').next().unwrap_or(name);
    if wireshark::NOT_DECODED_YET.contains(&protocol) {
        return format!("rdmadump does not decode Wireshark's protocol `{protocol}` yet");
    }
    let nearest = nearest(name);
    match nearest {
        Some(near) if name.contains('.') && wireshark::PROTOCOLS.contains(&protocol) => {
            format!(
                "rdmadump does not decode `{name}`; the nearest field is `{near}` (rdmadump fields lists them all)"
            )
        }
        Some(near) => format!("unknown field `{name}`; did you mean `{near}`?"),
        None => format!("unknown field `{name}` (rdmadump fields lists them all)"),
    }
}

/// The known name closest to `name`, if any is close enough to be the one meant. Close is
/// in spelling (a transposed pair of letters counts one edit), or, within one protocol, in
/// the last part of the field's other name: `infiniband.bth.ackreq` is `bth.ack_req`'s
/// leaf, so Wireshark's `infiniband.bth.a` is meant.
fn nearest(name: &str) -> Option<&'static str> {
    let (prefix, leaf) = split_leaf(name);
    let leaf = squeezed(leaf);
    let leaf = leaf.as_str();
    let (distance, best) = fields::all()
        .flat_map(|field| {
            let names = [Some(field.name), field.wireshark_name()];
            names.into_iter().flatten().map(move |candidate| {
                let spelled = damerau(name, candidate);
                let (their_prefix, _) = split_leaf(candidate);
                let by_leaf = names
                    .into_iter()
                    .flatten()
                    .filter(|_| their_prefix == prefix && !prefix.is_empty())
                    .map(|other| damerau(leaf, &squeezed(split_leaf(other).1)))
                    .min()
                    .unwrap_or(usize::MAX);
                (spelled.min(by_leaf), candidate)
            })
        })
        .min_by_key(|(d, _)| *d)?;
    let same_protocol = |a: &str, b: &str| a.split('.').next() == b.split('.').next();
    (distance <= (name.len() / 3).max(2) || same_protocol(name, best) && name.contains('.'))
        .then_some(best)
}

/// The part before the last `.`, and the last part.
fn split_leaf(name: &str) -> (&str, &str) {
    name.rsplit_once('.').unwrap_or(("", name))
}

/// A leaf without its underscores: `ack_req` and `ackreq` are one spelling.
fn squeezed(leaf: &str) -> String {
    leaf.chars().filter(|&c| c != '_').collect()
}

/// Damerau-Levenshtein distance over bytes (the optimal string alignment form: a
/// transposition of two adjacent letters counts one edit); names are ASCII.
fn damerau(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut above: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (above[j] + 1).min(row[j - 1] + 1).min(above[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            row[j] = best;
        }
        std::mem::swap(&mut before, &mut above);
        std::mem::swap(&mut above, &mut row);
    }
    above[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_to_its_field_and_the_undecoded_to_none() {
        for field in fields::all() {
            for name in [Some(field.name), field.wireshark_name()]
                .into_iter()
                .flatten()
            {
                let (found, _) = resolve(name).unwrap_or_else(|| panic!("{name}"));
                assert!(std::ptr::eq(found, field), "{name} resolves to {found:?}");
            }
        }
        for (name, nearest) in wireshark::NOT_DECODED {
            assert!(resolve(name).is_none(), "{name}");
            assert!(resolve(nearest).is_some(), "{nearest}");
        }
    }

    #[test]
    fn unknown_names_get_the_nearest() {
        assert_eq!(
            unknown("bth.dest_pq"),
            "unknown field `bth.dest_pq`; did you mean `bth.dest_qp`?"
        );
        assert_eq!(
            unknown("infiniband.payload"),
            "rdmadump does not decode Wireshark's `infiniband.payload`; the nearest field is `payload_len`"
        );
        assert!(unknown("infiniband.bth.destqpn").contains("`infiniband.bth.destqp`"));
        assert_eq!(
            unknown("zzzzzzzzzz"),
            "unknown field `zzzzzzzzzz` (rdmadump fields lists them all)"
        );
        assert_eq!(damerau("kitten", "sitting"), 3);
        assert_eq!(damerau("psn", "pns"), 1);
        assert_eq!(damerau("ca", "abc"), 3);
    }

    #[test]
    fn a_transposition_and_the_other_names_leaf_find_the_field_meant() {
        assert!(
            unknown("bth.pns").contains("did you mean `bth.psn`?"),
            "{}",
            unknown("bth.pns")
        );
        assert!(
            unknown("infiniband.bth.ackreq").contains("`infiniband.bth.a`"),
            "{}",
            unknown("infiniband.bth.ackreq")
        );
        for name in wireshark::NOT_DECODED_YET {
            assert!(unknown(name).ends_with("yet"), "{name}: {}", unknown(name));
        }
    }
}
