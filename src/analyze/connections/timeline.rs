//! `analyze --interval`: per-interval payload bytes, packets, retransmissions and CNPs of one
//! direction of a connection, for plots and for spotting stalls. At most a configured number
//! of buckets: when a connection outlasts them, neighbouring buckets merge and the interval
//! doubles, so a long capture costs no more than a short one.
//!
//! The HTML report's throughput and latency charts use the same buckets, with the RTT
//! samples of each interval, which the `--interval` JSON does not write.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bucket {
    pub payload_bytes: u64,
    pub packets: u32,
    pub retransmitted: u32,
    pub cnps: u32,
    /// Payload of packets sent for the first time: goodput.
    pub goodput_bytes: u64,
    /// RTT samples taken in the interval: how many, their sum, least and most.
    pub rtt_samples: u32,
    pub rtt_sum_ns: u64,
    pub rtt_min_ns: u64,
    pub rtt_max_ns: u64,
}

impl Bucket {
    fn merge(&mut self, other: Bucket) {
        self.payload_bytes += other.payload_bytes;
        self.packets += other.packets;
        self.retransmitted += other.retransmitted;
        self.cnps += other.cnps;
        self.goodput_bytes += other.goodput_bytes;
        if other.rtt_samples > 0 {
            self.rtt(
                other.rtt_min_ns,
                other.rtt_max_ns,
                other.rtt_sum_ns,
                other.rtt_samples,
            );
        }
    }

    fn rtt(&mut self, min: u64, max: u64, sum: u64, samples: u32) {
        self.rtt_min_ns = if self.rtt_samples == 0 {
            min
        } else {
            self.rtt_min_ns.min(min)
        };
        self.rtt_max_ns = self.rtt_max_ns.max(max);
        self.rtt_sum_ns = self.rtt_sum_ns.saturating_add(sum);
        self.rtt_samples = self.rtt_samples.saturating_add(samples);
    }

    /// The mean RTT of the interval's samples.
    pub fn rtt_mean_ns(&self) -> Option<u64> {
        (self.rtt_samples > 0).then(|| self.rtt_sum_ns / u64::from(self.rtt_samples))
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
    Packet {
        payload: u32,
        retransmitted: bool,
    },
    Cnp,
    /// A round-trip time measured by the response that arrived then.
    Rtt(u64),
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
                if !retransmitted {
                    bucket.goodput_bytes += u64::from(payload);
                }
            }
            Event::Cnp => bucket.cnps += 1,
            Event::Rtt(ns) => bucket.rtt(ns, ns, ns, 1),
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

    #[test]
    fn rtt_samples_merge_into_min_mean_max() {
        let mut t = Timeline::new(0, 10, 2);
        t.add(0, Event::Rtt(300));
        t.add(5, Event::Rtt(100));
        t.add(15, Event::Rtt(500));
        // The third interval doubles the width: all three land in one bucket.
        t.add(25, packet(1));
        let b = t.buckets[0];
        assert_eq!(t.interval_ns, 20);
        assert_eq!((b.rtt_samples, b.rtt_min_ns, b.rtt_max_ns), (3, 100, 500));
        assert_eq!(b.rtt_mean_ns(), Some(300));
        assert_eq!(t.buckets[1].rtt_mean_ns(), None);
    }
}
