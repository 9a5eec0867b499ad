//! An output register with one skid slot (`hdl/src/widgets/skid.rs`).
//!
//! The producer pushes while the slot is free (`!skid_valid`, a registered signal, so no
//! combinational path runs from the consumer's `ready` back to the producer). An entry pushed
//! while the output is held goes to the slot and moves to the output when the consumer takes
//! the one there. Throughput: one entry per cycle while the consumer is ready.

/// An output register with one skid slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skid<T> {
    pub out_valid: bool,
    pub out: T,
    pub skid_valid: bool,
    pub skid: T,
}

impl<T: Copy + Default> Skid<T> {
    /// The producer may push during this cycle.
    pub fn can_push(&self) -> bool {
        !self.skid_valid
    }

    /// Clock edge: `ready` is the consumer's, `push` a new entry (only when the slot is free;
    /// a push into a full slot is a producer bug, caught by a debug assertion).
    pub fn clock(&mut self, ready: bool, push: Option<T>) {
        if !self.out_valid || ready {
            if self.skid_valid {
                self.out = self.skid;
                self.skid_valid = false;
            } else {
                self.out_valid = push.is_some();
                if let Some(p) = push {
                    self.out = p;
                }
            }
        } else if let Some(p) = push {
            debug_assert!(!self.skid_valid, "push into a full skid slot");
            self.skid = p;
            self.skid_valid = true;
        }
    }

    /// Synchronous reset: both registers empty and cleared.
    pub fn reset(&mut self) {
        *self = Skid::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_one_entry_while_the_consumer_stalls_and_loses_nothing() {
        let mut s = Skid::<u8>::default();
        s.clock(false, Some(1));
        assert!(s.out_valid && s.out == 1 && s.can_push());
        s.clock(false, Some(2));
        assert!(s.out == 1 && s.skid_valid && !s.can_push());
        s.clock(true, None);
        assert!(s.out_valid && s.out == 2 && s.can_push());
        s.clock(true, None);
        assert!(!s.out_valid);
    }

    #[test]
    fn one_entry_per_cycle_while_ready() {
        let mut s = Skid::<u8>::default();
        for k in 1..10 {
            s.clock(true, Some(k));
            assert_eq!((s.out_valid, s.out, s.skid_valid), (true, k, false));
        }
    }
}

crate::ports! {
    /// The skid buffer's inputs, with a 16-bit entry (the widget's own tests).
    pub struct SkidIn {
        reset: bool = 1,
        push: bool = 1,
        push_data: u16 = 16,
        out_ready: bool = 1,
    }
}

crate::ports! {
    /// The skid buffer's outputs.
    pub struct SkidOut {
        can_push: bool = 1,
        out_valid: bool = 1,
        out_data: u16 = 16,
    }
}

impl crate::ports::CycleModel for Skid<u16> {
    type In = SkidIn;
    type Out = SkidOut;
    fn outputs(&self, _i: &SkidIn) -> SkidOut {
        SkidOut { can_push: self.can_push(), out_valid: self.out_valid, out_data: self.out }
    }
    fn clock(&mut self, i: &SkidIn) {
        if i.reset {
            self.reset();
        } else {
            // A push into a full slot is the producer's bug: the widget's tests never do it.
            self.clock(i.out_ready, (i.push && self.can_push()).then_some(i.push_data));
        }
    }
}
