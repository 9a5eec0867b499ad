//! The host interface's counter bank (bank 3 of the counter block, `hostif::cnt` in order):
//! one saturating counter per kind of event, and the read multiplexer.
//!
//! # Ports
//! - `fetched`, `completed`, `doorbell`, `beyond`, `bad_entry`, `bad_cq_cons`, `bad_cpl_qp`
//!   (in): one event each at this edge; `rd_bad`, `wr_bad` (in): a hole read and a hole
//!   written (both count as bad register accesses, so that counter can take two at once).
//! - `index` (in) / `value` (out): the counter read, combinational.
//! - `reset` (in): every counter to 0.

use rust_hdl::prelude::*;

use super::SatCount;
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct HostCounters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub fetched: Signal<In, Bit>,
    pub completed: Signal<In, Bit>,
    pub doorbell: Signal<In, Bit>,
    pub beyond: Signal<In, Bit>,
    pub bad_entry: Signal<In, Bit>,
    pub rd_bad: Signal<In, Bit>,
    pub wr_bad: Signal<In, Bit>,
    pub bad_cq_cons: Signal<In, Bit>,
    pub bad_cpl_qp: Signal<In, Bit>,
    pub index: Signal<In, Bits<5>>,
    pub value: Signal<Out, Bits<32>>,
    c_fetched: SatCount,
    c_completed: SatCount,
    c_doorbells: SatCount,
    c_beyond: SatCount,
    c_bad_entry: SatCount,
    c_bad_register: SatCount,
    c_bad_cq_cons: SatCount,
    c_bad_cpl_qp: SatCount,
    k_idx: Vec<Param<Bits<5>>>,
}

impl HostCounters {
    pub fn new() -> Self {
        use sanswitch_model::blocks::hostif::cnt;
        let k = [
            cnt::FETCHED,
            cnt::COMPLETED,
            cnt::DOORBELLS,
            cnt::DOORBELL_BEYOND_RING,
            cnt::BAD_ENTRY,
            cnt::BAD_REGISTER,
            cnt::BAD_CQ_CONS,
            cnt::BAD_CPL_QP,
        ];
        HostCounters { k_idx: k.iter().map(|&i| param(i as u64)).collect(), ..Default::default() }
    }
}

impl Logic for HostCounters {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self,
            clock,
            c_fetched,
            c_completed,
            c_doorbells,
            c_beyond,
            c_bad_entry,
            c_bad_register,
            c_bad_cq_cons,
            c_bad_cpl_qp
        );
        self.c_fetched.reset.next = self.reset.val();
        self.c_completed.reset.next = self.reset.val();
        self.c_doorbells.reset.next = self.reset.val();
        self.c_beyond.reset.next = self.reset.val();
        self.c_bad_entry.reset.next = self.reset.val();
        self.c_bad_register.reset.next = self.reset.val();
        self.c_bad_cq_cons.reset.next = self.reset.val();
        self.c_bad_cpl_qp.reset.next = self.reset.val();
        self.c_fetched.inc.next = 0.into();
        if self.fetched.val() {
            self.c_fetched.inc.next = 1.into();
        }
        self.c_completed.inc.next = 0.into();
        if self.completed.val() {
            self.c_completed.inc.next = 1.into();
        }
        self.c_doorbells.inc.next = 0.into();
        if self.doorbell.val() {
            self.c_doorbells.inc.next = 1.into();
        }
        self.c_beyond.inc.next = 0.into();
        if self.beyond.val() {
            self.c_beyond.inc.next = 1.into();
        }
        self.c_bad_entry.inc.next = 0.into();
        if self.bad_entry.val() {
            self.c_bad_entry.inc.next = 1.into();
        }
        self.c_bad_register.inc.next = 0.into();
        if self.rd_bad.val() | self.wr_bad.val() {
            self.c_bad_register.inc.next = 1.into();
        }
        if self.rd_bad.val() & self.wr_bad.val() {
            self.c_bad_register.inc.next = 2.into();
        }
        self.c_bad_cq_cons.inc.next = 0.into();
        if self.bad_cq_cons.val() {
            self.c_bad_cq_cons.inc.next = 1.into();
        }
        self.c_bad_cpl_qp.inc.next = 0.into();
        if self.bad_cpl_qp.val() {
            self.c_bad_cpl_qp.inc.next = 1.into();
        }

        self.value.next = 0.into();
        if self.index.val() == self.k_idx[0].val() {
            self.value.next = self.c_fetched.value.val();
        }
        if self.index.val() == self.k_idx[1].val() {
            self.value.next = self.c_completed.value.val();
        }
        if self.index.val() == self.k_idx[2].val() {
            self.value.next = self.c_doorbells.value.val();
        }
        if self.index.val() == self.k_idx[3].val() {
            self.value.next = self.c_beyond.value.val();
        }
        if self.index.val() == self.k_idx[4].val() {
            self.value.next = self.c_bad_entry.value.val();
        }
        if self.index.val() == self.k_idx[5].val() {
            self.value.next = self.c_bad_register.value.val();
        }
        if self.index.val() == self.k_idx[6].val() {
            self.value.next = self.c_bad_cq_cons.value.val();
        }
        if self.index.val() == self.k_idx[7].val() {
            self.value.next = self.c_bad_cpl_qp.value.val();
        }
    }
}
