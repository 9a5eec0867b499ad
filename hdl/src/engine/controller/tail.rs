//! The controller's shared tails (the model's `abort`, the re-post after a message, and the
//! pump's last steps `pump_fin`, `pump_closed`), combinational: what a start or continuation
//! named by its `act.code` becomes.
//!
//! # Ports
//! - `w_in`, `act_in` (in): from [`super::start::CtlStart`] or [`super::cont::CtlCont`].
//! - `w` (out): the event, with the tail's changes.
//! - `pool` (out): a pool request is next (`step` holds it and its continuation); else the
//!   event is applied.
//! - `seq` (out): a sequencer command is next (`act.code` 6; `step` holds it and its
//!   continuation).
//! - `step` (out): the request and continuation.

use rust_hdl::prelude::*;

use super::super::records::{Act, ConnWord, Fx, PoolReq, Work};
use crate::widgets::Param;

#[derive(LogicBlock, Default)]
pub struct CtlTail {
    pub w_in: Signal<In, Work>,
    pub act_in: Signal<In, Act>,
    pub w: Signal<Out, Work>,
    pub pool: Signal<Out, Bit>,
    pub seq: Signal<Out, Bit>,
    pub step: Signal<Out, Act>,
    k_zero_req: Param<PoolReq>,
    ci: Signal<Local, ConnWord>,
    c: Signal<Local, ConnWord>,
    fx: Signal<Local, Fx>,
    a: Signal<Local, Act>,
    req: Signal<Local, PoolReq>,
    wk: Signal<Local, Work>,
    code: Signal<Local, Bits<3>>,
}

impl Logic for CtlTail {
    #[hdl_gen]
    fn update(&mut self) {
        self.ci.next = self.w_in.val().c;
        self.c.next = self.w_in.val().c;
        self.fx.next = self.w_in.val().fx;
        self.a.next = self.act_in.val();
        self.code.next = self.act_in.val().code;
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.w_in.val().conn;
        self.pool.next = self.code.val() == 1;
        self.seq.next = self.code.val() == 6;
        if self.code.val() == 1 {
            self.req.next = self.act_in.val().req;
        } else if self.code.val() == 2 {
            // Abort: nothing when gone; tell the peer when the session is up; close the pool.
            if (self.ci.val().st == 0) | (self.ci.val().st == 5) | (self.ci.val().st == 6) {
                self.pool.next = false;
            } else if (self.ci.val().st == 4) & self.act_in.val().notify {
                self.pool.next = true;
                self.req.next.op = 2.into();
                self.req.next.class = 2.into();
                self.a.next.cont = 6.into();
            } else {
                self.pool.next = true;
                self.req.next.op = 1.into();
                self.a.next.cont = 7.into();
            }
        } else if self.code.val() == 3 {
            self.pool.next = true;
            self.req.next.op = 5.into();
            self.req.next.buf = self.act_in.val().kbuf;
            self.a.next.cont = 5.into();
        } else if self.code.val() == 4 {
            self.pool.next = true;
            if self.ci.val().shut & !self.ci.val().fin_sent & (self.ci.val().sq_n == 0) {
                self.req.next.op = 2.into();
                self.req.next.class = 1.into();
                self.a.next.cont = 9.into();
            } else {
                self.req.next.op = 6.into();
                self.a.next.cont = 10.into();
            }
        } else if self.code.val() == 5 {
            if self.ci.val().fin_sent & self.ci.val().fin_rcvd & (self.ci.val().sq_n == 0) {
                self.c.next.st = 5.into();
                self.pool.next = true;
                self.req.next.op = 1.into();
                self.a.next.cont = 0.into();
            } else {
                self.fx.next.work = false;
            }
        }
        self.a.next.req = self.req.val();
        self.wk.next = self.w_in.val();
        self.wk.next.c = self.c.val();
        self.wk.next.fx = self.fx.val();
        self.w.next = self.wk.val();
        self.step.next = self.a.val();
    }
}
