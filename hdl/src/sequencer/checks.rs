//! The remote-access checker: the peer's RDMA operations checked against the registration
//! table (the SAN target side), with its counter lane.
//!
//! # Ports
//! - `ac_valid`/`ac_ready` and the fields `ac_conn`, `ac_key`, `ac_write`, `ac_addr`,
//!   `ac_len` (in): the check channel (the block's `s_axis_ac_*`).
//! - `ck_valid`/`ck_ready`, `ck_grant`, `ck_reason` (out): the answers, in order (the block's
//!   `m_axis_ck_*`).
//! - `idx` (out): the table index of the offered key; `e_valid`, `e_conn` (in): that entry's
//!   valid bit and connection, looked up by the registration table in the same cycle.
//! - `wr_en`, `wr_addr`, `wr_data` (in): the registration table's writes, into this unit's
//!   copy of the table RAM (key, access, base, length).
//! - `rd_index` (in) / `rd_data` (out): the lane's counter bank (deny by key, connection,
//!   access, bounds).
//!
//! # Timing
//! A check taken at edge `t` samples the entry (RAM read, valid bit, connection) at that
//! edge, is decided during cycle `t + 1` and pushed into the answer register (one skid slot),
//! so its answer is valid from cycle `t + 2`. `ac_ready` (registered) admits a check only
//! while at most one is held, so the one being decided always finds a slot.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::sequencer::{access, cnt, fault};

use super::{CkRec, RegRec};
use crate::widgets::counter_bank::IDX;
use crate::widgets::{CounterBank, Param, SkidBuffer, param};

/// A check taken, with the table facts sampled when it was taken.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ChkRec {
    pub conn: Bits<8>,
    pub key: Bits<32>,
    pub write: Bit,
    pub addr: Bits<64>,
    pub len: Bits<32>,
    pub valid: Bit,
    pub rconn: Bits<8>,
}

#[derive(LogicBlock, Default)]
pub struct AccessChecker {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ac_valid: Signal<In, Bit>,
    pub ac_conn: Signal<In, Bits<8>>,
    pub ac_key: Signal<In, Bits<32>>,
    pub ac_write: Signal<In, Bit>,
    pub ac_addr: Signal<In, Bits<64>>,
    pub ac_len: Signal<In, Bits<32>>,
    pub ck_ready: Signal<In, Bit>,
    pub e_valid: Signal<In, Bit>,
    pub e_conn: Signal<In, Bits<8>>,
    pub wr_en: Signal<In, Bit>,
    pub wr_addr: Signal<In, Bits<5>>,
    pub wr_data: Signal<In, RegRec>,
    pub rd_index: Signal<In, Bits<IDX>>,
    pub ac_ready: Signal<Out, Bit>,
    pub ck_valid: Signal<Out, Bit>,
    pub ck_grant: Signal<Out, Bit>,
    pub ck_reason: Signal<Out, Bits<3>>,
    pub idx: Signal<Out, Bits<5>>,
    pub rd_data: Signal<Out, Bits<32>>,
    tab: RAM<RegRec, 5>,
    /// `!ac_ready` (so that its reset and power-up value is 0).
    ac_full: DFF<Bit>,
    s1_v: DFF<Bit>,
    s1_q: DFF<ChkRec>,
    out: SkidBuffer<CkRec>,
    counters: CounterBank,
    k_idx_mask: Param<Bits<32>>,
    k_acc_rr: Param<Bits<2>>,
    k_acc_rw: Param<Bits<2>>,
    k_key: Param<Bits<3>>,
    k_conn: Param<Bits<3>>,
    k_access: Param<Bits<3>>,
    k_bounds: Param<Bits<3>>,
    k_one: Param<Bits<IDX>>,
    k_chk_zero: Param<ChkRec>,
    acc: Signal<Local, Bit>,
    rec: Signal<Local, ChkRec>,
    key_ok: Signal<Local, Bit>,
    conn_ok: Signal<Local, Bit>,
    acc_ok: Signal<Local, Bit>,
    bnd_ok: Signal<Local, Bit>,
    off: Signal<Local, Bits<65>>,
    off_lo: Signal<Local, Bits<33>>,
    verdict: Signal<Local, CkRec>,
    n_out_v: Signal<Local, Bit>,
    n_skid_v: Signal<Local, Bit>,
}

impl AccessChecker {
    /// A checker for a table of `reg_entries` entries.
    pub fn new(reg_entries: u32) -> Self {
        AccessChecker {
            counters: CounterBank::new(cnt::LANES[3].1),
            k_idx_mask: param((reg_entries - 1) as u64),
            k_acc_rr: param(access::REMOTE_READ as u64),
            k_acc_rw: param(access::REMOTE_WRITE as u64),
            k_key: param(fault::BAD_KEY as u64),
            k_conn: param(fault::CONNECTION as u64),
            k_access: param(fault::ACCESS as u64),
            k_bounds: param(fault::BOUNDS as u64),
            k_one: param(1),
            ..Default::default()
        }
    }
}

impl Logic for AccessChecker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ac_full, s1_v, s1_q);
        clock!(self, clock, out, counters);
        self.tab.read_clock.next = self.clock.val();
        self.tab.write_clock.next = self.clock.val();
        self.tab.write_address.next = self.wr_addr.val();
        self.tab.write_data.next = self.wr_data.val();
        self.tab.write_enable.next = self.wr_en.val();
        self.out.reset.next = self.reset.val();
        self.counters.reset.next = self.reset.val();

        // Stage 1: take the check, read the entry.
        self.acc.next = self.ac_valid.val() & !self.ac_full.q.val();
        self.idx.next = bit_cast::<5, 32>(self.ac_key.val() & self.k_idx_mask.val());
        self.tab.read_address.next = self.idx.val();
        self.rec.next.conn = self.ac_conn.val();
        self.rec.next.key = self.ac_key.val();
        self.rec.next.write = self.ac_write.val();
        self.rec.next.addr = self.ac_addr.val();
        self.rec.next.len = self.ac_len.val();
        self.rec.next.valid = self.e_valid.val();
        self.rec.next.rconn = self.e_conn.val();
        self.s1_v.d.next = self.acc.val();
        if self.acc.val() {
            self.s1_q.d.next = self.rec.val();
        }

        // Stage 2: the verdict, first failure wins.
        self.key_ok.next =
            self.s1_q.q.val().valid & (self.tab.read_data.val().key == self.s1_q.q.val().key);
        self.conn_ok.next = self.s1_q.q.val().rconn == self.s1_q.q.val().conn;
        self.acc_ok.next = self.tab.read_data.val().access == self.k_acc_rr.val();
        if self.s1_q.q.val().write {
            self.acc_ok.next = self.tab.read_data.val().access == self.k_acc_rw.val();
        }
        // `base <= addr && addr + len <= base + rlen` in exact arithmetic, as
        // `off = addr - base` with no borrow, `off < 2^32` (a region is shorter) and
        // `off + len <= rlen` in 33 bits: one wide subtraction instead of two wide additions
        // and two wide comparisons.
        self.off.next = bit_cast::<65, 64>(self.s1_q.q.val().addr)
            - bit_cast::<65, 64>(self.tab.read_data.val().addr);
        self.off_lo.next = bit_cast::<33, 32>(self.off.val().get_bits::<32>(0));
        self.bnd_ok.next = !self.off.val().get_bits::<33>(32).any()
            & ((self.off_lo.val() + bit_cast::<33, 32>(self.s1_q.q.val().len))
                <= bit_cast::<33, 32>(self.tab.read_data.val().len));
        self.verdict.next.grant = false;
        if !self.key_ok.val() {
            self.verdict.next.reason = self.k_key.val();
        } else if !self.conn_ok.val() {
            self.verdict.next.reason = self.k_conn.val();
        } else if !self.acc_ok.val() {
            self.verdict.next.reason = self.k_access.val();
        } else if !self.bnd_ok.val() {
            self.verdict.next.reason = self.k_bounds.val();
        } else {
            self.verdict.next.reason = 0.into();
            self.verdict.next.grant = true;
        }
        // The counter lane: a denial counts under its reason (1..=4 → 0..=3).
        self.counters.inc.next = self.s1_v.q.val() & self.verdict.val().reason.any();
        self.counters.inc_index.next =
            bit_cast::<IDX, 3>(self.verdict.val().reason) - self.k_one.val();
        self.counters.rd_index.next = self.rd_index.val();

        // The answer register with one skid slot.
        self.out.push.next = self.s1_v.q.val();
        self.out.push_data.next = self.verdict.val();
        self.out.out_ready.next = self.ck_ready.val();
        // Its occupancy after this edge, for `ac_ready`.
        self.n_out_v.next = self.out.out_valid.val();
        self.n_skid_v.next = !self.out.can_push.val();
        if !self.out.out_valid.val() | self.ck_ready.val() {
            if !self.out.can_push.val() {
                self.n_skid_v.next = false;
            } else {
                self.n_out_v.next = self.s1_v.q.val();
            }
        } else if self.s1_v.q.val() {
            self.n_skid_v.next = true;
        }
        // At most two checks held, so the one in the first stage always finds a slot.
        self.ac_full.d.next = (self.acc.val() & self.n_out_v.val())
            | (self.acc.val() & self.n_skid_v.val())
            | (self.n_out_v.val() & self.n_skid_v.val());

        if self.reset.val() {
            self.ac_full.d.next = false;
            self.s1_v.d.next = false;
            self.s1_q.d.next = self.k_chk_zero.val();
        }
        self.ac_ready.next = !self.ac_full.q.val();
        self.ck_valid.next = self.out.out_valid.val();
        self.ck_grant.next = self.out.out_data.val().grant;
        self.ck_reason.next = self.out.out_data.val().reason;
        self.rd_data.next = self.counters.rd_data.val();
    }
}
