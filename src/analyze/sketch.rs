//! A fixed-size percentile sketch: log-linear buckets (DDSketch-like) kept as a small sparse
//! array. No sample is stored, so a connection's memory does not grow with its traffic.
//!
//! Bucket `i` holds values in `(γ^(i-1), γ^i]` with γ = 1.02, so any value in it is within 1%
//! of the bucket's geometric middle. When more than [`SLOTS`] distinct buckets are needed,
//! neighbouring buckets are merged (the index is halved), which doubles the relative error:
//! the error stays ≤1% while the samples span fewer than `SLOTS` buckets (a factor of
//! 1.02^64 ≈ 3.5 between the smallest and largest), ≤2% up to a factor of 12, ≤4% up to
//! 158, and so on. Exact `min` and `max` are kept beside the
//! buckets and clamp every estimate, so constant samples come out exact.
//!
//! Memory: [`Sketch`] is 32 bytes inline; the first sample allocates the bucket array once,
//! `SLOTS * 6` + 1 = 385 bytes (rounded up by the allocator).

/// Distinct buckets kept before neighbours are merged.
pub const SLOTS: usize = 64;

/// ln(1.02): bucket width in log space at full resolution.
const LN_GAMMA: f64 = 0.019_802_627_296_179_712;

#[derive(Debug, Clone, Default)]
pub struct Sketch {
    count: u64,
    min: u64,
    max: u64,
    /// How many times the buckets were merged pairwise.
    shift: u8,
    buckets: Option<Box<Buckets>>,
}

#[derive(Debug, Clone)]
struct Buckets {
    used: u8,
    index: [i16; SLOTS],
    count: [u32; SLOTS],
}

/// The bytes one sketch costs once it holds a sample.
pub const fn bytes_per_sketch() -> usize {
    std::mem::size_of::<Sketch>() + std::mem::size_of::<Buckets>()
}

/// Below every value's bucket: ln(2^64) / ln(1.02) is about 2240.
const ZERO: i16 = -4096;

fn bucket_of(value: u64, shift: u8) -> i16 {
    if value == 0 {
        return ZERO >> shift;
    }
    ((value as f64).ln() / LN_GAMMA).ceil() as i16 >> shift
}

fn middle_of(bucket: i16, shift: u8) -> f64 {
    if bucket == ZERO >> shift {
        return 0.0;
    }
    // The bucket spans log indexes (bucket << shift - 1, (bucket + 1) << shift - 1].
    let lo = f64::from(bucket) * f64::from(1u32 << shift) - 1.0;
    let hi = (f64::from(bucket) + 1.0) * f64::from(1u32 << shift) - 1.0;
    ((lo + hi) / 2.0 * LN_GAMMA).exp()
}

impl Sketch {
    pub fn add(&mut self, value: u64) {
        if self.count == 0 {
            self.min = value;
            self.max = value;
        } else {
            self.min = self.min.min(value);
            self.max = self.max.max(value);
        }
        self.count += 1;
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
                buckets.count[i] = buckets.count[i].saturating_add(1);
                return;
            }
            if used < SLOTS {
                buckets.index[used] = index;
                buckets.count[used] = 1;
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
        let buckets = self.buckets.as_ref().filter(|_| self.count > 0)?;
        let used = usize::from(buckets.used);
        let mut sorted = [(0i16, 0u32); SLOTS];
        for (slot, (&index, &count)) in sorted
            .iter_mut()
            .zip(buckets.index.iter().zip(&buckets.count))
        {
            *slot = (index, count);
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
                let estimate = middle_of(index, self.shift).round() as u64;
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
        // A factor of 100 needs 233 buckets at 1%: merged twice, so within 4%.
        let mut s = Sketch::default();
        for v in 1000..=100_000u64 {
            s.add(v);
        }
        let p50 = s.quantile(0.5).unwrap() as f64;
        let p99 = s.quantile(0.99).unwrap() as f64;
        assert!((p50 - 50_500.0).abs() / 50_500.0 < 0.04, "{p50}");
        assert!((p99 - 99_010.0).abs() / 99_010.0 < 0.04, "{p99}");
        assert!(s.buckets.as_ref().unwrap().used as usize <= SLOTS);
        s.add(0);
        assert_eq!(s.quantile(0.0), Some(0));
    }

    #[test]
    fn empty_has_no_quantile() {
        assert_eq!(Sketch::default().quantile(0.5), None);
    }
}
