//! The op table: one [`OpSlot`] (an [`OpEntry`] and its rules) per zero-copy transfer in
//! progress.
//!
//! The table only stores and routes; the units around it decide. Its slots write what the
//! units tell them at the edge; the units see the entries through three read ports
//! (multiplexers) and three one-bit-per-op masks, so each decision is made once, on a
//! selected entry, rather than once per op.
//!
//! # Ports
//! - `rd_issue`, `rd_resp`, `rd_cpl` (in) → `ent_issue`, `ent_resp`, `ent_cpl` (out): the
//!   entry at that slot, same cycle; `req_issue` (out, [`OpReq`]) and `done_cpl` (out,
//!   [`OpDone`]): the fields written at START for slots `rd_issue` and `rd_cpl`, read from
//!   two small distributed RAMs (a word is only meaningful once its slot was started: the
//!   RAMs are not cleared by reset). Keeping them in RAM rather than in every slot's
//!   flip-flops saves a ~230-bit multiplexer per read and ~270 flip-flops per op. Only the slot number's low `ceil(log2 ops)` bits are
//!   looked at (all zeros, a free entry, when they name no op): a read port is then a plain
//!   multiplexer (one LUT6 per bit for four ops, where checking the high bits too would take
//!   two). The units never read past `ops` but the response matcher, which checks the slot
//!   itself.
//! - `can_mask` (out): ops that may issue a request now; `done_mask`: ops waiting for their
//!   completion; `free_mask`: free ops (bit `i` for op `i`).
//! - `key` (in) → `key_busy` (out): some op not free uses local key `key` (a
//!   deregistration must wait).
//! - `start`, `start_slot`, `start_cmd`, `start_laddr` (in): a START applied: the slot's
//!   entry is built from the command and the base of its local region.
//! - `adv`, `adv_slot`, `adv_rec` (in): a request issued from that slot.
//! - `resp`, `resp_slot`, `resp_clear`, `resp_err` (in): a good response for that slot.
//! - `free`, `free_slot` (in): that slot's completion left.
//! - `abort`, `abort_conn` (in): every op of the connection is aborted.
//!
//! What each write does to an entry: [`OpSlot`].

use rust_hdl::prelude::*;
use sanswitch_model::blocks::sequencer::{cmd, ost};

use super::{AdvRec, CmdRec, OpDone, OpEntry, OpReq, OpSlot};
use crate::widgets::LutRam;
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct OpTable {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rd_issue: Signal<In, Bits<4>>,
    pub rd_resp: Signal<In, Bits<4>>,
    pub rd_cpl: Signal<In, Bits<4>>,
    pub key: Signal<In, Bits<32>>,
    pub start: Signal<In, Bit>,
    pub start_slot: Signal<In, Bits<4>>,
    pub start_cmd: Signal<In, CmdRec>,
    pub start_laddr: Signal<In, Bits<64>>,
    pub adv: Signal<In, Bit>,
    pub adv_slot: Signal<In, Bits<4>>,
    pub adv_rec: Signal<In, AdvRec>,
    pub resp: Signal<In, Bit>,
    pub resp_slot: Signal<In, Bits<4>>,
    pub resp_clear: Signal<In, Bits<16>>,
    pub resp_err: Signal<In, Bits<3>>,
    pub free: Signal<In, Bit>,
    pub free_slot: Signal<In, Bits<4>>,
    pub abort: Signal<In, Bit>,
    pub abort_conn: Signal<In, Bits<8>>,
    pub ent_issue: Signal<Out, OpEntry>,
    pub ent_resp: Signal<Out, OpEntry>,
    pub ent_cpl: Signal<Out, OpEntry>,
    pub req_issue: Signal<Out, OpReq>,
    pub done_cpl: Signal<Out, OpDone>,
    pub can_mask: Signal<Out, Bits<16>>,
    pub done_mask: Signal<Out, Bits<16>>,
    pub free_mask: Signal<Out, Bits<16>>,
    pub key_busy: Signal<Out, Bit>,
    slots: Vec<OpSlot>,
    req_ram: LutRam<OpReq, 4>,
    done_ram: LutRam<OpDone, 4>,
    k_idx: Vec<Param<Bits<4>>>,
    k_onehot: Vec<Param<Bits<16>>>,
    /// `2^ceil(log2 ops) - 1`: the slot-number bits a read port looks at.
    k_rd_mask: Param<Bits<4>>,
    k_run: Param<Bits<2>>,
    k_write: Param<Bits<3>>,
    k_zero: Param<OpEntry>,
    fresh: Signal<Local, OpEntry>,
    req_w: Signal<Local, OpReq>,
    done_w: Signal<Local, OpDone>,
    /// The masks and the key test over the ops below `i` (chains: a signal is written once
    /// per update, never accumulated).
    can_c: Vec<Signal<Local, Bits<16>>>,
    done_c: Vec<Signal<Local, Bits<16>>>,
    free_c: Vec<Signal<Local, Bits<16>>>,
    busy_c: Vec<Signal<Local, Bit>>,
}

impl OpTable {
    /// A table of `ops` entries (at most 16).
    pub fn new(ops: usize) -> Self {
        let chain = || (0..=ops).map(|_| Default::default()).collect();
        OpTable {
            slots: (0..ops).map(|_| OpSlot::default()).collect(),
            k_idx: (0..ops).map(|i| param(i as u64)).collect(),
            k_onehot: (0..ops).map(|i| param(1 << i)).collect(),
            k_rd_mask: param(ops.next_power_of_two() as u64 - 1),
            k_run: param(ost::RUN as u64),
            k_write: param(cmd::START_WRITE as u64),
            can_c: chain(),
            done_c: chain(),
            free_c: chain(),
            busy_c: (0..=ops).map(|_| Default::default()).collect(),
            ..Default::default()
        }
    }
}

impl Logic for OpTable {
    #[hdl_gen]
    fn update(&mut self) {
        // A fresh entry for a START.
        self.fresh.next = self.k_zero.val();
        self.fresh.next.st = self.k_run.val();
        self.fresh.next.conn = self.start_cmd.val().conn;
        self.fresh.next.lkey = self.start_cmd.val().lkey;
        self.req_w.next.wr = self.start_cmd.val().op == self.k_write.val();
        self.req_w.next.conn = self.start_cmd.val().conn;
        self.req_w.next.raddr = self.start_cmd.val().addr;
        self.req_w.next.rkey = self.start_cmd.val().key;
        self.req_w.next.laddr = self.start_laddr.val();
        self.req_w.next.lkey = self.start_cmd.val().lkey;
        self.req_w.next.total = self.start_cmd.val().len;
        self.done_w.next.wr = self.req_w.val().wr;
        self.done_w.next.conn = self.start_cmd.val().conn;
        self.done_w.next.xfer = self.start_cmd.val().xfer;
        self.done_w.next.total = self.start_cmd.val().len;
        self.req_ram.write_clock.next = self.clock.val();
        self.req_ram.write_address.next = self.start_slot.val();
        self.req_ram.write_data.next = self.req_w.val();
        self.req_ram.write_enable.next = self.start.val() & !self.reset.val();
        self.req_ram.read_address.next = self.rd_issue.val();
        self.req_issue.next = self.req_ram.read_data.val();
        self.done_ram.write_clock.next = self.clock.val();
        self.done_ram.write_address.next = self.start_slot.val();
        self.done_ram.write_data.next = self.done_w.val();
        self.done_ram.write_enable.next = self.start.val() & !self.reset.val();
        self.done_ram.read_address.next = self.rd_cpl.val();
        self.done_cpl.next = self.done_ram.read_data.val();
        self.fresh.next.more = self.start_cmd.val().len.any();
        self.fresh.next.emask = 1.into();

        self.ent_issue.next = self.k_zero.val();
        self.ent_resp.next = self.k_zero.val();
        self.ent_cpl.next = self.k_zero.val();
        self.can_c[0].next = 0.into();
        self.done_c[0].next = 0.into();
        self.free_c[0].next = 0.into();
        self.busy_c[0].next = false;
        for i in 0..self.slots.len() {
            // Writes, each to the slot it names (an abort to all).
            self.slots[i].clock.next = self.clock.val();
            self.slots[i].reset.next = self.reset.val();
            self.slots[i].key.next = self.key.val();
            self.slots[i].start.next =
                self.start.val() & (self.start_slot.val() == self.k_idx[i].val());
            self.slots[i].fresh.next = self.fresh.val();
            self.slots[i].adv.next = self.adv.val() & (self.adv_slot.val() == self.k_idx[i].val());
            self.slots[i].adv_rec.next = self.adv_rec.val();
            self.slots[i].resp.next =
                self.resp.val() & (self.resp_slot.val() == self.k_idx[i].val());
            self.slots[i].resp_clear.next = self.resp_clear.val();
            self.slots[i].resp_err.next = self.resp_err.val();
            self.slots[i].free_now.next =
                self.free.val() & (self.free_slot.val() == self.k_idx[i].val());
            self.slots[i].abort.next = self.abort.val();
            self.slots[i].abort_conn.next = self.abort_conn.val();

            // Reads.
            if (self.rd_issue.val() & self.k_rd_mask.val()) == self.k_idx[i].val() {
                self.ent_issue.next = self.slots[i].entry.val();
            }
            if (self.rd_resp.val() & self.k_rd_mask.val()) == self.k_idx[i].val() {
                self.ent_resp.next = self.slots[i].entry.val();
            }
            if (self.rd_cpl.val() & self.k_rd_mask.val()) == self.k_idx[i].val() {
                self.ent_cpl.next = self.slots[i].entry.val();
            }
            self.can_c[i + 1].next = self.can_c[i].val();
            if self.slots[i].can.val() {
                self.can_c[i + 1].next = self.can_c[i].val() | self.k_onehot[i].val();
            }
            self.done_c[i + 1].next = self.done_c[i].val();
            if self.slots[i].done.val() {
                self.done_c[i + 1].next = self.done_c[i].val() | self.k_onehot[i].val();
            }
            self.free_c[i + 1].next = self.free_c[i].val();
            if self.slots[i].free.val() {
                self.free_c[i + 1].next = self.free_c[i].val() | self.k_onehot[i].val();
            }
            self.busy_c[i + 1].next = self.busy_c[i].val() | self.slots[i].uses_key.val();
        }
        self.can_mask.next = 0.into();
        self.done_mask.next = 0.into();
        self.free_mask.next = 0.into();
        self.key_busy.next = false;
        for i in 0..self.slots.len() {
            self.can_mask.next = self.can_c[i + 1].val();
            self.done_mask.next = self.done_c[i + 1].val();
            self.free_mask.next = self.free_c[i + 1].val();
            self.key_busy.next = self.busy_c[i + 1].val();
        }
    }
}
