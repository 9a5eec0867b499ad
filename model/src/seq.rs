//! Sequence numbers: 32-bit serial numbers compared wrap-safely (RFC 1982 style), as SDP's
//! `before()`/`after()` do. Every comparison of `mseq` values in the model, the hardware and the
//! driver goes through these functions.

/// `a` comes strictly before `b` in sequence space.
pub fn before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// `a` comes strictly after `b` in sequence space.
pub fn after(a: u32, b: u32) -> bool {
    before(b, a)
}

/// `x` lies in the closed window `[lo, hi]` of sequence space (`lo` not after `hi`).
pub fn in_window(x: u32, lo: u32, hi: u32) -> bool {
    x.wrapping_sub(lo) <= hi.wrapping_sub(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_survive_the_wrap() {
        assert!(before(u32::MAX, 0));
        assert!(after(0, u32::MAX));
        assert!(before(u32::MAX - 5, 3));
        assert!(!before(7, 7));
        assert!(in_window(1, u32::MAX - 1, 2));
        assert!(!in_window(3, u32::MAX - 1, 2));
        assert!(in_window(u32::MAX, u32::MAX, u32::MAX));
    }
}
