//! The LUT-RAM FIFO (`hdl/src/widgets/lut_fifo.rs`): while it holds entries, the same FIFO as
//! [`Fifo`](super::Fifo) (head, `can_push`, `pop` and `push` at the edge); while empty, its
//! head shows the RAM word at the read pointer (the last entry taken, or zero if that word
//! was never written), as the hardware's unmasked RAM read does. The engine's model uses
//! [`Fifo`](super::Fifo), which says nothing while empty: its users read the head only with
//! `valid`. This model exists so the widget's test can compare every output every cycle.

use super::fifo::{FifoIn, FifoOut};

/// A FIFO of `cap` (1..=32) entries in a 32-word RAM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LutFifo<T> {
    cap: usize,
    ram: [T; 32],
    rp: usize,
    wp: usize,
    n: usize,
}

impl<T: Copy + Default> LutFifo<T> {
    pub fn new(cap: usize) -> Self {
        assert!((1..=32).contains(&cap));
        LutFifo { cap, ram: [T::default(); 32], rp: 0, wp: 0, n: 0 }
    }

    /// The entry at the head, shown during this cycle.
    pub fn head(&self) -> Option<&T> {
        (self.n > 0).then(|| &self.ram[self.rp])
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub fn can_push(&self) -> bool {
        self.n < self.cap
    }
}

impl crate::ports::CycleModel for LutFifo<u16> {
    type In = FifoIn;
    type Out = FifoOut;
    fn outputs(&self, _i: &FifoIn) -> FifoOut {
        FifoOut { valid: self.n > 0, head: self.ram[self.rp], can_push: self.can_push() }
    }
    fn clock(&mut self, i: &FifoIn) {
        // The RAM is written whenever `push` is high, reset or not (its write enable is the
        // push alone); a push while full or a pop while empty is the user's bug, which the
        // widget's tests never do.
        if i.push {
            self.ram[self.wp] = i.push_data;
        }
        if i.reset {
            (self.rp, self.wp, self.n) = (0, 0, 0);
            return;
        }
        if i.pop {
            self.rp = (self.rp + 1) % 32;
            self.n -= 1;
        }
        if i.push {
            self.wp = (self.wp + 1) % 32;
            self.n += 1;
        }
    }
}
