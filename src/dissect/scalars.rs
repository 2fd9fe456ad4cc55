//! Text of numbers and addresses, written into fixed-size arrays without `fmt`: the JSON
//! writer gathers a field on the stack and appends it with one copy of constant size, so
//! each formatter here fills a slot of its worst-case length and says how much of it it
//! used. Here, below the layers that print, so that an address's `Display` uses it too.

use std::net::{Ipv4Addr, Ipv6Addr};

/// `PAIRS[n]` is `n` in two decimal digits, so that numbers are cut two digits a division.
const PAIRS: [[u8; 2]; 100] = {
    let mut table = [[0; 2]; 100];
    let mut n = 0;
    while n < 100 {
        table[n] = [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8];
        n += 1;
    }
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `HEX_COLON[b]` is `b` in two lowercase hex digits and the colon that follows it in a MAC.
const HEX_COLON: [[u8; 3]; 256] = {
    let mut table = [[0; 3]; 256];
    let mut n = 0;
    while n < 256 {
        table[n] = [HEX[n >> 4], HEX[n & 0xf], b':'];
        n += 1;
    }
    table
};

/// `OCTET_DOT[b]` is `b` in decimal and a dot, padded to four bytes so that each octet of a
/// dotted quad is one 4-byte store, and the length of the digits with their dot.
const OCTET_DOT: [([u8; 4], usize); 256] = {
    let mut table = [([0; 4], 0); 256];
    let mut n = 0;
    while n < 256 {
        let d = [
            b'0' + (n / 100) as u8,
            b'0' + (n / 10 % 10) as u8,
            b'0' + (n % 10) as u8,
        ];
        table[n] = if n >= 100 {
            ([d[0], d[1], d[2], b'.'], 4)
        } else if n >= 10 {
            ([d[1], d[2], b'.', 0], 3)
        } else {
            ([d[2], b'.', 0, 0], 2)
        };
        n += 1;
    }
    table
};

/// Longest text of a `u64` (`u64::MAX`).
pub const U64_MAX_LEN: usize = 20;

/// Writes `value` in decimal at the start of `buf`; returns the number of digits.
#[inline(always)]
pub fn u64_digits(buf: &mut [u8; U64_MAX_LEN], value: u64) -> usize {
    // Nearly all fields of a packet are 32 bits or fewer, and inlined at each of them the
    // test folds away; the wider ones (64-bit timestamps, addresses) are rarer.
    match u32::try_from(value) {
        Ok(value) => u32_digits(buf, value),
        Err(_) => wide_digits(buf, value),
    }
}

#[inline(always)]
fn u32_digits(buf: &mut [u8; U64_MAX_LEN], mut value: u32) -> usize {
    // Most fields of a packet are flags and small numbers.
    if value < 10 {
        buf[0] = b'0' + value as u8;
        return 1;
    }
    let len = value.ilog10() as usize + 1;
    let mut end = len;
    while value >= 100 {
        end -= 2;
        buf[end..end + 2].copy_from_slice(&PAIRS[(value % 100) as usize]);
        value /= 100;
    }
    if value >= 10 {
        buf[..2].copy_from_slice(&PAIRS[value as usize]);
    } else {
        buf[0] = b'0' + value as u8;
    }
    len
}

/// A value above `u32::MAX`: eight digits a 64-bit division until the rest fits 32 bits.
#[inline(never)]
fn wide_digits(buf: &mut [u8; U64_MAX_LEN], mut value: u64) -> usize {
    let len = value.ilog10() as usize + 1;
    let mut end = len;
    while value > u64::from(u32::MAX) {
        end -= 8;
        let low: &mut [u8; 8] = (&mut buf[end..end + 8]).try_into().expect("8 bytes");
        eight_digits(low, (value % 100_000_000) as u32);
        value /= 100_000_000;
    }
    let high_len = u32_digits(buf, value as u32);
    debug_assert_eq!(high_len, end);
    len
}

/// Writes `value` (below 10⁸) as exactly eight digits, zero-padded.
#[inline]
fn eight_digits(buf: &mut [u8; 8], value: u32) {
    let (high, low) = (value / 10_000, value % 10_000);
    buf[0..2].copy_from_slice(&PAIRS[(high / 100) as usize]);
    buf[2..4].copy_from_slice(&PAIRS[(high % 100) as usize]);
    buf[4..6].copy_from_slice(&PAIRS[(low / 100) as usize]);
    buf[6..8].copy_from_slice(&PAIRS[(low % 100) as usize]);
}

/// Writes `ns` (below 10⁹) as exactly nine digits, zero-padded: the fraction of a timestamp.
#[inline]
pub fn nanos_digits(buf: &mut [u8; 9], ns: u32) {
    debug_assert!(ns < 1_000_000_000);
    buf[0] = b'0' + (ns / 100_000_000) as u8;
    let rest: &mut [u8; 8] = (&mut buf[1..]).try_into().expect("8 bytes");
    eight_digits(rest, ns % 100_000_000);
}

/// Writes a MAC address as `xx:xx:xx:xx:xx:xx` followed by one spare colon (so that every
/// byte is the same 3-byte store); returns 17, the length without that colon.
#[inline]
pub fn mac(buf: &mut [u8; 18], mac: [u8; 6]) -> usize {
    for (chunk, byte) in buf.chunks_exact_mut(3).zip(mac) {
        chunk.copy_from_slice(&HEX_COLON[usize::from(byte)]);
    }
    17
}

/// Writes an IPv4 address in dotted-quad form, as `Ipv4Addr`'s `Display` does, followed
/// by one spare dot; returns the length without that dot (at most 15).
#[inline]
pub fn ipv4(buf: &mut [u8; 16], ip: Ipv4Addr) -> usize {
    let mut len = 0;
    for octet in ip.octets() {
        let (text, text_len) = OCTET_DOT[usize::from(octet)];
        buf[len..len + 4].copy_from_slice(&text);
        len += text_len;
    }
    len - 1
}

/// The text the writers here made: ASCII only, so the check cannot fail.
pub fn ascii(text: &[u8]) -> &str {
    std::str::from_utf8(text).unwrap_or_default()
}

/// Longest text of an IPv6 address (eight groups of four hex digits and seven colons).
pub const IPV6_MAX_LEN: usize = 39;

/// Writes an IPv6 address as `Ipv6Addr`'s `Display` does: RFC 5952 text (lowercase hex
/// without leading zeros, the longest run of two or more zero groups, the first of equal
/// runs, shortened to `::`) and IPv4-mapped addresses as `::ffff:a.b.c.d`. Returns the length.
pub fn ipv6(buf: &mut [u8; IPV6_MAX_LEN], ip: Ipv6Addr) -> usize {
    if let Some(v4) = ip.to_ipv4_mapped() {
        buf[..7].copy_from_slice(b"::ffff:");
        let quad: &mut [u8; 16] = (&mut buf[7..23]).try_into().expect("16 bytes");
        return 7 + ipv4(quad, v4);
    }
    let groups = ip.segments();
    let (zeros_at, zeros_len) = longest_zero_run(&groups);
    let mut len = 0;
    let mut i = 0;
    while i < groups.len() {
        if zeros_len > 1 && i == zeros_at {
            buf[len..len + 2].copy_from_slice(b"::");
            len += 2;
            i += zeros_len;
            continue;
        }
        let after_zeros = zeros_len > 1 && i == zeros_at + zeros_len;
        if i > 0 && !after_zeros {
            buf[len] = b':';
            len += 1;
        }
        len += hex_group(&mut buf[len..], groups[i]);
        i += 1;
    }
    len
}

/// Start and length of the first longest run of zero groups (length 0 if there is none).
fn longest_zero_run(groups: &[u16; 8]) -> (usize, usize) {
    let (mut best_at, mut best_len) = (0, 0);
    let (mut run_at, mut run_len) = (0, 0);
    for (i, &group) in groups.iter().enumerate() {
        if group == 0 {
            if run_len == 0 {
                run_at = i;
            }
            run_len += 1;
            if run_len > best_len {
                (best_at, best_len) = (run_at, run_len);
            }
        } else {
            run_len = 0;
        }
    }
    (best_at, best_len)
}

/// Writes `group` in lowercase hex without leading zeros; returns the number of digits.
fn hex_group(buf: &mut [u8], group: u16) -> usize {
    let digits = (4 - group.leading_zeros() as usize / 4).max(1);
    for (i, slot) in buf[..digits].iter_mut().enumerate() {
        let shift = 4 * (digits - 1 - i);
        *slot = HEX[usize::from((group >> shift) & 0xf)];
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small xorshift generator: reproducible values without a dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    fn u64_text(value: u64) -> String {
        let mut buf = [0; U64_MAX_LEN];
        let len = u64_digits(&mut buf, value);
        String::from_utf8(buf[..len].to_vec()).unwrap()
    }

    fn ipv4_text(ip: Ipv4Addr) -> String {
        let mut buf = [0; 16];
        let len = ipv4(&mut buf, ip);
        String::from_utf8(buf[..len].to_vec()).unwrap()
    }

    fn ipv6_text(ip: Ipv6Addr) -> String {
        let mut buf = [0; IPV6_MAX_LEN];
        let len = ipv6(&mut buf, ip);
        String::from_utf8(buf[..len].to_vec()).unwrap()
    }

    #[test]
    fn u64_edges() {
        let cases = [
            (0, "0"),
            (9, "9"),
            (10, "10"),
            (99, "99"),
            (100, "100"),
            (4791, "4791"),
            (65_535, "65535"),
            (1_000_000_000, "1000000000"),
            (u64::from(u32::MAX), "4294967295"),
            (1_700_000_000_000_000_000, "1700000000000000000"),
            (9_999_999_999_999_999_999, "9999999999999999999"),
            (10_000_000_000_000_000_000, "10000000000000000000"),
            (u64::MAX, "18446744073709551615"),
        ];
        for (value, want) in cases {
            assert_eq!(u64_text(value), want);
        }
        for power in 0..20 {
            let p = 10u64.pow(power);
            for value in [p - 1, p, p + 1] {
                assert_eq!(u64_text(value), value.to_string());
            }
        }
    }

    #[test]
    fn u64_random() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200_000 {
            let value = rng.next() >> (rng.next() % 64);
            assert_eq!(u64_text(value), value.to_string());
        }
    }

    #[test]
    fn nanos() {
        let text = |ns| {
            let mut buf = [0; 9];
            nanos_digits(&mut buf, ns);
            String::from_utf8(buf.to_vec()).unwrap()
        };
        assert_eq!(text(0), "000000000");
        assert_eq!(text(1), "000000001");
        assert_eq!(text(100), "000000100");
        assert_eq!(text(123_456_789), "123456789");
        assert_eq!(text(999_999_999), "999999999");
        let mut rng = Rng(7);
        for _ in 0..100_000 {
            let ns = (rng.next() % 1_000_000_000) as u32;
            assert_eq!(text(ns), format!("{ns:09}"));
        }
    }

    #[test]
    fn macs() {
        let text = |m| {
            let mut buf = [0; 18];
            let len = mac(&mut buf, m);
            String::from_utf8(buf[..len].to_vec()).unwrap()
        };
        assert_eq!(text([0; 6]), "00:00:00:00:00:00");
        assert_eq!(text([0xff; 6]), "ff:ff:ff:ff:ff:ff");
        assert_eq!(text([2, 0, 0, 0, 0, 1]), "02:00:00:00:00:01");
        assert_eq!(
            text([0x0a, 0xb0, 0xcd, 0x1e, 0xf2, 0x39]),
            "0a:b0:cd:1e:f2:39"
        );
    }

    #[test]
    fn ipv4_edges_and_random() {
        for ip in [
            Ipv4Addr::new(0, 0, 0, 0),
            Ipv4Addr::new(255, 255, 255, 255),
            Ipv4Addr::new(10, 0, 0, 1),
            Ipv4Addr::new(1, 22, 100, 9),
            Ipv4Addr::new(100, 10, 1, 0),
        ] {
            assert_eq!(ipv4_text(ip), ip.to_string());
        }
        for octet in 0..=255 {
            let ip = Ipv4Addr::new(octet, 255 - octet, octet / 3, octet.wrapping_mul(7));
            assert_eq!(ipv4_text(ip), ip.to_string());
        }
        let mut rng = Rng(42);
        for _ in 0..100_000 {
            let ip = Ipv4Addr::from(rng.next() as u32);
            assert_eq!(ipv4_text(ip), ip.to_string());
        }
    }

    #[test]
    fn ipv6_edges() {
        let cases = [
            "::",
            "::1",
            "1::",
            "::ffff:1.2.3.4",
            "::ffff:0.0.0.0",
            "::ffff:255.255.255.255",
            "::1.2.3.4",
            "::ffff:0:0",
            "64:ff9b::1.2.3.4",
            "fe80::1",
            "fe80::2:0:0:1",
            "1:0:0:2:0:0:3:4",
            "1:0:0:2:0:0:0:3",
            "1:0:2:3:4:5:6:7",
            "0:1:2:3:4:5:6:0",
            "1:2:3:4:5:6:7:8",
            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "1:0:0:0:2:0:0:0",
            "0:0:1:0:0:1:0:0",
            "abcd:ef01:2345:6789:a:bc:def:1000",
            "2001:db8::ff00:42:8329",
        ];
        for text in cases {
            let ip: Ipv6Addr = text.parse().unwrap();
            assert_eq!(ipv6_text(ip), ip.to_string(), "{text}");
        }
    }

    #[test]
    fn ipv6_random() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..200_000 {
            // Each group zero half the time, so that zero runs of all lengths and places
            // (and ties between runs) come up often; sometimes small, sometimes IPv4-mapped.
            let mut groups = [0u16; 8];
            for group in &mut groups {
                let r = rng.next();
                *group = match r % 4 {
                    0 | 1 => 0,
                    2 => (r >> 8) as u16 & 0xff,
                    _ => (r >> 16) as u16,
                };
            }
            if rng.next().is_multiple_of(8) {
                groups[..5].fill(0);
                groups[5] = 0xffff;
            }
            let ip = Ipv6Addr::from(groups);
            assert_eq!(ipv6_text(ip), ip.to_string(), "{groups:x?}");
        }
    }
}
