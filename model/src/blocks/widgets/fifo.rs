//! A synchronous first-word-fall-through FIFO (rust-hdl's `SynchronousFIFO`).
//!
//! The head shows while the FIFO is not empty; `pop` takes it at the edge. `can_push` is from
//! registers (the count before the edge), so a full FIFO refuses a push even in the cycle its
//! head is taken: no combinational path runs from the consumer back to the producer.

use std::collections::VecDeque;

/// A FIFO of `cap` entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fifo<T> {
    cap: usize,
    q: VecDeque<T>,
}

impl<T: Clone> Fifo<T> {
    pub fn new(cap: usize) -> Self {
        Fifo { cap, q: VecDeque::with_capacity(cap) }
    }

    /// The entry at the head, shown during this cycle.
    pub fn head(&self) -> Option<&T> {
        self.q.front()
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// The producer may push during this cycle.
    pub fn can_push(&self) -> bool {
        self.q.len() < self.cap
    }

    /// Clock edge: take the head when `pop`, append `push`. A push while full or a pop while
    /// empty is a bug of the unit using the FIFO (debug assertion).
    pub fn clock(&mut self, pop: bool, push: Option<T>) {
        debug_assert!(!pop || !self.q.is_empty(), "pop of an empty FIFO");
        debug_assert!(push.is_none() || self.can_push(), "push into a full FIFO");
        if pop {
            self.q.pop_front();
        }
        if let Some(p) = push {
            self.q.push_back(p);
        }
    }

    pub fn reset(&mut self) {
        self.q.clear();
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.q.iter()
    }
}

crate::ports! {
    /// The FIFO's inputs, with a 16-bit entry (the widget's own tests).
    pub struct FifoIn {
        reset: bool = 1,
        push: bool = 1,
        push_data: u16 = 16,
        pop: bool = 1,
    }
}

crate::ports! {
    /// The FIFO's outputs (`head` zero while empty).
    pub struct FifoOut {
        valid: bool = 1,
        head: u16 = 16,
        can_push: bool = 1,
    }
}

impl crate::ports::CycleModel for Fifo<u16> {
    type In = FifoIn;
    type Out = FifoOut;
    fn outputs(&self, _i: &FifoIn) -> FifoOut {
        FifoOut {
            valid: !self.is_empty(),
            head: self.head().copied().unwrap_or(0),
            can_push: self.can_push(),
        }
    }
    fn clock(&mut self, i: &FifoIn) {
        if i.reset {
            self.reset();
        } else {
            // A push while full or a pop while empty is the user's bug: the widget's tests
            // never do it.
            self.clock(
                i.pop && !self.is_empty(),
                (i.push && self.can_push()).then_some(i.push_data),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_fifo_refuses_a_push_even_when_popped() {
        let mut f = Fifo::new(2);
        f.clock(false, Some(1));
        f.clock(false, Some(2));
        assert!(!f.can_push());
        f.clock(true, None);
        assert_eq!(f.head(), Some(&2));
        assert!(f.can_push());
        f.clock(true, Some(3));
        assert_eq!(f.head(), Some(&3));
        assert_eq!(f.len(), 1);
    }
}
