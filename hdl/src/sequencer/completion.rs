//! The completion builder: the lowest op that is done leaves as a completion request when
//! the output register is free; with the completions' counter lane.
//!
//! # Ports
//! - `done_mask` (in): ops waiting for their completion (the op table's).
//! - `pick` (out) / `ent`, `fin` (in): the lowest of them, its entry and its completion
//!   fields.
//! - `fire` (out): the completion leaves the op this cycle, taken by the output or into the
//!   holding register (the op table frees the op at the edge).
//! - `cpl_valid`, `cpl_rec` (out), `cpl_ready` (in): the completion channel: the holding
//!   register's request, else the picked op's passed through (combinational from the op
//!   table's registers, never from `cpl_ready`), else the last request held, not valid. A
//!   request the output does not take in its first cycle goes into the holding register, so
//!   a stalled output keeps one op free as before. The byte count is the op's total when its
//!   status is 0, otherwise 0.
//! - `rd_index` (in) / `rd_data` (out): the counter lane (completions with status
//!   `aborted`).
//! - `reset` (in): synchronous; no completion held.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::sequencer::{cnt, fault};

use super::{CplRec, OpDone, OpEntry};
use crate::widgets::counter_bank::IDX;
use crate::widgets::{CounterBank, Param, param};

#[derive(LogicBlock, Default)]
pub struct CplBuilder {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub done_mask: Signal<In, Bits<16>>,
    pub ent: Signal<In, OpEntry>,
    pub fin: Signal<In, OpDone>,
    pub cpl_ready: Signal<In, Bit>,
    pub rd_index: Signal<In, Bits<IDX>>,
    pub pick: Signal<Out, Bits<4>>,
    pub fire: Signal<Out, Bit>,
    pub cpl_valid: Signal<Out, Bit>,
    pub cpl_rec: Signal<Out, CplRec>,
    pub rd_data: Signal<Out, Bits<32>>,
    cpl_v: DFF<Bit>,
    cpl_q: DFF<CplRec>,
    counters: CounterBank,
    k_idx: Vec<Param<Bits<4>>>,
    k_aborted: Param<Bits<3>>,
    k_zero: Param<CplRec>,
    /// Some op below `i` is done (the priority chain).
    lower: Vec<Signal<Local, Bit>>,
    any_done: Signal<Local, Bit>,
    rec: Signal<Local, CplRec>,
}

impl CplBuilder {
    /// A builder over `ops` ops (at most 16).
    pub fn new(ops: usize) -> Self {
        CplBuilder {
            counters: CounterBank::new(cnt::LANES[2].1),
            k_idx: (0..ops).map(|i| param(i as u64)).collect(),
            k_aborted: param(fault::ABORTED as u64),
            lower: (0..=ops).map(|_| Default::default()).collect(),
            ..Default::default()
        }
    }
}

impl Logic for CplBuilder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cpl_v, cpl_q);
        clock!(self, clock, counters);
        self.counters.reset.next = self.reset.val();
        self.counters.rd_index.next = self.rd_index.val();
        self.rd_data.next = self.counters.rd_data.val();

        self.lower[0].next = false;
        self.pick.next = 0.into();
        for i in 0..self.k_idx.len() {
            if self.done_mask.val().get_bit(i) & !self.lower[i].val() {
                self.pick.next = self.k_idx[i].val();
            }
            self.lower[i + 1].next = self.lower[i].val() | self.done_mask.val().get_bit(i);
        }
        self.any_done.next = false;
        for i in 0..self.k_idx.len() {
            self.any_done.next = self.lower[i + 1].val();
        }
        self.fire.next = self.any_done.val() & (!self.cpl_v.q.val() | self.cpl_ready.val());
        self.rec.next.conn = self.fin.val().conn;
        self.rec.next.xfer = self.fin.val().xfer;
        self.rec.next.bytes = 0.into();
        if !self.ent.val().status.any() {
            self.rec.next.bytes = self.fin.val().total;
        }
        self.rec.next.write = self.fin.val().wr;
        self.rec.next.status = self.ent.val().status;
        if self.fire.val() {
            self.cpl_q.d.next = self.rec.val();
            // Held unless it passed straight through (nothing held, the output ready).
            self.cpl_v.d.next = self.cpl_v.q.val() | !self.cpl_ready.val();
        } else if self.cpl_v.q.val() & self.cpl_ready.val() {
            self.cpl_v.d.next = false;
        }
        self.counters.inc.next = self.fire.val() & (self.rec.val().status == self.k_aborted.val());
        self.counters.inc_index.next = 0.into();

        if self.reset.val() {
            self.cpl_v.d.next = false;
            self.cpl_q.d.next = self.k_zero.val();
        }
        self.cpl_valid.next = self.cpl_v.q.val() | self.any_done.val();
        self.cpl_rec.next = self.cpl_q.q.val();
        if !self.cpl_v.q.val() & self.any_done.val() {
            self.cpl_rec.next = self.rec.val();
        }
    }
}
