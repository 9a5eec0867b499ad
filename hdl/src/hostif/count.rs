//! A saturating event counter of the host interface's bank: adds 0, 1 or 2 at each edge,
//! sticks at 0xFFFFFFFF (the model's `u32::saturating_add`).
//!
//! # Ports
//! - `inc` (in): events at this edge; `value` (out): the count; `reset` (in): to 0.

use rust_hdl::prelude::*;

use crate::widgets::{Param, param};

#[derive(LogicBlock)]
pub struct SatCount {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub inc: Signal<In, Bits<2>>,
    pub value: Signal<Out, Bits<32>>,
    count: DFF<Bits<32>>,
    k_max: Param<Bits<32>>,
    room: Signal<Local, Bits<32>>,
}

impl Default for SatCount {
    fn default() -> Self {
        SatCount {
            clock: Default::default(),
            reset: Default::default(),
            inc: Default::default(),
            value: Default::default(),
            count: Default::default(),
            k_max: param(u64::from(u32::MAX)),
            room: Default::default(),
        }
    }
}

impl Logic for SatCount {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count);
        self.value.next = self.count.q.val();
        self.room.next = self.k_max.val() - self.count.q.val();
        if self.room.val() < bit_cast::<32, 2>(self.inc.val()) {
            self.count.d.next = self.k_max.val();
        } else {
            self.count.d.next = self.count.q.val() + bit_cast::<32, 2>(self.inc.val());
        }
        if self.reset.val() {
            self.count.d.next = 0.into();
        }
    }
}
