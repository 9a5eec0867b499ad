//! The controller's decision on the sequencer's answer (the model's `z_seq` and
//! `land_fallback`). Combinational.
//!
//! # Ports
//! - `step` (in): the command's continuation (`zk`, `zrep` with `kbuf`, `znotify`); `w_in`
//!   (in): the event so far; `rsp` (in): the answer; `sq_f`, `rq_f` (in): the heads of
//!   the send and receive queues.
//! - `w` (out), `act` (out): as [`super::start::CtlStart`]'s.
//!
//! A step that would end the event (`act.code` 0, apply) while the connection's next pump
//! step is an owed message's ([`PumpStep`] on the new word) takes that step instead: the
//! message's buffer asked for (`act.code` 1, `cont` 13), as the model's `z_seq` does.
//!
//! `zk`: 0 the source registered, 1 the landing region registered, 2 the reads started,
//! 3 the writes started, 4 the source deregistered after its transfer, 5 the source
//! deregistered without one, 6 the landing region deregistered after its transfer, 7 the
//! landing region given up, 8 the connection's transfers aborted.

use rust_hdl::prelude::*;

use crate::widgets::wsa;
use sanswitch_model::params::EngineParams;
use sanswitch_model::status::WsaError;

use super::super::records::{Act, ConnWord, CplRec, PoolReq, RqEnt, SeqRsp, SqEnt, Work};
use super::PumpStep;
use crate::widgets::Param;

#[derive(LogicBlock, Default)]
pub struct CtlZSeq {
    pub step: Signal<In, Act>,
    pub w_in: Signal<In, Work>,
    pub rsp: Signal<In, SeqRsp>,
    pub sq_f: Signal<In, SqEnt>,
    pub rq_f: Signal<In, RqEnt>,
    pub w: Signal<Out, Work>,
    pub act: Signal<Out, Act>,
    /// A completion, for the controller's completion register.
    pub new_cpl_v: Signal<Out, Bit>,
    pub new_cpl: Signal<Out, CplRec>,
    /// This engine reads (a landing region is the target of our RDMA reads).
    k_read: Param<Bit>,
    k_zero_act: Param<Act>,
    k_zero_cpl: Param<CplRec>,
    k_zero_req: Param<PoolReq>,
    req: Signal<Local, PoolReq>,
    /// The word as the event found it; `c` the new one.
    ci: Signal<Local, ConnWord>,
    c: Signal<Local, ConnWord>,
    cpl: Signal<Local, CplRec>,
    a: Signal<Local, Act>,
    ok: Signal<Local, Bit>,
    /// Give the landing region up (`land_fallback`), owing a SendByCopy when `fb_notify`.
    fb: Signal<Local, Bit>,
    fb_notify: Signal<Local, Bit>,
    /// Complete the head send (with `cpl`).
    pop_sq: Signal<Local, Bit>,
    /// Complete the head receive (with `cpl`).
    pop_rq: Signal<Local, Bit>,
    /// `WSAENOBUFS` (`WsaError::NoBufs`).
    k_nobufs: Param<Bits<16>>,
    /// The step's `act.code` before the owed-message check (which reads it).
    code: Signal<Local, Bits<3>>,
    /// The pump's next step on the new word (only `owed` read: `sq_f` may be the head
    /// this step completed).
    pump: PumpStep,
}

impl CtlZSeq {
    pub fn new(p: &EngineParams) -> Self {
        CtlZSeq {
            k_read: Param::new(p.rdma_read),
            k_nobufs: wsa(WsaError::NoBufs),
            pump: PumpStep::default(),
            ..Default::default()
        }
    }
}

impl Logic for CtlZSeq {
    #[hdl_gen]
    fn update(&mut self) {
        self.ci.next = self.w_in.val().c;
        self.c.next = self.w_in.val().c;
        self.new_cpl_v.next = false;
        self.new_cpl.next = self.k_zero_cpl.val();
        self.ok.next = self.rsp.val().status == 0;
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.w_in.val().conn;
        // Defaults: finish (the message's buffer posted again when there is one), carrying
        // the continuation's buffer and flags to a next command.
        self.a.next = self.k_zero_act.val();
        self.a.next.kbuf = self.step.val().kbuf;
        self.a.next.zrep = self.step.val().zrep;
        self.a.next.sop = 1.into();
        self.code.next = 0.into();
        if self.step.val().zrep {
            self.code.next = 3.into();
        }
        self.fb.next = false;
        self.fb_notify.next = true;
        self.pop_sq.next = false;
        self.pop_rq.next = false;
        self.cpl.next = self.k_zero_cpl.val();
        self.cpl.next.tag = self.sq_f.val().tag;
        self.cpl.next.bytes = self.sq_f.val().len;
        self.cpl.next.conn = bit_cast::<16, 8>(self.w_in.val().conn);
        self.cpl.next.opcode = 4.into();

        if self.step.val().zk == 0 {
            if self.ok.val() {
                self.c.next.tx_x = 1.into();
                self.c.next.tx_key = self.rsp.val().key;
                self.code.next = 1.into();
                self.req.next.op = 2.into();
                self.req.next.class = 0.into();
                self.a.next.cont = 12.into();
            } else {
                // No registration for the source: WSAENOBUFS, as the switch does.
                self.pop_sq.next = true;
                self.cpl.next.bytes = 0.into();
                self.cpl.next.status = self.k_nobufs.val();
            }
        } else if self.step.val().zk == 1 {
            if !self.ok.val() {
                self.fb.next = true;
            } else {
                self.c.next.rx_key = self.rsp.val().key;
                if self.k_read.val() {
                    self.code.next = 6.into();
                    self.a.next.zk = 2.into();
                    // START_READ: the landing region's new key is the word's now.
                    self.a.next.sop = 2.into();
                    self.a.next.srx = true;
                } else {
                    self.c.next.rx_x = 2.into();
                    self.c.next.rx_due = 3.into();
                    self.c.next.rx_due_xfer = self.ci.val().rx_xfer;
                }
            }
        } else if self.step.val().zk == 2 {
            if self.ok.val() {
                self.c.next.op_live = true;
            } else {
                // No op slot: give the landing region up.
                self.code.next = 6.into();
                self.a.next.zk = 7.into();
                self.a.next.znotify = true;
                self.a.next.srx = true;
            }
        } else if self.step.val().zk == 3 {
            if self.ok.val() {
                self.c.next.op_live = true;
                self.c.next.tx_x = 4.into();
            } else {
                self.c.next.tx_due = true;
                self.c.next.tx_due_bytes = 0.into();
                self.code.next = 6.into();
                self.a.next.zk = 5.into();
            }
        } else if self.step.val().zk == 4 {
            self.pop_sq.next = true;
        } else if self.step.val().zk == 5 {
            self.c.next.tx_x = 0.into();
        } else if self.step.val().zk == 6 {
            if self.ci.val().rx_inline_due {
                self.c.next.rx_x = 3.into();
            } else {
                self.c.next.rx_x = 0.into();
                self.pop_rq.next = true;
                self.cpl.next.bytes = self.ci.val().rx_total;
            }
        } else if self.step.val().zk == 7 {
            self.fb.next = true;
            self.fb_notify.next = self.step.val().znotify;
        }
        // Else 8, the abort answered: apply.

        if self.fb.val() {
            // The incoming transfer will not land: SendByCopy, and the landing receive
            // keeps what it has (its inline bytes: completed now if delivered, else
            // delivered as Data's are).
            self.c.next.rx_x = 0.into();
            if self.fb_notify.val() {
                self.c.next.rx_due = 1.into();
                self.c.next.rx_due_xfer = self.ci.val().rx_xfer;
            }
            if self.ci.val().rx_inline_due {
                self.c.next.held_land = false;
            } else if self.ci.val().rx_inline != 0 {
                self.pop_rq.next = true;
                self.cpl.next.bytes = bit_cast::<32, 16>(self.ci.val().rx_inline);
            }
        }
        if self.pop_sq.val() {
            self.c.next.sq_head = self.ci.val().sq_head + 1;
            self.c.next.sq_n = self.ci.val().sq_n - 1;
            self.c.next.sent = 0.into();
            self.c.next.tx_x = 0.into();
            self.new_cpl_v.next = true;
            self.new_cpl.next = self.cpl.val();
        }
        if self.pop_rq.val() & (self.ci.val().rq_n != 0) {
            self.cpl.next.tag = self.rq_f.val().tag;
            self.cpl.next.opcode = 6.into();
            self.c.next.rq_head = self.ci.val().rq_head + 1;
            self.c.next.rq_n = self.ci.val().rq_n - 1;
            self.new_cpl_v.next = true;
            self.new_cpl.next = self.cpl.val();
        }
        self.a.next.code = self.code.val();
        self.pump.cw.next = self.c.val();
        self.pump.sq_f.next = self.sq_f.val();
        if (self.code.val() == 0) & self.pump.owed.val() {
            // The pump's owed-message step, as `CtlZStart` takes it: a buffer and credit.
            self.a.next.code = 1.into();
            self.req.next.op = 2.into();
            self.req.next.class = 1.into();
            self.a.next.cont = 13.into();
        }
        self.a.next.req = self.req.val();
        self.w.next = self.w_in.val();
        self.w.next.c = self.c.val();
        self.act.next = self.a.val();
    }
}
