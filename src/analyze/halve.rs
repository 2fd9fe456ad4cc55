//! Bounded lists of marks make room by merging neighbours, every other one, so that each run
//! halves and what is kept still spans the whole capture; or, where marks of several kinds
//! interleave, by merging each kind's marks among themselves.

/// Merges each item into the one kept just before it, never twice in a row, when `absorb`
/// takes it (it merges the second into the first and says so).
pub fn merge_neighbours<T: Copy>(items: &mut Vec<T>, mut absorb: impl FnMut(&mut T, &T) -> bool) {
    let mut kept = 0usize;
    let mut absorbed_last = false;
    for i in 0..items.len() {
        let item = items[i];
        if kept > 0 && !absorbed_last && absorb(&mut items[kept - 1], &item) {
            absorbed_last = true;
        } else {
            items[kept] = item;
            kept += 1;
            absorbed_last = false;
        }
    }
    items.truncate(kept);
}

/// Merges each item into the item of the same kind kept before it, every other one, so that
/// each kind's items halve even when kinds alternate and no two neighbours are alike.
/// `kind` gives an item's kind, below `KINDS`, or `None` for an item that is kept as it is
/// and that nothing merges across. `absorb` merges the second item into the first.
pub fn merge_within_kinds<T: Copy, const KINDS: usize>(
    items: &mut Vec<T>,
    kind: impl Fn(&T) -> Option<usize>,
    mut absorb: impl FnMut(&mut T, &T),
) {
    // Per kind: where its last kept item is, and whether that one absorbed the last seen.
    let mut last: [Option<(usize, bool)>; KINDS] = [None; KINDS];
    let mut kept = 0;
    for i in 0..items.len() {
        let item = items[i];
        match kind(&item).and_then(|k| last.get_mut(k)) {
            Some(slot) => match *slot {
                Some((at, false)) => {
                    absorb(&mut items[at], &item);
                    *slot = Some((at, true));
                }
                _ => {
                    items[kept] = item;
                    *slot = Some((kept, false));
                    kept += 1;
                }
            },
            None => {
                last = [None; KINDS];
                items[kept] = item;
                kept += 1;
            }
        }
    }
    items.truncate(kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_halves_and_unlike_neighbours_stay() {
        let mut items = vec![(1, 1), (1, 1), (1, 1), (1, 1), (2, 1), (1, 1)];
        merge_neighbours(&mut items, |into, next| {
            let same = into.0 == next.0;
            if same {
                into.1 += next.1;
            }
            same
        });
        assert_eq!(items, vec![(1, 2), (1, 2), (2, 1), (1, 1)]);
    }

    #[test]
    fn alternating_kinds_each_halve_and_a_barrier_keeps_them_apart() {
        // (kind, count); kind 9 is a barrier.
        let mut items = vec![
            (0, 1),
            (1, 1),
            (0, 1),
            (1, 1),
            (9, 1),
            (0, 1),
            (1, 1),
            (0, 1),
        ];
        merge_within_kinds::<_, 2>(
            &mut items,
            |&(k, _)| (k < 2).then_some(k),
            |into, next| into.1 += next.1,
        );
        assert_eq!(items, vec![(0, 2), (1, 2), (9, 1), (0, 2), (1, 1)]);
    }
}
