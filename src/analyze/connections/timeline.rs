//! `analyze --interval`: per-interval payload bytes, packets, retransmissions and CNPs of one
//! direction of a connection, for plots and for spotting stalls. At most a configured number
//! of buckets: when a connection outlasts them, neighbouring buckets merge and the interval
//! doubles, so a long capture costs no more than a short one.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bucket {
    pub payload_bytes: u64,
    pub packets: u32,
    pub retransmitted: u32,
    pub cnps: u32,
}

impl Bucket {
    fn merge(&mut self, other: Bucket) {
        self.payload_bytes += other.payload_bytes;
        self.packets += other.packets;
        self.retransmitted += other.retransmitted;
        self.cnps += other.cnps;
    }
}

#[derive(Debug, Clone)]
pub struct Timeline {
    pub start_ns: u64,
    pub interval_ns: u64,
    max_buckets: usize,
    pub buckets: Vec<Bucket>,
}

/// How one event adds to its bucket.
#[derive(Debug, Clone, Copy)]
pub enum Event {
    Packet { payload: u32, retransmitted: bool },
    Cnp,
}

impl Timeline {
    pub fn new(start_ns: u64, interval_ns: u64, max_buckets: u32) -> Self {
        Timeline {
            start_ns,
            interval_ns: interval_ns.max(1),
            max_buckets: (max_buckets as usize).max(1),
            buckets: Vec::new(),
        }
    }

    pub fn add(&mut self, ts: u64, event: Event) {
        // Times before the start (points merged a little out of order) go to the first.
        let mut index = ts.saturating_sub(self.start_ns) / self.interval_ns;
        while index >= self.max_buckets as u64 {
            self.coarsen();
            index = ts.saturating_sub(self.start_ns) / self.interval_ns;
        }
        let index = index as usize;
        if index >= self.buckets.len() {
            self.buckets.resize(index + 1, Bucket::default());
        }
        let bucket = &mut self.buckets[index];
        match event {
            Event::Packet {
                payload,
                retransmitted,
            } => {
                bucket.packets += 1;
                bucket.payload_bytes += u64::from(payload);
                bucket.retransmitted += u32::from(retransmitted);
            }
            Event::Cnp => bucket.cnps += 1,
        }
    }

    /// Twice the interval, half the buckets.
    fn coarsen(&mut self) {
        let merged: Vec<Bucket> = self
            .buckets
            .chunks(2)
            .map(|pair| {
                let mut b = pair[0];
                if let Some(&second) = pair.get(1) {
                    b.merge(second);
                }
                b
            })
            .collect();
        self.buckets = merged;
        self.interval_ns = self.interval_ns.saturating_mul(2);
    }
}

impl Serialize for Timeline {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("start_ns", &self.start_ns)?;
        map.serialize_entry("interval_ns", &self.interval_ns)?;
        map.serialize_entry("buckets", &Buckets(&self.buckets))?;
        map.end()
    }
}

struct Buckets<'a>(&'a [Bucket]);

impl Serialize for Buckets<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for b in self.0 {
            seq.serialize_element(&Row(b))?;
        }
        seq.end()
    }
}

struct Row<'a>(&'a Bucket);

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let b = self.0;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("payload_bytes", &b.payload_bytes)?;
        map.serialize_entry("packets", &b.packets)?;
        map.serialize_entry("retransmitted", &b.retransmitted)?;
        map.serialize_entry("cnps", &b.cnps)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(payload: u32) -> Event {
        Event::Packet {
            payload,
            retransmitted: false,
        }
    }

    #[test]
    fn buckets_by_interval() {
        let mut t = Timeline::new(1_000, 100, 10);
        t.add(1_000, packet(10));
        t.add(1_099, packet(20));
        t.add(1_250, packet(30));
        t.add(1_260, Event::Cnp);
        assert_eq!(t.buckets.len(), 3);
        assert_eq!(t.buckets[0].payload_bytes, 30);
        assert_eq!(t.buckets[0].packets, 2);
        assert_eq!(t.buckets[1], Bucket::default());
        assert_eq!(t.buckets[2].cnps, 1);
    }

    #[test]
    fn a_long_connection_gets_wider_buckets_not_more() {
        let mut t = Timeline::new(0, 10, 4);
        for i in 0..100u64 {
            t.add(i * 10, packet(1));
        }
        assert!(t.buckets.len() <= 4);
        assert_eq!(t.interval_ns, 320);
        let total: u64 = t.buckets.iter().map(|b| b.payload_bytes).sum();
        assert_eq!(total, 100);
        assert_eq!(t.buckets[0].packets, 32);
    }
}
