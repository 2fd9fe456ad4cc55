//! One host, however its packets address it. RoCE v1 carries GIDs where RoCE v2 over IPv4
//! carries IPv4 addresses, and one NIC may speak both: the analysis keys, pairs and shows
//! such a host by its IPv4 address, so that its v1 requests meet their v2 responses.
//! `read` still shows every address as the packet carries it.
//!
//! Two GIDs name an IPv4 host:
//! - an IPv4-mapped GID (`::ffff:a.b.c.d`, the GID a RoCE NIC derives from its IPv4
//!   address) is the host `a.b.c.d`, always;
//! - a link-local GID (`fe80::/64`) whose interface ID is a modified EUI-64 (`ff:fe` in its
//!   middle, the universal/local bit flipped) names the MAC it was built from. When the
//!   capture has shown that MAC carrying RoCE v2 over IPv4 from or to exactly one address
//!   (Ethernet source with IP source, Ethernet destination with IP destination), the GID is
//!   that address, from then on. A MAC seen with several addresses (a router's) names no
//!   host; packets before the first RoCE v2 packet of the MAC keep their GID, since one
//!   pass cannot re-key what it has already counted.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::key::FlowKey;
use crate::dissect::{Address, Kind, Packet};
use crate::wire::ethernet::Mac;

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// MACs remembered at most; beyond it new ones are not learnt (a capture of that many
/// RoCE v2 senders is not the mixed v1/v2 one this is for).
const MAX_MACS: usize = 65_536;

/// Recently learnt (MAC, address) pairs, by the MAC's last byte: nearly every RoCE v2
/// packet repeats one of them and costs a compare instead of a map lookup.
const RECENT: usize = 16;

/// The host an address names, when the address alone says: an IPv4-mapped GID is the IPv4
/// host. Every other address is its own host.
#[inline]
pub fn host(addr: Address) -> Address {
    match addr {
        Address::Gid(gid) => match gid.to_ipv4_mapped() {
            Some(v4) => Address::Ip(IpAddr::V4(v4)),
            None => addr,
        },
        _ => addr,
    }
}

/// The MAC a link-local GID was built from by modified EUI-64, if it was.
fn eui64_mac(gid: Ipv6Addr) -> Option<Mac> {
    let b = gid.octets();
    let link_local = b[..8] == [0xfe, 0x80, 0, 0, 0, 0, 0, 0];
    (link_local && b[11] == 0xff && b[12] == 0xfe)
        .then(|| Mac([b[8] ^ 0x02, b[9], b[10], b[13], b[14], b[15]]))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sender {
    One(Ipv4Addr),
    /// More than one address: no host to name.
    Several,
}

/// What the capture has shown of MACs sending RoCE v2 over IPv4.
#[derive(Debug, Clone, Default)]
pub struct Hosts {
    macs: Map<Mac, Sender>,
    recent: [Option<(Mac, Ipv4Addr)>; RECENT],
    /// The last packet's MACs and IPv4 addresses, learnt: a stream of packets between two
    /// hosts repeats them, and costs two compares instead of two learnings.
    last: Option<([u8; 12], u64)>,
}

impl Hosts {
    /// Makes `key`'s addresses hosts; learns both MACs of a RoCE v2 packet. In place: a
    /// key is 40 bytes, and copying it in and out cost more than the look-ups. Inlined:
    /// the call's saving and restoring of registers cost as much as its work.
    #[inline(always)]
    pub fn rekey(&mut self, pkt: &Packet<'_>, key: &mut FlowKey) {
        if pkt.kind == Kind::RoceV2
            && let (Some(eth), Address::Ip(IpAddr::V4(src)), Address::Ip(IpAddr::V4(dst))) =
                (&pkt.eth, &key.src, &key.dst)
        {
            let macs: [u8; 12] = eth.bytes()[..12].try_into().unwrap_or_default();
            let ips = u64::from(src.to_bits()) << 32 | u64::from(dst.to_bits());
            if self.last != Some((macs, ips)) {
                self.last = Some((macs, ips));
                self.learn(eth.src(), *src);
                self.learn(eth.dst(), *dst);
            }
            // IPv4 keys are hosts already.
            return;
        }
        // Only a link-local GID can name another host (`FlowKey::of` has made IPv4-mapped
        // ones IPv4 already); IPv6 RoCE v2 keys are hosts already and skip the look-ups.
        let gid = matches!(key.src, Address::Gid(_)) || matches!(key.dst, Address::Gid(_));
        if gid && !self.macs.is_empty() {
            key.src = self.host(key.src);
            key.dst = self.host(key.dst);
        }
    }

    /// The host `addr` names, as far as the capture has shown so far.
    #[inline]
    pub fn host(&self, addr: Address) -> Address {
        let addr = host(addr);
        match addr {
            Address::Gid(gid) if !self.macs.is_empty() => self.by_mac(gid).unwrap_or(addr),
            _ => addr,
        }
    }

    #[inline(never)]
    fn by_mac(&self, gid: Ipv6Addr) -> Option<Address> {
        match self.macs.get(&eui64_mac(gid)?)? {
            Sender::One(v4) => Some(Address::Ip(IpAddr::V4(*v4))),
            Sender::Several => None,
        }
    }

    #[inline(never)]
    fn learn(&mut self, mac: Mac, v4: Ipv4Addr) {
        let recent = &mut self.recent[usize::from(mac.0[5]) % RECENT];
        if *recent == Some((mac, v4)) {
            return;
        }
        *recent = Some((mac, v4));
        self.remember(mac, v4);
    }

    #[inline(never)]
    fn remember(&mut self, mac: Mac, v4: Ipv4Addr) {
        if let Some(sender) = self.macs.get_mut(&mac) {
            if *sender != Sender::One(v4) {
                *sender = Sender::Several;
            }
        } else if self.macs.len() < MAX_MACS {
            self.macs.insert(mac, Sender::One(v4));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gid(s: &str) -> Address {
        Address::Gid(s.parse().unwrap())
    }

    fn v4(s: &str) -> Address {
        Address::Ip(IpAddr::V4(s.parse().unwrap()))
    }

    #[test]
    fn an_ipv4_mapped_gid_is_the_ipv4_host() {
        assert_eq!(host(gid("::ffff:172.17.242.47")), v4("172.17.242.47"));
        assert_eq!(host(gid("fe80::1")), gid("fe80::1"));
        assert_eq!(host(v4("10.0.0.1")), v4("10.0.0.1"));
        // An IPv4-compatible (deprecated, ::a.b.c.d) GID is not a mapped one.
        assert_eq!(host(gid("::10.0.0.1")), gid("::10.0.0.1"));
    }

    #[test]
    fn modified_eui64_gives_back_the_mac() {
        // 02:00:00:00:29:01 -> interface ID 0000:00ff:fe00:2901 (U/L bit flipped).
        assert_eq!(
            eui64_mac("fe80::ff:fe00:2901".parse().unwrap()),
            Some(Mac([0x02, 0, 0, 0, 0x29, 0x01]))
        );
        // b8:ce:f6:12:34:56 -> bace:f6ff:fe12:3456.
        assert_eq!(
            eui64_mac("fe80::bace:f6ff:fe12:3456".parse().unwrap()),
            Some(Mac([0xb8, 0xce, 0xf6, 0x12, 0x34, 0x56]))
        );
        assert_eq!(eui64_mac("fe80::1".parse().unwrap()), None);
        assert_eq!(eui64_mac("fd00::ff:fe00:2901".parse().unwrap()), None);
    }

    #[test]
    fn a_mac_seen_from_several_addresses_names_no_host() {
        let mut hosts = Hosts::default();
        let mac = Mac([0x02, 0, 0, 0, 0x29, 0x01]);
        hosts.remember(mac, "10.0.0.1".parse().unwrap());
        assert_eq!(hosts.host(gid("fe80::ff:fe00:2901")), v4("10.0.0.1"));
        hosts.remember(mac, "10.0.0.1".parse().unwrap());
        assert_eq!(hosts.host(gid("fe80::ff:fe00:2901")), v4("10.0.0.1"));
        hosts.remember(mac, "10.0.0.9".parse().unwrap());
        assert_eq!(
            hosts.host(gid("fe80::ff:fe00:2901")),
            gid("fe80::ff:fe00:2901")
        );
        // The mapped form needs no MAC.
        assert_eq!(hosts.host(gid("::ffff:10.0.0.5")), v4("10.0.0.5"));
    }
}
