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
    let nearest = nearest(name);
    let protocol = name.split('.').next().unwrap_or(name);
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

/// The known name closest in spelling, if any is close enough to be the one meant.
fn nearest(name: &str) -> Option<&'static str> {
    let names = FIELDS
        .iter()
        .map(|f| f.name)
        .chain(FIELDS.iter().filter_map(|f| match f.wireshark {
            WiresharkName::Other(theirs) => Some(theirs),
            _ => None,
        }))
        .chain(WIRESHARK_ONLY.iter().map(|f| f.name));
    let (distance, best) = names
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .min_by_key(|(d, _)| *d)?;
    let same_protocol = |a: &str, b: &str| a.split('.').next() == b.split('.').next();
    (distance <= (name.len() / 3).max(2) || same_protocol(name, best) && name.contains('.'))
        .then_some(best)
}

/// Levenshtein distance over bytes; names are ASCII.
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.as_bytes().iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
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
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
