//! The response matcher: each RDMA response registered on arrival and matched, the next
//! cycle, against the op its tag names; with the responses' counter lane.
//!
//! A response is **stale** unless its slot holds a running op of the tag's generation (a
//! response to an op that finished or was aborted, or to a slot since reused), a
//! **duplicate** unless the tag's segment is in flight (its window entry is, and the segment
//! is one of the last `window` issued), and otherwise **good**: its window entry leaves
//! flight and a non-zero status (codes past the SAN's own read as `transport`) becomes the
//! op's first error.
//!
//! # Ports
//! - `rs_valid`, `rs_tag`, `rs_status` (in): the response channel (always ready).
//! - `slot` (out) / `ent` (in): the slot the registered tag names, and its op-table entry.
//! - `hit` (out): the registered response is good; `clear` (out) its window entry
//!   (one-hot); `err` (out) its fault code.
//! - `rd_index` (in) / `rd_data` (out): the counter lane (errors, stale, duplicates).
//! - `reset` (in): synchronous; the held response is dropped.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::sequencer::{fault, ost};

use super::OpEntry;
use crate::widgets::counter_bank::IDX;
use crate::widgets::{CounterBank, Param, param};

#[derive(LogicBlock, Default)]
pub struct RespMatcher {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rs_valid: Signal<In, Bit>,
    pub rs_tag: Signal<In, Bits<16>>,
    pub rs_status: Signal<In, Bits<3>>,
    pub ent: Signal<In, OpEntry>,
    pub rd_index: Signal<In, Bits<IDX>>,
    pub slot: Signal<Out, Bits<4>>,
    pub hit: Signal<Out, Bit>,
    pub clear: Signal<Out, Bits<16>>,
    pub err: Signal<Out, Bits<3>>,
    pub rd_data: Signal<Out, Bits<32>>,
    r_v: DFF<Bit>,
    r_tag: DFF<Bits<16>>,
    r_st: DFF<Bits<3>>,
    counters: CounterBank,
    k_ops: Param<Bits<4>>,
    k_all_ops: Param<Bit>,
    k_run: Param<Bits<2>>,
    k_first_bad: Param<Bits<3>>,
    k_transport: Param<Bits<3>>,
    k_wmask: Param<Bits<8>>,
    k_not_wmask: Param<Bits<8>>,
    k_entry: Vec<Param<Bits<8>>>,
    k_onehot: Vec<Param<Bits<16>>>,
    k_stale: Param<Bits<IDX>>,
    k_dup: Param<Bits<IDX>>,
    seq: Signal<Local, Bits<8>>,
    mine: Signal<Local, Bit>,
    /// How many segments ago the tag's segment was issued, minus one.
    age: Signal<Local, Bits<8>>,
}

impl RespMatcher {
    /// A matcher for `ops` ops (at most 16) and a window of `window` requests (a power of
    /// two, at most 16).
    pub fn new(ops: usize, window: usize) -> Self {
        RespMatcher {
            counters: CounterBank::new(sanswitch_model::blocks::sequencer::cnt::LANES[1].1),
            k_ops: param(ops as u64 & 15),
            k_all_ops: Param::new(ops == 16),
            k_run: param(ost::RUN as u64),
            k_first_bad: param(fault::FIRST_NOT_SAN as u64),
            k_transport: param(fault::TRANSPORT as u64),
            k_wmask: param(window as u64 - 1),
            k_not_wmask: param(!(window as u64 - 1) & 0xFF),
            k_entry: (0..window).map(|j| param(j as u64)).collect(),
            k_onehot: (0..window).map(|j| param(1 << j)).collect(),
            k_stale: param(1),
            k_dup: param(2),
            ..Default::default()
        }
    }
}

impl Logic for RespMatcher {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_v, r_tag, r_st);
        clock!(self, clock, counters);
        self.counters.reset.next = self.reset.val();
        self.counters.rd_index.next = self.rd_index.val();
        self.rd_data.next = self.counters.rd_data.val();

        self.r_v.d.next = self.rs_valid.val();
        self.r_tag.d.next = self.rs_tag.val();
        self.r_st.d.next = self.rs_status.val();

        self.slot.next = self.r_tag.q.val().get_bits::<4>(0);
        self.seq.next = self.r_tag.q.val().get_bits::<8>(8);
        self.clear.next = 0.into();
        for j in 0..self.k_entry.len() {
            if (self.seq.val() & self.k_wmask.val()) == self.k_entry[j].val() {
                self.clear.next = self.k_onehot[j].val();
            }
        }
        self.err.next = self.r_st.q.val();
        if self.r_st.q.val() >= self.k_first_bad.val() {
            self.err.next = self.k_transport.val();
        }
        self.mine.next = self.r_v.q.val()
            & ((self.slot.val() < self.k_ops.val()) | self.k_all_ops.val())
            & (self.ent.val().st == self.k_run.val())
            & (self.ent.val().generation == self.r_tag.q.val().get_bits::<4>(4));
        self.age.next = self.ent.val().seq - self.seq.val() - 1;
        self.hit.next = self.mine.val()
            & (self.ent.val().inflight & self.clear.val()).any()
            & !(self.age.val() & self.k_not_wmask.val()).any();

        // Counter lane: an RDMA error, stale or duplicate (they exclude each other).
        self.counters.inc.next = self.r_v.q.val() & !(self.hit.val() & !self.err.val().any());
        self.counters.inc_index.next = 0.into();
        if !self.mine.val() {
            self.counters.inc_index.next = self.k_stale.val();
        } else if !self.hit.val() {
            self.counters.inc_index.next = self.k_dup.val();
        }

        if self.reset.val() {
            self.r_v.d.next = false;
            self.r_tag.d.next = 0.into();
            self.r_st.d.next = 0.into();
        }
    }
}
