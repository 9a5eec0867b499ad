//! Per-connection state: one LUT-RAM word per connection, swept clear after reset.
//!
//! # Ports
//! - `read_address` (in), `read_data` (out): asynchronous read, as [`LutRam`]: a write at one
//!   edge is seen by a read in the very next cycle, with nothing to forward.
//! - `write_address`, `write_data`, `write_enable` (in): synchronous write at the edge.
//! - `reset` (in): a RAM cannot be cleared in one cycle, so from the edge after reset the
//!   widget writes zero words, one per cycle, for `2^A` cycles (`clearing` high meanwhile,
//!   from registers; the user's writes are ignored and its reads see stale words: hold
//!   requests while `clearing`).
//!
//! Model: the pool manager's `ram` and `clearing` (`sanswitch_model::blocks::pool`).

use rust_hdl::prelude::*;

use super::LutRam;
use super::param::{Param, param};

#[derive(LogicBlock, Default)]
pub struct ConnRam<D: Synth, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, D>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,
    ram: LutRam<D, A>,
    sweeping: DFF<Bit>,
    sweep_addr: DFF<Bits<A>>,
    c_zero: Param<D>,
    c_last: Param<Bits<A>>,
}

impl<D: Synth, const A: usize> ConnRam<D, A> {
    pub fn new() -> Self {
        ConnRam { c_last: param((1u64 << A) - 1), ..Default::default() }
    }
}

impl<D: Synth, const A: usize> Logic for ConnRam<D, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sweeping, sweep_addr);
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.read_address.val();
        self.read_data.next = self.ram.read_data.val();
        self.ram.write_address.next = self.write_address.val();
        self.ram.write_data.next = self.write_data.val();
        self.ram.write_enable.next = self.write_enable.val();
        if self.sweeping.q.val() {
            self.ram.write_address.next = self.sweep_addr.q.val();
            self.ram.write_data.next = self.c_zero.val();
            self.ram.write_enable.next = true;
            self.sweep_addr.d.next = self.sweep_addr.q.val() + 1;
            if self.sweep_addr.q.val() == self.c_last.val() {
                self.sweeping.d.next = false;
                self.sweep_addr.d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.sweeping.d.next = true;
            self.sweep_addr.d.next = 0.into();
        }
        self.clearing.next = self.sweeping.q.val();
    }
}
