//! PSN arithmetic: 24-bit serial numbers compared within half the space (2^23), so that
//! 0xFFFFFF is followed by 0 without a gap.

pub const PSN_MASK: u32 = 0x00ff_ffff;
const HALF: i32 = 1 << 23;

/// `a - b` as a signed distance in serial arithmetic, in −2^23 ..= 2^23−1.
#[inline]
pub fn diff(a: u32, b: u32) -> i32 {
    let d = (a.wrapping_sub(b) & PSN_MASK) as i32;
    if d >= HALF { d - (1 << 24) } else { d }
}

/// `psn + n`, wrapping at 2^24.
#[inline]
pub fn add(psn: u32, n: u32) -> u32 {
    psn.wrapping_add(n) & PSN_MASK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps() {
        assert_eq!(diff(0, 0xff_ffff), 1);
        assert_eq!(diff(0xff_ffff, 0), -1);
        assert_eq!(diff(5, 3), 2);
        assert_eq!(diff(3, 5), -2);
        assert_eq!(add(0xff_fffe, 3), 1);
        assert_eq!(diff(0x80_0000, 0), -(1 << 23));
    }
}
