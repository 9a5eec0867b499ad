//! The request issuer: picks an op that may issue, then issues its next RDMA request.
//!
//! Picking and issuing take a cycle each, so the pick (a priority chain over every op) and
//! the request's 64-bit address sums stay in separate cycles: at most one request leaves
//! every two cycles. Ops above the last one picked go first (round robin), so one op's
//! stream of segments cannot starve another's.
//!
//! # Ports
//! - `can_mask` (in): ops that may issue (the op table's).
//! - `start`, `start_slot` (in): a START fills that op slot at this cycle's edge; with
//!   nothing else to pick, it is picked at the same edge (its first request leaves the
//!   cycle after, one sooner than a pick from `can_mask` would let it).
//! - `sel` (out) / `ent`, `req` (in): the op picked, and its entry and request fields read
//!   from the op table.
//! - `fire` (out): the request is issued this cycle (the op still may issue and the request
//!   register is free or being emptied); `adv` (out): what the op's entry becomes.
//! - `rq_valid`, `rq_rec` (out, registered), `rq_ready` (in): the request channel. A request's
//!   `tag` names slot, generation and segment number ([`tag`]); its addresses are the
//!   op's bases plus its offset; its length one segment, or what is left (`total - off`).
//! - `reset` (in): synchronous; nothing picked, no request held.
//!
//! [`tag`]: sanswitch_model::blocks::sequencer::tag

use rust_hdl::prelude::*;

use super::{AdvRec, OpEntry, OpReq, RqRec};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct Issuer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub can_mask: Signal<In, Bits<16>>,
    pub start: Signal<In, Bit>,
    pub start_slot: Signal<In, Bits<4>>,
    pub ent: Signal<In, OpEntry>,
    pub req: Signal<In, OpReq>,
    pub rq_ready: Signal<In, Bit>,
    pub sel: Signal<Out, Bits<4>>,
    pub fire: Signal<Out, Bit>,
    pub adv: Signal<Out, AdvRec>,
    pub rq_valid: Signal<Out, Bit>,
    pub rq_rec: Signal<Out, RqRec>,
    /// An op is picked (`isel`) and waits to issue.
    iv: DFF<Bit>,
    isel: DFF<Bits<4>>,
    /// Ops above the last pick: they go first next time.
    rr_mask: DFF<Bits<16>>,
    rq_v: DFF<Bit>,
    rq_q: DFF<RqRec>,
    k_idx: Vec<Param<Bits<4>>>,
    k_onehot: Vec<Param<Bits<16>>>,
    k_seg: Param<Bits<32>>,
    k_wtop: Param<Bits<16>>,
    k_rq_zero: Param<RqRec>,
    sel_can: Signal<Local, Bit>,
    cand: Signal<Local, Bits<16>>,
    pick_idx: Signal<Local, Bits<4>>,
    /// Some candidate below op `i` (the priority chain).
    lower: Vec<Signal<Local, Bit>>,
    /// The ops below `i` above the pick (a chain: a signal is written once per update).
    above: Vec<Signal<Local, Bits<16>>>,
    above_all: Signal<Local, Bits<16>>,
    any_cand: Signal<Local, Bit>,
    next_rq: Signal<Local, RqRec>,
    /// Bytes of the picked op not yet requested, and whether they fit one request.
    rem: Signal<Local, Bits<32>>,
    lastseg: Signal<Local, Bit>,
}

impl Issuer {
    /// An issuer for `ops` ops, `segment`-byte requests and a window of `window` requests.
    pub fn new(ops: usize, segment: u32, window: u32) -> Self {
        Issuer {
            k_idx: (0..ops).map(|i| param(i as u64)).collect(),
            k_onehot: (0..ops).map(|i| param(1 << i)).collect(),
            k_seg: param(segment as u64),
            k_wtop: param(1 << (window - 1)),
            lower: (0..=ops).map(|_| Default::default()).collect(),
            above: (0..=ops).map(|_| Default::default()).collect(),
            ..Default::default()
        }
    }
}

impl Logic for Issuer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, iv, isel, rr_mask, rq_v, rq_q);

        // Pick: the lowest op that may issue, those above the last pick first.
        self.cand.next = self.can_mask.val();
        if (self.can_mask.val() & self.rr_mask.q.val()).any() {
            self.cand.next = self.can_mask.val() & self.rr_mask.q.val();
        }
        self.lower[0].next = false;
        self.above[0].next = 0.into();
        self.pick_idx.next = 0.into();
        self.sel_can.next = false;
        for i in 0..self.k_idx.len() {
            if self.cand.val().get_bit(i) & !self.lower[i].val() {
                self.pick_idx.next = self.k_idx[i].val();
            }
            self.above[i + 1].next = self.above[i].val();
            if self.lower[i].val() {
                self.above[i + 1].next = self.above[i].val() | self.k_onehot[i].val();
            }
            self.lower[i + 1].next = self.lower[i].val() | self.cand.val().get_bit(i);
            if self.isel.q.val() == self.k_idx[i].val() {
                self.sel_can.next = self.can_mask.val().get_bit(i);
            }
        }
        self.above_all.next = 0.into();
        self.any_cand.next = false;
        for i in 0..self.k_idx.len() {
            self.above_all.next = self.above[i + 1].val();
            self.any_cand.next = self.lower[i + 1].val();
        }
        self.fire.next =
            self.iv.q.val() & self.sel_can.val() & (!self.rq_v.q.val() | self.rq_ready.val());
        if !self.iv.q.val() {
            if self.any_cand.val() {
                self.iv.d.next = true;
                self.isel.d.next = self.pick_idx.val();
                self.rr_mask.d.next = self.above_all.val();
            } else if self.start.val() {
                self.iv.d.next = true;
                self.isel.d.next = self.start_slot.val();
            }
        } else if !self.sel_can.val() | self.fire.val() {
            self.iv.d.next = false;
        }

        // Issue: the picked op's next request, and where the op goes next.
        self.sel.next = self.isel.q.val();
        self.next_rq.next.tag = (bit_cast::<16, 8>(self.ent.val().seq) << 8)
            | (bit_cast::<16, 4>(self.ent.val().generation) << 4)
            | bit_cast::<16, 4>(self.isel.q.val());
        self.next_rq.next.write = self.req.val().wr;
        self.next_rq.next.conn = self.req.val().conn;
        self.next_rq.next.raddr = self.req.val().raddr + bit_cast::<64, 32>(self.ent.val().off);
        self.next_rq.next.rkey = self.req.val().rkey;
        self.next_rq.next.laddr = self.req.val().laddr + bit_cast::<64, 32>(self.ent.val().off);
        self.next_rq.next.lkey = self.req.val().lkey;
        // What is left is derived here, once, rather than kept per op.
        self.rem.next = self.req.val().total - self.ent.val().off;
        self.lastseg.next = self.rem.val() <= self.k_seg.val();
        self.next_rq.next.len = self.k_seg.val();
        if self.lastseg.val() {
            self.next_rq.next.len = self.rem.val();
        }
        self.adv.next.off = self.ent.val().off + self.k_seg.val();
        self.adv.next.more = !self.lastseg.val();
        self.adv.next.seq = self.ent.val().seq + 1;
        self.adv.next.emask = self.ent.val().emask << 1;
        if (self.ent.val().emask & self.k_wtop.val()).any() {
            self.adv.next.emask = 1.into();
        }
        if self.fire.val() {
            self.rq_q.d.next = self.next_rq.val();
            self.rq_v.d.next = true;
        } else if self.rq_v.q.val() & self.rq_ready.val() {
            self.rq_v.d.next = false;
        }

        if self.reset.val() {
            self.iv.d.next = false;
            self.isel.d.next = 0.into();
            self.rr_mask.d.next = 0.into();
            self.rq_v.d.next = false;
            self.rq_q.d.next = self.k_rq_zero.val();
        }
        self.rq_valid.next = self.rq_v.q.val();
        self.rq_rec.next = self.rq_q.q.val();
    }
}
