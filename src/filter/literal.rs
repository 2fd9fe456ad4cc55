//! Bare literals as Wireshark writes them. Each parser returns, on failure, the form it
//! expected, so that a bad literal is answered with an example of a good one.

use std::net::IpAddr;

/// Decimal, `0x` hex, `0b` binary, octal with a leading `0` (as in Wireshark: `010` is 8),
/// or bytes such as `00:00:01:02`, read as a big-endian number (how Wireshark writes the
/// immediate data and other byte fields).
pub fn int(word: &str) -> Result<u64, String> {
    let parsed = if let Some(hex) = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(bin) = word.strip_prefix("0b").or_else(|| word.strip_prefix("0B")) {
        u64::from_str_radix(bin, 2).ok()
    } else if word.contains([':', '-']) {
        bytes(word)
            .ok()
            .filter(|b| b.len() <= 8)
            .map(|b| b.iter().fold(0, |n, &b| n << 8 | u64::from(b)))
    } else if word.len() > 1 && word.starts_with('0') {
        u64::from_str_radix(&word[1..], 8).ok()
    } else {
        word.parse().ok()
    };
    parsed.ok_or_else(|| {
        format!(
            "`{word}` is not a number: write decimal (17), hex (0x11), octal (021), binary (0b10001) or bytes (00:11)"
        )
    })
}

pub fn boolean(word: &str) -> Result<bool, String> {
    match word {
        "1" | "true" | "True" | "TRUE" => Ok(true),
        "0" | "false" | "False" | "FALSE" => Ok(false),
        _ => Err(format!(
            "`{word}` is not a boolean: write true, false, 1 or 0"
        )),
    }
}

/// An address, with the prefix length of a CIDR block if one is given.
pub fn ip(word: &str) -> Result<(IpAddr, Option<u8>), String> {
    let expected = || {
        format!(
            "`{word}` is not an IP address: write 10.0.0.1, fe80::1 (GIDs too) or a CIDR block such as 10.0.0.0/24"
        )
    };
    let (addr, prefix) = match word.split_once('/') {
        Some((addr, bits)) => (addr, Some(bits.parse::<u8>().map_err(|_| expected())?)),
        None => (word, None),
    };
    let addr: IpAddr = addr.parse().map_err(|_| expected())?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    match prefix {
        Some(bits) if bits > max => Err(format!(
            "`{word}`: a prefix length is at most {max} for this address"
        )),
        _ => Ok((addr, prefix)),
    }
}

/// Six bytes, separated by `:` or `-`, or three groups of four hex digits separated by `.`.
pub fn mac(word: &str) -> Result<[u8; 6], String> {
    let expected = || {
        format!(
            "`{word}` is not a MAC address: write 02:00:00:00:00:0a, 02-00-00-00-00-0a or 0200.0000.000a"
        )
    };
    let bytes = if word.split('.').count() == 3 {
        let mut out = Vec::with_capacity(6);
        for group in word.split('.') {
            if group.len() != 4 {
                return Err(expected());
            }
            let n = u16::from_str_radix(group, 16).map_err(|_| expected())?;
            out.extend(n.to_be_bytes());
        }
        out
    } else {
        bytes(word).map_err(|_| expected())?
    };
    bytes.try_into().map_err(|_| expected())
}

/// Hex bytes separated by `:`, `-` or `.`, as Wireshark writes byte strings (`02:00:00`);
/// a single byte may stand alone (`02`).
pub fn bytes(word: &str) -> Result<Vec<u8>, String> {
    let expected = || format!("`{word}` is not a byte string: write hex bytes such as 02:00:00");
    word.split([':', '-', '.'])
        .map(|b| match b.len() {
            1 | 2 => u8::from_str_radix(b, 16).map_err(|_| expected()),
            _ => Err(expected()),
        })
        .collect()
}

/// Seconds since the epoch with up to nine decimals, kept exact as nanoseconds.
pub fn time(word: &str) -> Result<u64, String> {
    let expected = || {
        format!("`{word}` is not a time: write seconds since the epoch, such as 1700000000.000123")
    };
    let (whole, fraction) = word.split_once('.').unwrap_or((word, ""));
    if whole.is_empty() || fraction.len() > 9 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return Err(expected());
    }
    let seconds: u64 = whole.parse().map_err(|_| expected())?;
    let nanos: u64 = format!("{fraction:0<9}").parse().map_err(|_| expected())?;
    seconds
        .checked_mul(1_000_000_000)
        .and_then(|ns| ns.checked_add(nanos))
        .ok_or_else(expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_in_every_base() {
        for (word, want) in [
            ("17", 17),
            ("0", 0),
            ("0x11", 17),
            ("0X1f", 31),
            ("021", 17),
            ("0b10001", 17),
            ("00:11", 17),
            ("01:00:00:00", 1 << 24),
        ] {
            assert_eq!(int(word), Ok(want), "{word}");
        }
        for word in ["12ab", "0x", "08", "0b2", "99999999999999999999", "1.5"] {
            assert!(int(word).unwrap_err().contains("hex (0x11)"), "{word}");
        }
    }

    #[test]
    fn addresses() {
        assert_eq!(ip("10.0.0.1"), Ok(("10.0.0.1".parse().unwrap(), None)));
        assert_eq!(
            ip("10.0.0.0/24"),
            Ok(("10.0.0.0".parse().unwrap(), Some(24)))
        );
        assert_eq!(ip("fe80::/10"), Ok(("fe80::".parse().unwrap(), Some(10))));
        assert!(ip("10.0.0.0/33").unwrap_err().contains("at most 32"));
        assert!(ip("10.0.0").unwrap_err().contains("CIDR block"));
        let mac_a = [2, 0, 0, 0, 0, 0x0a];
        for word in ["02:00:00:00:00:0a", "02-00-00-00-00-0A", "0200.0000.000a"] {
            assert_eq!(mac(word), Ok(mac_a), "{word}");
        }
        for word in [
            "02:00",
            "02:00:00:00:00:0a:01",
            "0200.0000.00a",
            "zz:00:00:00:00:00",
        ] {
            assert!(mac(word).is_err(), "{word}");
        }
        assert_eq!(bytes("02:00:00"), Ok(vec![2, 0, 0]));
        assert_eq!(bytes("ff"), Ok(vec![0xff]));
    }

    #[test]
    fn times_keep_nanoseconds() {
        assert_eq!(time("1700000000.000000001"), Ok(1_700_000_000_000_000_001));
        assert_eq!(time("1700000000.5"), Ok(1_700_000_000_500_000_000));
        assert_eq!(time("2"), Ok(2_000_000_000));
        assert!(time("1.0000000001").is_err());
        assert!(time("abc").is_err());
    }
}
