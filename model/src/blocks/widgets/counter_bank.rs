//! A bank of 32-bit event counters with one increment lane and a narrow read port
//! (`hdl/src/widgets/counter_bank.rs`).
//!
//! The counters live in a LUT RAM (one adder for the whole bank instead of one per counter),
//! with one "live" flip-flop per counter so that a synchronous reset clears every counter in
//! one cycle: a counter whose live bit is clear reads 0 and its next increment writes 1.
//!
//! - **Increment**: `inc` with `inc_index` during cycle `t` is registered at edge `t + 1` and
//!   adds 1 (wrapping) at edge `t + 2`; one increment per cycle; an index at or beyond the
//!   bank's size is ignored.
//! - **Read**: `rd_index` during cycle `t` gives, during cycle `t + 1`, the counter's value
//!   after edge `t` (an increment landing at edge `t + 1` shows a cycle later); an index at
//!   or beyond the bank's size reads 0.
//! - **Reset**: every counter reads 0 from the next cycle; `rd_data` is 0 the cycle after.

/// A bank of `len` counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterBank {
    counts: Vec<u32>,
    /// The registered increment, applied at the next edge.
    pending: Option<usize>,
    /// The registered read port.
    rd_data: u32,
}

impl CounterBank {
    pub fn new(len: usize) -> Self {
        assert!((1..=32).contains(&len), "a counter bank has 1 to 32 counters");
        CounterBank { counts: vec![0; len], pending: None, rd_data: 0 }
    }

    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The read port's output during this cycle.
    pub fn rd_data(&self) -> u32 {
        self.rd_data
    }

    /// A counter's value after the events so far have landed (for tests and figures; the
    /// hardware reads through the port).
    pub fn get(&self, index: usize) -> u32 {
        let c = self.counts.get(index).copied().unwrap_or(0);
        c.wrapping_add(u32::from(self.pending == Some(index)))
    }

    /// Clock edge: `inc` is the index counted this cycle, if any; `rd_index` the index read.
    pub fn clock(&mut self, inc: Option<usize>, rd_index: usize) {
        self.rd_data = self.counts.get(rd_index).copied().unwrap_or(0);
        if let Some(c) = self.pending.and_then(|k| self.counts.get_mut(k)) {
            *c = c.wrapping_add(1);
        }
        self.pending = inc.filter(|&k| k < self.counts.len());
    }

    /// Synchronous reset.
    pub fn reset(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.pending = None;
        self.rd_data = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_reads_back_and_ignores_indexes_past_the_end() {
        let mut b = CounterBank::new(3);
        b.clock(Some(1), 1);
        assert_eq!(b.rd_data(), 0, "the event is registered first");
        b.clock(Some(3), 1);
        assert_eq!(b.rd_data(), 0, "it lands at this edge, after the read");
        b.clock(Some(2), 1);
        assert_eq!(b.rd_data(), 1);
        b.clock(None, 3);
        assert_eq!(b.rd_data(), 0);
        assert_eq!((b.get(0), b.get(1), b.get(2)), (0, 1, 1));
        b.clock(None, 2);
        assert_eq!(b.rd_data(), 1);
        b.reset();
        assert_eq!((b.get(1), b.rd_data()), (0, 0));
    }

    #[test]
    fn wraps_at_32_bits() {
        let mut b = CounterBank::new(1);
        b.counts[0] = u32::MAX;
        b.clock(Some(0), 0);
        b.clock(None, 0);
        b.clock(None, 0);
        assert_eq!(b.rd_data(), 0);
    }
}

crate::ports! {
    /// The counter bank's inputs (the widget's own tests).
    pub struct CounterBankIn {
        reset: bool = 1,
        inc: bool = 1,
        inc_index: u8 = crate::params::CNT_INDEX_BITS,
        rd_index: u8 = crate::params::CNT_INDEX_BITS,
    }
}

crate::ports! {
    /// The counter bank's outputs.
    pub struct CounterBankOut {
        rd_data: u32 = 32,
    }
}

impl crate::ports::CycleModel for CounterBank {
    type In = CounterBankIn;
    type Out = CounterBankOut;
    fn outputs(&self, _i: &CounterBankIn) -> CounterBankOut {
        CounterBankOut { rd_data: self.rd_data() }
    }
    fn clock(&mut self, i: &CounterBankIn) {
        if i.reset {
            self.reset();
        } else {
            self.clock(i.inc.then_some(i.inc_index as usize), i.rd_index as usize);
        }
    }
}
