//! The connection table's index from an end's key to its slot.
//!
//! Not std's `HashMap`: the analysis looks up one end per packet, with thousands of ends
//! whose keys arrive in no useful order, and that lookup was a tenth of all samples, most of
//! it waiting for the bucket: a `HashMap<PackedKey, u32>` keeps a 64-byte bucket per key.
//! Here a bucket is 8 bytes (a hash tag and the slot), eight to a cache line, and the keys
//! sit densely by slot beside them; a lookup reads a bucket line and, unless the tags
//! differ, one key. On the 440 MB benchmark capture (2000 ends) `analyze` took 4% less CPU
//! time (median of 11 alternating runs, 161 against 167 ms). Prefetching each packet's
//! bucket four packets ahead gained nothing more and is not done.
//!
//! Entries are only ever added; the table is rebuilt when ends are evicted.

use std::hash::BuildHasher;

use super::EndKey;

/// An [`EndKey`] as integers: hashing two `Address` enums field by field cost more than
/// the rest of a packet's connection bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct PackedKey {
    addr: u128,
    peer: u128,
    qpn: u32,
    kinds: u8,
}

impl std::hash::Hash for PackedKey {
    /// Two words for the hasher: equality still compares every field, so a collision costs
    /// a probe, never a wrong answer. The QPN, which is what most keys between two hosts
    /// differ in, goes in a word of its own: folded into the addresses' word, one multiply
    /// with some per-process seeds (foldhash's, from the stack address) spread such keys so
    /// badly that lookups probed ten groups instead of one.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u128(self.addr ^ self.peer.rotate_left(47));
        state.write_u32(self.qpn | u32::from(self.kinds) << 24);
    }
}

impl From<EndKey> for PackedKey {
    fn from(key: EndKey) -> Self {
        let (addr, a) = key.addr.packed();
        let (peer, p) = key.peer.packed();
        PackedKey {
            addr,
            peer,
            qpn: key.qpn,
            kinds: a << 4 | p,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// The hash's high half: most probes that hit another key stop here, before its key.
    tag: u32,
    slot: u32,
}

const EMPTY: u32 = u32::MAX;
const VACANT: Bucket = Bucket {
    tag: 0,
    slot: EMPTY,
};
/// Buckets at the first insert; the table doubles whenever it would be half full.
const FIRST_CAPACITY: usize = 64;

#[derive(Debug, Clone, Default)]
pub(super) struct EndIndex {
    /// Open addressing with linear probing; the length is a power of two, or zero.
    buckets: Vec<Bucket>,
    /// The key of each slot, for the final comparison.
    keys: Vec<PackedKey>,
    len: usize,
    hasher: foldhash::fast::RandomState,
}

impl EndIndex {
    fn hash(&self, key: &PackedKey) -> u64 {
        self.hasher.hash_one(key)
    }

    fn mask(&self) -> usize {
        self.buckets.len().wrapping_sub(1)
    }

    #[inline]
    pub fn get(&self, key: &PackedKey) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let hash = self.hash(key);
        let tag = (hash >> 32) as u32;
        let mask = self.mask();
        let mut at = hash as usize & mask;
        loop {
            let bucket = self.buckets[at];
            if bucket.slot == EMPTY {
                return None;
            }
            if bucket.tag == tag && self.keys.get(bucket.slot as usize) == Some(key) {
                return Some(bucket.slot);
            }
            at = (at + 1) & mask;
        }
    }

    /// Maps `key` to `slot`, replacing what it mapped to before.
    pub fn insert(&mut self, key: PackedKey, slot: u32) {
        debug_assert_ne!(slot, EMPTY);
        if (self.len + 1) * 2 > self.buckets.len() {
            self.grow();
        }
        let hash = self.hash(&key);
        let tag = (hash >> 32) as u32;
        let mask = self.mask();
        let mut at = hash as usize & mask;
        loop {
            let bucket = &mut self.buckets[at];
            if bucket.slot == EMPTY {
                *bucket = Bucket { tag, slot };
                self.len += 1;
                break;
            }
            if bucket.tag == tag && self.keys.get(bucket.slot as usize) == Some(&key) {
                bucket.slot = slot;
                break;
            }
            at = (at + 1) & mask;
        }
        let slot = slot as usize;
        if slot >= self.keys.len() {
            self.keys.resize(slot + 1, PackedKey::default());
        }
        self.keys[slot] = key;
    }

    fn grow(&mut self) {
        let capacity = (self.buckets.len() * 2).max(FIRST_CAPACITY);
        let old = std::mem::replace(&mut self.buckets, vec![VACANT; capacity]);
        let mask = capacity - 1;
        for bucket in old.into_iter().filter(|b| b.slot != EMPTY) {
            let key = &self.keys[bucket.slot as usize];
            let mut at = self.hash(key) as usize & mask;
            while self.buckets[at].slot != EMPTY {
                at = (at + 1) & mask;
            }
            self.buckets[at] = bucket;
        }
    }

    pub fn clear(&mut self) {
        self.buckets.fill(VACANT);
        self.keys.clear();
        self.len = 0;
    }

    /// Bytes this index costs per key, at its fullest before it doubles: two buckets and
    /// the key itself.
    pub fn bytes_per_key() -> usize {
        4 * std::mem::size_of::<Bucket>() + std::mem::size_of::<PackedKey>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn key(n: u64) -> PackedKey {
        // Many keys share their addresses and differ in the QPN, as between two busy hosts.
        PackedKey {
            addr: u128::from(n % 7),
            peer: u128::from(n % 3) << 64,
            qpn: (n / 21) as u32,
            kinds: (n % 2) as u8,
        }
    }

    #[test]
    fn answers_as_a_hash_map_does_through_growth_overwrites_and_clears() {
        let mut index = EndIndex::default();
        let mut reference: HashMap<PackedKey, u32> = HashMap::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..20_000u32 {
            let k = key(next() % 5000);
            match next() % 100 {
                0 => {
                    index.clear();
                    reference.clear();
                }
                1..=40 => {
                    // Slots as the table hands them out: mostly fresh, sometimes reused.
                    let slot = if next() % 4 == 0 {
                        (next() % 64) as u32
                    } else {
                        round
                    };
                    // A slot names one key at a time, as in the table.
                    reference.retain(|_, s| *s != slot);
                    index.insert(k, slot);
                    reference.insert(k, slot);
                }
                _ => {}
            }
            assert_eq!(index.get(&k), reference.get(&k).copied(), "round {round}");
        }
        for n in 0..5000 {
            let k = key(n);
            assert_eq!(index.get(&k), reference.get(&k).copied(), "key {n}");
        }
    }

    #[test]
    fn an_empty_index_finds_nothing() {
        let mut index = EndIndex::default();
        assert_eq!(index.get(&key(1)), None);
        index.insert(key(1), 0);
        index.clear();
        assert_eq!(index.get(&key(1)), None);
        index.insert(key(2), 0);
        assert_eq!(index.get(&key(2)), Some(0));
        assert_eq!(index.get(&key(1)), None);
    }
}
