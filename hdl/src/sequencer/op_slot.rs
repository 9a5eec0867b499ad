//! One op-table entry: its register and the rules that move it, so the op table ([`OpTable`])
//! only routes (an entry's fields are read here, on a plain signal, never through an index:
//! rust-hdl cannot translate a field of an indexed element).
//!
//! # Ports
//! - `entry` (out): the entry's register.
//! - `can` (out): it may issue a request now (running, no error, bytes left, and the window
//!   entry the next request takes not in flight); `done`, `free` (out): its state;
//!   `uses_key` (out): it is not free and its local key is `key` (in).
//! - `start`, `fresh` (in): a START for this slot: the entry becomes `fresh` with its
//!   `generation` bumped (so responses to the slot's previous op are stale).
//! - `adv`, `adv_rec` (in): a request issued from this slot: its position moves on and the
//!   window entry it took (`emask`) goes in flight.
//! - `resp`, `resp_clear`, `resp_err` (in): a good response for this slot: its window entry
//!   leaves flight; a non-zero `resp_err` becomes the status unless there is one.
//! - `free_now` (in): its completion left: the entry is free.
//! - `abort`, `abort_conn` (in): an abort of a connection (every slot sees it): a running
//!   entry of that connection without an error takes status `aborted`, so it issues nothing
//!   more and is done once its requests in flight are answered.
//! - A running entry with nothing in flight after this cycle and nothing left to request
//!   (or an error, this cycle's response's included) becomes done at the edge: a response
//!   that ends the op makes it done as it clears its window entry.
//! - `reset` (in): synchronous; the entry is zero (free).
//!
//! [`OpTable`]: super::OpTable

use rust_hdl::prelude::*;
use sanswitch_model::blocks::sequencer::{fault, ost};

use super::{AdvRec, OpEntry};
use crate::widgets::{Param, param};

#[derive(LogicBlock)]
pub struct OpSlot {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub key: Signal<In, Bits<32>>,
    pub start: Signal<In, Bit>,
    pub fresh: Signal<In, OpEntry>,
    pub adv: Signal<In, Bit>,
    pub adv_rec: Signal<In, AdvRec>,
    pub resp: Signal<In, Bit>,
    pub resp_clear: Signal<In, Bits<16>>,
    pub resp_err: Signal<In, Bits<3>>,
    pub free_now: Signal<In, Bit>,
    pub abort: Signal<In, Bit>,
    pub abort_conn: Signal<In, Bits<8>>,
    pub entry: Signal<Out, OpEntry>,
    pub can: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub free: Signal<Out, Bit>,
    pub uses_key: Signal<Out, Bit>,
    e: DFF<OpEntry>,
    k_free: Param<Bits<2>>,
    k_run: Param<Bits<2>>,
    k_done: Param<Bits<2>>,
    k_aborted: Param<Bits<3>>,
    k_zero: Param<OpEntry>,
    kept: Signal<Local, Bits<16>>,
    /// The in-flight entries after this cycle's response and issue.
    after: Signal<Local, Bits<16>>,
    /// The op has an error, or this cycle's response brings one.
    failed: Signal<Local, Bit>,
}

impl Default for OpSlot {
    fn default() -> Self {
        OpSlot {
            clock: Default::default(),
            reset: Default::default(),
            key: Default::default(),
            start: Default::default(),
            fresh: Default::default(),
            adv: Default::default(),
            adv_rec: Default::default(),
            resp: Default::default(),
            resp_clear: Default::default(),
            resp_err: Default::default(),
            free_now: Default::default(),
            abort: Default::default(),
            abort_conn: Default::default(),
            entry: Default::default(),
            can: Default::default(),
            done: Default::default(),
            free: Default::default(),
            uses_key: Default::default(),
            e: Default::default(),
            k_free: param(ost::FREE as u64),
            k_run: param(ost::RUN as u64),
            k_done: param(ost::DONE as u64),
            k_aborted: param(fault::ABORTED as u64),
            k_zero: Default::default(),
            kept: Default::default(),
            after: Default::default(),
            failed: Default::default(),
        }
    }
}

impl Logic for OpSlot {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, e);
        self.entry.next = self.e.q.val();
        self.can.next = (self.e.q.val().st == self.k_run.val())
            & !self.e.q.val().status.any()
            & self.e.q.val().more
            & !(self.e.q.val().inflight & self.e.q.val().emask).any();
        self.done.next = self.e.q.val().st == self.k_done.val();
        self.free.next = self.e.q.val().st == self.k_free.val();
        self.uses_key.next =
            (self.e.q.val().st != self.k_free.val()) & (self.e.q.val().lkey == self.key.val());

        // Later writes win: response, issue, done, free or abort, START, reset.
        self.kept.next = self.e.q.val().inflight;
        if self.resp.val() {
            self.kept.next = self.e.q.val().inflight & !self.resp_clear.val();
            if self.resp_err.val().any() & !self.e.q.val().status.any() {
                self.e.d.next.status = self.resp_err.val();
            }
        }
        self.after.next = self.kept.val();
        if self.adv.val() {
            self.after.next = self.kept.val() | self.e.q.val().emask;
            self.e.d.next.off = self.adv_rec.val().off;
            self.e.d.next.more = self.adv_rec.val().more;
            self.e.d.next.seq = self.adv_rec.val().seq;
            self.e.d.next.emask = self.adv_rec.val().emask;
        }
        self.e.d.next.inflight = self.after.val();
        // Done at the edge that takes the op's last response, so the completion builder can
        // pick it the next cycle.
        self.failed.next =
            self.e.q.val().status.any() | (self.resp.val() & self.resp_err.val().any());
        if (self.e.q.val().st == self.k_run.val())
            & !self.after.val().any()
            & (!self.e.q.val().more | self.failed.val())
        {
            self.e.d.next.st = self.k_done.val();
        }
        if self.free_now.val() {
            self.e.d.next.st = self.k_free.val();
        }
        // An abort fails a running entry: it issues nothing more and is done once its
        // requests in flight are answered (no data lands after its completion).
        if self.abort.val()
            & (self.e.q.val().st == self.k_run.val())
            & (self.e.q.val().conn == self.abort_conn.val())
            & !self.e.q.val().status.any()
        {
            self.e.d.next.status = self.k_aborted.val();
        }
        if self.start.val() {
            self.e.d.next = self.fresh.val();
            self.e.d.next.generation = self.e.q.val().generation + 1;
        }
        if self.reset.val() {
            self.e.d.next = self.k_zero.val();
        }
    }
}
