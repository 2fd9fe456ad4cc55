//! A fixed-size percentile sketch: log-linear buckets (DDSketch-like) kept as a small sparse
//! array. No sample is stored, so a connection's memory does not grow with its traffic.
//!
//! Buckets are log-linear (as HdrHistogram's): each power of two is cut into 64 equal
//! buckets, so any value is within 0.8% of its bucket's middle. When more than [`SLOTS`] distinct buckets are needed,
//! neighbouring buckets are merged (the index is halved), which doubles the relative error:
//! the error stays ≤1% while the samples span fewer than `SLOTS` buckets (a factor of 2
//! between the smallest and largest), ≤1.6% up to a factor of 4, ≤3.2% up to 16, and so
//! on; values below 64 are exact until the first merge. Exact `min` and `max` are kept beside the
//! buckets and clamp every estimate, so constant samples come out exact.
//!
//! Memory: [`Sketch`] is 48 bytes inline; the first sample that differs from the one
//! before allocates the bucket array, once: `SLOTS * 6` + 1 = 385 bytes (rounded up by the
//! allocator). A run of equal samples is kept inline as (value, count) until it ends.

/// Distinct buckets kept before neighbours are merged.
pub const SLOTS: usize = 64;

#[derive(Debug, Clone, Default)]
pub struct Sketch {
    count: u64,
    min: u64,
    max: u64,
    /// How many times the buckets were merged pairwise.
    shift: u8,
    /// The latest value, repeated `run_len` times and not yet in the buckets.
    run_value: u64,
    run_len: u32,
    buckets: Option<Box<Buckets>>,
}

#[derive(Debug, Clone)]
struct Buckets {
    used: u8,
    index: [u16; SLOTS],
    count: [u32; SLOTS],
}

/// The bytes one sketch costs once it holds a sample.
pub const fn bytes_per_sketch() -> usize {
    std::mem::size_of::<Sketch>() + std::mem::size_of::<Buckets>()
}

/// Sub-buckets per power of two: a bucket spans at most 1/64 of its lower bound, so its
/// middle is within 1/128 (0.8%) of any value in it.
const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

/// Values below 64 have a bucket each; above, the power of two and the next six bits.
fn bucket_of(value: u64, shift: u8) -> u16 {
    let index = if value < SUB {
        value as u16
    } else {
        let octave = 63 - value.leading_zeros();
        let sub = (value >> (octave - SUB_BITS)) & (SUB - 1);
        ((octave - SUB_BITS + 1) as u16) << SUB_BITS | sub as u16
    };
    index >> shift
}

/// The smallest value of full-resolution bucket `index` (the one past the last is 2^64).
fn low_of(index: u32) -> u128 {
    if u64::from(index) < SUB {
        return u128::from(index);
    }
    let octave = (index >> SUB_BITS) + SUB_BITS - 1;
    let sub = u128::from(index) & u128::from(SUB - 1);
    (u128::from(SUB) + sub) << (octave - SUB_BITS)
}

fn middle_of(bucket: u16, shift: u8) -> u64 {
    let lo = low_of(u32::from(bucket) << shift);
    let hi = low_of((u32::from(bucket) + 1) << shift) - 1;
    u64::try_from(lo + (hi - lo) / 2).unwrap_or(u64::MAX)
}

impl Sketch {
    #[inline]
    pub fn add(&mut self, value: u64) {
        if self.count > 0 && value == self.run_value && self.run_len < u32::MAX {
            // Steady streams repeat their sizes: a run costs a compare until it ends.
            self.run_len += 1;
            self.count += 1;
            return;
        }
        self.add_new(value);
    }

    #[inline(never)]
    fn add_new(&mut self, value: u64) {
        if self.count == 0 {
            self.min = value;
            self.max = value;
        } else {
            self.min = self.min.min(value);
            self.max = self.max.max(value);
        }
        self.count += 1;
        if self.run_len > 0 {
            self.bucket(self.run_value, self.run_len);
        }
        self.run_value = value;
        self.run_len = 1;
    }

    fn bucket(&mut self, value: u64, n: u32) {
        let buckets = self.buckets.get_or_insert_with(|| {
            Box::new(Buckets {
                used: 0,
                index: [0; SLOTS],
                count: [0; SLOTS],
            })
        });
        loop {
            let index = bucket_of(value, self.shift);
            let used = usize::from(buckets.used);
            if let Some(i) = buckets.index[..used].iter().position(|&b| b == index) {
                buckets.count[i] = buckets.count[i].saturating_add(n);
                return;
            }
            if used < SLOTS {
                buckets.index[used] = index;
                buckets.count[used] = n;
                buckets.used += 1;
                return;
            }
            self.shift += 1;
            buckets.coarsen();
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// The value below which a fraction `q` of the samples lie (nearest rank).
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        // The buckets, plus the run not yet added to them.
        let mut sorted = [(0u16, 0u32); SLOTS + 1];
        let mut used = 0;
        if let Some(buckets) = &self.buckets {
            used = usize::from(buckets.used);
            for (slot, (&index, &count)) in sorted
                .iter_mut()
                .zip(buckets.index.iter().zip(&buckets.count))
            {
                *slot = (index, count);
            }
        }
        let run = bucket_of(self.run_value, self.shift);
        match sorted[..used].iter_mut().find(|s| s.0 == run) {
            Some(slot) => slot.1 = slot.1.saturating_add(self.run_len),
            None => {
                sorted[used] = (run, self.run_len);
                used += 1;
            }
        }
        let sorted = &mut sorted[..used];
        sorted.sort_unstable_by_key(|s| s.0);
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0u64;
        for &(index, n) in sorted.iter() {
            seen += u64::from(n);
            if seen >= rank {
                // The extreme buckets answer with the exact extreme they hold.
                if index == bucket_of(self.min, self.shift) {
                    return Some(self.min);
                }
                if index == bucket_of(self.max, self.shift) {
                    return Some(self.max);
                }
                let estimate = middle_of(index, self.shift);
                return Some(estimate.clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

impl Buckets {
    /// Merges neighbouring buckets: every index is halved, and equal ones are summed.
    fn coarsen(&mut self) {
        let used = usize::from(self.used);
        let mut n = 0;
        for i in 0..used {
            let (index, count) = (self.index[i] >> 1, self.count[i]);
            if let Some(j) = self.index[..n].iter().position(|&b| b == index) {
                self.count[j] = self.count[j].saturating_add(count);
            } else {
                self.index[n] = index;
                self.count[n] = count;
                n += 1;
            }
        }
        self.used = n as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_samples_are_exact() {
        let mut s = Sketch::default();
        for _ in 0..100 {
            s.add(7000);
        }
        assert_eq!(s.quantile(0.5), Some(7000));
        assert_eq!(s.quantile(0.99), Some(7000));
        assert_eq!(s.min(), Some(7000));
    }

    #[test]
    fn within_one_percent_over_a_narrow_range() {
        let mut s = Sketch::default();
        for v in 1000..=1500u64 {
            s.add(v);
        }
        let p50 = s.quantile(0.5).unwrap() as f64;
        assert!((p50 - 1250.0).abs() / 1250.0 <= 0.011, "{p50}");
    }

    #[test]
    fn wide_ranges_coarsen_within_bounds() {
        // A factor of 100 spans 7 octaves, 448 buckets: merged three times, within 6.4%.
        let mut s = Sketch::default();
        for v in 1000..=100_000u64 {
            s.add(v);
        }
        let p50 = s.quantile(0.5).unwrap() as f64;
        let p99 = s.quantile(0.99).unwrap() as f64;
        assert!((p50 - 50_500.0).abs() / 50_500.0 < 0.064, "{p50}");
        assert!((p99 - 99_010.0).abs() / 99_010.0 < 0.064, "{p99}");
        assert!(s.buckets.as_ref().unwrap().used as usize <= SLOTS);
        s.add(0);
        s.add(0);
        assert_eq!(s.quantile(0.0), Some(0));
    }

    #[test]
    fn buckets_are_monotonic_and_tight() {
        let mut last = 0;
        for v in [0u64, 1, 63, 64, 65, 127, 128, 1000, 7000, 1 << 40, u64::MAX] {
            let b = bucket_of(v, 0);
            assert!(b >= last);
            last = b;
            let mid = middle_of(b, 0) as f64;
            assert!((mid - v as f64).abs() <= v as f64 / 100.0, "{v} {mid}");
        }
    }

    #[test]
    fn empty_has_no_quantile() {
        assert_eq!(Sketch::default().quantile(0.5), None);
    }
}
