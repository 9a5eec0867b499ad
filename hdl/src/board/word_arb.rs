//! Two masters on one node memory's word port, round robin. Model:
//! `sanswitch_model::blocks::san_loop::WordArb`.
//!
//! # Ports
//! - `s_a_*`, `s_b_*` (in: `valid`, `write`, `index`, `wdata`, `wmask`; out: `ready`): the
//!   masters' requests, held until `ready`.
//! - `m_mem_*` (out), `m_mem_ready` (in): the request chosen this cycle, as the memory's
//!   `s_mem_*`; `ready` goes back to the chosen master only.
//! - `rdata_b` (out): the memory's read data this cycle answers `b`'s read (the memory
//!   answers exactly one cycle after the grant, as `NodeMem` does).
//! - `reset` (in): synchronous.
//!
//! # Timing
//! Combinational from the masters to the memory and back; when both ask, the one not served
//! last. The masters' `valid`s must not depend on their `ready`s.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct WordArb {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_a_valid: Signal<In, Bit>,
    pub s_a_write: Signal<In, Bit>,
    pub s_a_index: Signal<In, Bits<16>>,
    pub s_a_wdata: Signal<In, Bits<64>>,
    pub s_a_wmask: Signal<In, Bits<8>>,
    pub s_b_valid: Signal<In, Bit>,
    pub s_b_write: Signal<In, Bit>,
    pub s_b_index: Signal<In, Bits<16>>,
    pub s_b_wdata: Signal<In, Bits<64>>,
    pub s_b_wmask: Signal<In, Bits<8>>,
    pub m_mem_ready: Signal<In, Bit>,
    pub s_a_ready: Signal<Out, Bit>,
    pub s_b_ready: Signal<Out, Bit>,
    pub m_mem_valid: Signal<Out, Bit>,
    pub m_mem_write: Signal<Out, Bit>,
    pub m_mem_index: Signal<Out, Bits<16>>,
    pub m_mem_wdata: Signal<Out, Bits<64>>,
    pub m_mem_wmask: Signal<Out, Bits<8>>,
    pub rdata_b: Signal<Out, Bit>,
    last_b: DFF<Bit>,
    owner_b: DFF<Bit>,
    pick_b: Signal<Local, Bit>,
}

impl Logic for WordArb {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, last_b, owner_b);
        self.pick_b.next = self.s_b_valid.val() & (!self.s_a_valid.val() | !self.last_b.q.val());
        self.m_mem_valid.next = self.s_a_valid.val() | self.s_b_valid.val();
        self.m_mem_write.next = self.s_a_write.val();
        self.m_mem_index.next = self.s_a_index.val();
        self.m_mem_wdata.next = self.s_a_wdata.val();
        self.m_mem_wmask.next = self.s_a_wmask.val();
        if self.pick_b.val() {
            self.m_mem_write.next = self.s_b_write.val();
            self.m_mem_index.next = self.s_b_index.val();
            self.m_mem_wdata.next = self.s_b_wdata.val();
            self.m_mem_wmask.next = self.s_b_wmask.val();
        }
        self.s_a_ready.next = !self.pick_b.val() & self.m_mem_ready.val();
        self.s_b_ready.next = self.pick_b.val() & self.m_mem_ready.val();
        if self.m_mem_valid.val() & self.m_mem_ready.val() {
            self.last_b.d.next = self.pick_b.val();
            if !self.m_mem_write.val() {
                self.owner_b.d.next = self.pick_b.val();
            }
        }
        self.rdata_b.next = self.owner_b.q.val();
        if self.reset.val() {
            self.last_b.d.next = false;
            self.owner_b.d.next = false;
        }
    }
}
