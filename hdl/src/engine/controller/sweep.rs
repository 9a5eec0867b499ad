//! The controller's state-RAM sweep after reset: every connection's word is written Free,
//! one per cycle, before the controller takes an event (a Free word must read as Free; the
//! RAM itself has no reset).
//!
//! # Ports
//! - `reset` (in): synchronous; starts the sweep at connection 0.
//! - `active` (out): the sweep writes this cycle (the controller takes no event meanwhile).
//! - `addr` (out): the connection written this cycle.
//!
//! Timing: `active` and `addr` are registers. A sweep takes `connections` cycles after
//! reset falls (the last address is a parameter, so a connection count that is not a power
//! of two stops at its own last connection).

use rust_hdl::prelude::*;

use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlSweep {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub active: Signal<Out, Bit>,
    pub addr: Signal<Out, Bits<8>>,
    on: DFF<Bit>,
    at: DFF<Bits<8>>,
    k_last: Param<Bits<8>>,
}

impl CtlSweep {
    /// A sweep over connections `0..connections`.
    pub fn new(connections: usize) -> Self {
        CtlSweep { k_last: param(connections as u64 - 1), ..Default::default() }
    }
}

impl Logic for CtlSweep {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, on, at);
        self.active.next = self.on.q.val();
        self.addr.next = self.at.q.val();
        if self.on.q.val() {
            self.at.d.next = self.at.q.val() + 1;
            if self.at.q.val() == self.k_last.val() {
                self.on.d.next = false;
            }
        }
        if self.reset.val() {
            self.on.d.next = true;
            self.at.d.next = 0.into();
        }
    }
}
