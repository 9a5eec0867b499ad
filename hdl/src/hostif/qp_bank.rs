//! The queue pairs: `Q` register blocks ([`QpRegs`]), which one the submission-ring fetch
//! serves, and which one a completion goes to (the model: `sanswitch_model::blocks::hostif`,
//! "Submission rings" and "Completion rings").
//!
//! # Ports
//! - `wr`, `wr_qp`, `off`, `wdata` (in): a register write at this edge to queue pair
//!   `wr_qp`, at `off` inside its block.
//! - `rd_qp` (in) / `rd_state` (out): the registers of the queue pair a read addresses.
//! - `fetch_busy` (in): the fetch unit shows a held request or is owed beats; `fetch_show`
//!   (in): it shows a request this cycle; `took` (in): it queued an entry at this edge.
//! - `sel`, `fetch_state`, `stop` (out): the queue pair the fetch serves this cycle (the one
//!   in flight while busy, else round robin downwards from the last one served: the highest
//!   below it with work, else the highest with work), its registers, and its disable.
//! - `cpl_qp` (in) / `cq_state`, `cq_none` (out): the queue pair an offered completion is
//!   for, its registers, and whether it does not exist; `cq_take` (in): the completion is
//!   taken for writing at this edge; `cq_done` (in): its last beat is written.
//! - `cq_event` (out): bit `k` is queue pair `k`'s event.
//! - `doorbell`, `beyond`, `bad_cq_cons` (out): this edge's write's counted events.
//!
//! Every choice is a multiplexer over `Q` (at most 8) register blocks; `cur` and `wq` hold
//! the queue pair of the fetch and of the completion write in flight.

use rust_hdl::prelude::*;

use super::{CqState, QpRegs, QpState, SqState};
use crate::widgets::{Param, param};

#[derive(LogicBlock)]
pub struct QpBank<const Q: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub wr: Signal<In, Bit>,
    pub wr_qp: Signal<In, Bits<3>>,
    pub off: Signal<In, Bits<12>>,
    pub wdata: Signal<In, Bits<32>>,
    pub rd_qp: Signal<In, Bits<3>>,
    pub fetch_busy: Signal<In, Bit>,
    pub fetch_show: Signal<In, Bit>,
    pub took: Signal<In, Bit>,
    pub cpl_qp: Signal<In, Bits<3>>,
    pub cq_take: Signal<In, Bit>,
    pub cq_done: Signal<In, Bit>,
    pub rd_state: Signal<Out, QpState>,
    pub sel: Signal<Out, Bits<3>>,
    pub fetch_state: Signal<Out, SqState>,
    pub stop: Signal<Out, Bit>,
    pub cq_state: Signal<Out, CqState>,
    pub cq_none: Signal<Out, Bit>,
    pub cq_event: Signal<Out, Bits<8>>,
    pub doorbell: Signal<Out, Bit>,
    pub beyond: Signal<Out, Bit>,
    pub bad_cq_cons: Signal<Out, Bit>,
    qp: [QpRegs; Q],
    cur: DFF<Bits<3>>,
    wq: DFF<Bits<3>>,
    k_idx: [Param<Bits<3>>; Q],
    k_count: Param<Bits<4>>,
    pick_all: Signal<Local, Bits<3>>,
    pick_below: Signal<Local, Bits<3>>,
    any: Signal<Local, Bit>,
    any_below: Signal<Local, Bit>,
}

impl<const Q: usize> QpBank<Q> {
    pub fn new(max_log2_size: u8) -> Self {
        assert!((1..=8).contains(&Q), "1 to 8 queue pairs");
        QpBank {
            clock: Default::default(),
            reset: Default::default(),
            wr: Default::default(),
            wr_qp: Default::default(),
            off: Default::default(),
            wdata: Default::default(),
            rd_qp: Default::default(),
            fetch_busy: Default::default(),
            fetch_show: Default::default(),
            took: Default::default(),
            cpl_qp: Default::default(),
            cq_take: Default::default(),
            cq_done: Default::default(),
            rd_state: Default::default(),
            sel: Default::default(),
            fetch_state: Default::default(),
            stop: Default::default(),
            cq_state: Default::default(),
            cq_none: Default::default(),
            cq_event: Default::default(),
            doorbell: Default::default(),
            beyond: Default::default(),
            bad_cq_cons: Default::default(),
            qp: std::array::from_fn(|k| QpRegs::new(max_log2_size, k)),
            cur: Default::default(),
            wq: Default::default(),
            k_idx: std::array::from_fn(|k| param(k as u64)),
            k_count: param(Q as u64),
            pick_all: Default::default(),
            pick_below: Default::default(),
            any: Default::default(),
            any_below: Default::default(),
        }
    }
}

impl<const Q: usize> Default for QpBank<Q> {
    fn default() -> Self {
        QpBank::new(1)
    }
}

impl<const Q: usize> Logic for QpBank<Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cur, wq);

        // The queue pair to fetch from next: the highest below the last one served with
        // work, else the highest with work (the last one served included).
        self.pick_all.next = self.cur.q.val();
        self.pick_below.next = self.cur.q.val();
        self.any.next = false;
        self.any_below.next = false;
        for i in 0..Q {
            if self.qp[i].sq_work.val() {
                self.any.next = true;
                self.pick_all.next = self.k_idx[i].val();
                if self.k_idx[i].val() < self.cur.q.val() {
                    self.any_below.next = true;
                    self.pick_below.next = self.k_idx[i].val();
                }
            }
        }
        self.sel.next = self.cur.q.val();
        if !self.fetch_busy.val() {
            if self.any_below.val() {
                self.sel.next = self.pick_below.val();
            } else if self.any.val() {
                self.sel.next = self.pick_all.val();
            }
        }
        if self.fetch_show.val() {
            self.cur.d.next = self.sel.val();
        }
        if self.cq_take.val() {
            self.wq.d.next = self.cpl_qp.val();
        }
        self.cq_none.next = bit_cast::<4, 3>(self.cpl_qp.val()) >= self.k_count.val();

        // Each queue pair's inputs, and the multiplexers over their state.
        self.rd_state.next = self.qp[0].state.val();
        self.fetch_state.next = self.qp[0].sq.val();
        self.cq_state.next = self.qp[0].cq.val();
        self.stop.next = false;
        self.doorbell.next = false;
        self.beyond.next = false;
        self.bad_cq_cons.next = false;
        // The events chained from the last queue pair down to the first.
        for i in 0..Q {
            self.qp[i].ev_in.next = 0.into();
        }
        for i in 0..(Q - 1usize) {
            self.qp[i].ev_in.next = self.qp[i + 1].ev_out.val();
        }
        self.cq_event.next = self.qp[0].ev_out.val();
        for i in 0..Q {
            self.qp[i].clock.next = self.clock.val();
            self.qp[i].reset.next = self.reset.val();
            self.qp[i].wr.next = self.wr.val() & (self.wr_qp.val() == self.k_idx[i].val());
            self.qp[i].off.next = self.off.val();
            self.qp[i].wdata.next = self.wdata.val();
            self.qp[i].took.next = self.took.val() & (self.sel.val() == self.k_idx[i].val());
            self.qp[i].done.next = self.cq_done.val() & (self.wq.q.val() == self.k_idx[i].val());
            if self.rd_qp.val() == self.k_idx[i].val() {
                self.rd_state.next = self.qp[i].state.val();
            }
            if self.sel.val() == self.k_idx[i].val() {
                self.fetch_state.next = self.qp[i].sq.val();
                self.stop.next = self.qp[i].stop.val();
            }
            if self.cpl_qp.val() == self.k_idx[i].val() {
                self.cq_state.next = self.qp[i].cq.val();
            }
            if self.qp[i].doorbell.val() {
                self.doorbell.next = true;
            }
            if self.qp[i].beyond.val() {
                self.beyond.next = true;
            }
            if self.qp[i].bad_cq_cons.val() {
                self.bad_cq_cons.next = true;
            }
        }

        if self.reset.val() {
            self.cur.d.next = 0.into();
            self.wq.d.next = 0.into();
        }
    }
}
