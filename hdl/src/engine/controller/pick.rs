//! The controller's event pick: which event an idle controller takes next (the model's
//! `Controller::comb` in `Idle`, and the fairness state `clock` keeps), and the
//! connections' work bits the pump reads.
//!
//! # Order
//! The builder's, delivery's and sequencer's reports first (no unit waits to report while
//! the controller waits to hand it work); then a pump when one is due (`pump_due`: a header,
//! overrun, teardown or command was taken since the last pump) and some connection has
//! work; then a command when one is due (`cmd_due`: a header, overrun or teardown was taken
//! since the last command, so a stream of incoming messages cannot starve commands); then
//! overrun, teardown, header, command; then a pump, round robin over the work bits from
//! `rr` (the connection after the last pumped one).
//!
//! # Ports
//! - `enable` (in): the controller is idle, or in an Apply that ends this cycle, and takes
//!   an event this cycle; the `take_*` outputs and the state registers move only then.
//! - `*_valid`, `*_conn` (in): the events waiting (a FIFO's head or the parser's header).
//! - `take_*` (out): the event taken, one at most; `pump` (out): a pump taken.
//! - `any` (out): an event taken (`kind`, `conn` name it: `super` codes `ev`).
//! - `set_v`, `set_conn`, `set_work` (in): Apply writes the applied connection's work bit;
//!   the pick in the same cycle (Apply's, when the next event is taken at once) reads it.
//! - `reset` (in): synchronous; no work, nothing due, `rr` 0.
//!
//! Timing: combinational from the inputs and this block's registers to the outputs (one
//! priority chain and two find-first chains over the work bits); the registers load at the
//! clock edge.

use rust_hdl::prelude::*;

use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlPick {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub sent_valid: Signal<In, Bit>,
    pub sent_conn: Signal<In, Bits<8>>,
    pub dlv_valid: Signal<In, Bit>,
    pub dlv_conn: Signal<In, Bits<8>>,
    pub xfer_valid: Signal<In, Bit>,
    pub xfer_conn: Signal<In, Bits<8>>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_conn: Signal<In, Bits<8>>,
    pub ovr_valid: Signal<In, Bit>,
    pub ovr_conn: Signal<In, Bits<8>>,
    pub down_valid: Signal<In, Bit>,
    pub down_conn: Signal<In, Bits<8>>,
    pub hdr_valid: Signal<In, Bit>,
    pub hdr_conn: Signal<In, Bits<8>>,
    pub set_v: Signal<In, Bit>,
    pub set_conn: Signal<In, Bits<8>>,
    pub set_work: Signal<In, Bit>,
    pub take_sent: Signal<Out, Bit>,
    pub take_dlv: Signal<Out, Bit>,
    pub take_xfer: Signal<Out, Bit>,
    pub take_cmd: Signal<Out, Bit>,
    pub take_ovr: Signal<Out, Bit>,
    pub take_down: Signal<Out, Bit>,
    pub take_hdr: Signal<Out, Bit>,
    pub pump: Signal<Out, Bit>,
    pub any: Signal<Out, Bit>,
    pub kind: Signal<Out, Bits<3>>,
    pub conn: Signal<Out, Bits<8>>,
    work: Vec<DFF<Bit>>,
    /// `work` with Apply's write forwarded.
    wk: Vec<Signal<Local, Bit>>,
    rr: DFF<Bits<8>>,
    pump_due: DFF<Bit>,
    cmd_due: DFF<Bit>,
    k_idx: Vec<Param<Bits<8>>>,
    k_last: Param<Bits<8>>,
    /// Find-first chains: `hi[i]` some connection below `i` at or after `rr` has work,
    /// `lo[i]` some connection below `i` has work.
    hi: Vec<Signal<Local, Bit>>,
    lo: Vec<Signal<Local, Bit>>,
    pick_hi: Signal<Local, Bits<8>>,
    pick_lo: Signal<Local, Bits<8>>,
    any_hi: Signal<Local, Bit>,
    any_lo: Signal<Local, Bit>,
    pump_first: Signal<Local, Bit>,
    cmd_first: Signal<Local, Bit>,
    pumped: Signal<Local, Bits<8>>,
}

impl CtlPick {
    /// A pick over `n` connections.
    pub fn new(n: usize) -> Self {
        CtlPick {
            work: (0..n).map(|_| Default::default()).collect(),
            wk: (0..n).map(|_| Default::default()).collect(),
            k_idx: (0..n).map(|i| param(i as u64)).collect(),
            k_last: param(n as u64 - 1),
            hi: (0..=n).map(|_| Default::default()).collect(),
            lo: (0..=n).map(|_| Default::default()).collect(),
            ..Default::default()
        }
    }
}

impl Logic for CtlPick {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rr, pump_due, cmd_due);
        // The work bits as Apply leaves them: the pick in Apply's own cycle sees the bit
        // the applied event writes.
        for i in 0..self.work.len() {
            self.work[i].clock.next = self.clock.val();
            self.wk[i].next = self.work[i].q.val();
            if self.set_v.val() & (self.set_conn.val() == self.k_idx[i].val()) {
                self.wk[i].next = self.set_work.val();
            }
            self.work[i].d.next = self.wk[i].val();
        }

        self.hi[0].next = false;
        self.lo[0].next = false;
        self.pick_hi.next = 0.into();
        self.pick_lo.next = 0.into();
        for i in 0..self.work.len() {
            if self.wk[i].val() & (self.k_idx[i].val() >= self.rr.q.val()) & !self.hi[i].val() {
                self.pick_hi.next = self.k_idx[i].val();
            }
            self.hi[i + 1].next =
                self.hi[i].val() | (self.wk[i].val() & (self.k_idx[i].val() >= self.rr.q.val()));
            if self.wk[i].val() & !self.lo[i].val() {
                self.pick_lo.next = self.k_idx[i].val();
            }
            self.lo[i + 1].next = self.lo[i].val() | self.wk[i].val();
        }
        // The chains' last links (the last assignment stands).
        self.any_hi.next = false;
        self.any_lo.next = false;
        for i in 0..self.work.len() {
            self.any_hi.next = self.hi[i + 1].val();
            self.any_lo.next = self.lo[i + 1].val();
        }
        self.pumped.next = self.pick_lo.val();
        if self.any_hi.val() {
            self.pumped.next = self.pick_hi.val();
        }
        self.pump_first.next = self.pump_due.q.val() & (self.any_hi.val() | self.any_lo.val());
        self.cmd_first.next = self.cmd_due.q.val() & self.cmd_valid.val();

        self.take_sent.next = false;
        self.take_dlv.next = false;
        self.take_xfer.next = false;
        self.take_cmd.next = false;
        self.take_ovr.next = false;
        self.take_down.next = false;
        self.take_hdr.next = false;
        self.pump.next = false;
        self.any.next = true;
        self.kind.next = 5.into();
        self.conn.next = self.pumped.val();
        if self.sent_valid.val() {
            self.take_sent.next = true;
            self.kind.next = 2.into();
            self.conn.next = self.sent_conn.val();
        } else if self.dlv_valid.val() {
            self.take_dlv.next = true;
            self.kind.next = 3.into();
            self.conn.next = self.dlv_conn.val();
        } else if self.xfer_valid.val() {
            self.take_xfer.next = true;
            self.kind.next = 7.into();
            self.conn.next = self.xfer_conn.val();
        } else if !self.pump_first.val() & self.cmd_first.val() {
            self.take_cmd.next = true;
            self.kind.next = 4.into();
            self.conn.next = self.cmd_conn.val();
        } else if !self.pump_first.val() & self.ovr_valid.val() {
            self.take_ovr.next = true;
            self.kind.next = 0.into();
            self.conn.next = self.ovr_conn.val();
        } else if !self.pump_first.val() & self.down_valid.val() {
            self.take_down.next = true;
            self.kind.next = 6.into();
            self.conn.next = self.down_conn.val();
        } else if !self.pump_first.val() & self.hdr_valid.val() {
            self.take_hdr.next = true;
            self.kind.next = 1.into();
            self.conn.next = self.hdr_conn.val();
        } else if !self.pump_first.val() & self.cmd_valid.val() {
            self.take_cmd.next = true;
            self.kind.next = 4.into();
            self.conn.next = self.cmd_conn.val();
        } else if self.any_hi.val() | self.any_lo.val() {
            self.pump.next = true;
        } else {
            self.any.next = false;
        }

        if self.enable.val() {
            // A report leaves both flags; a pump clears `pump_due`; the rest set it.
            if self.take_cmd.val()
                | self.take_ovr.val()
                | self.take_down.val()
                | self.take_hdr.val()
            {
                self.pump_due.d.next = true;
            }
            if self.take_cmd.val() {
                self.cmd_due.d.next = false;
            }
            if self.take_ovr.val() | self.take_down.val() | self.take_hdr.val() {
                self.cmd_due.d.next = true;
            }
            if self.pump.val() {
                self.pump_due.d.next = false;
                self.rr.d.next = self.pumped.val() + 1;
                if self.pumped.val() == self.k_last.val() {
                    self.rr.d.next = 0.into();
                }
            }
        } else {
            self.take_sent.next = false;
            self.take_dlv.next = false;
            self.take_xfer.next = false;
            self.take_cmd.next = false;
            self.take_ovr.next = false;
            self.take_down.next = false;
            self.take_hdr.next = false;
            self.pump.next = false;
            self.any.next = false;
        }
        if self.reset.val() {
            self.rr.d.next = 0.into();
            self.pump_due.d.next = false;
            self.cmd_due.d.next = false;
            for i in 0..self.work.len() {
                self.work[i].d.next = false;
            }
        }
    }
}
