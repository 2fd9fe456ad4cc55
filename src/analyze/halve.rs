//! Bounded lists of marks make room by merging neighbours, every other one, so that each run
//! halves and what is kept still spans the whole capture.

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
}
