//! The controller's pump (the model's `Controller::pump`): the next step of a connection
//! with work, combinational, as [`super::PumpStep`] picks it: a flush once the connection
//! is quiet; a delivery of held payload into the head receive; the EOF to the head receive
//! after the peer's Disconnect; the zero-copy steps (owed messages, the head send's
//! transfer: [`super::zstart::CtlZStart`] takes them, `zpump`); a queued send's buffer;
//! else the tails (`pump_fin`: Disconnect, credit update, close).
//!
//! # Ports
//! - `conn` (in): the connection; `cw` (in): its word; `sq_f`, `rq_f`, `held_f` (in): the
//!   heads of its send, receive and held-payload queues.
//! - `c`, `fx`, `act` (out): the new word, effects (`work` clear: nothing left to pump) and
//!   what comes next.
//! - `dlv_v`, `dlv` (out): a delivery job; `cpl_v`, `cpl` (out): a receive's EOF completion.
//! - `zpump` (out): the step is a zero-copy one.

use rust_hdl::prelude::*;

use super::super::records::{Act, ConnWord, CplRec, DlvJob, Fx, HeldEnt, PoolReq, RqEnt, SqEnt};
use super::PumpStep;
use crate::widgets::Param;

#[derive(LogicBlock, Default)]
pub struct CtlPump {
    pub conn: Signal<In, Bits<8>>,
    pub cw: Signal<In, ConnWord>,
    pub sq_f: Signal<In, SqEnt>,
    pub rq_f: Signal<In, RqEnt>,
    pub held_f: Signal<In, HeldEnt>,
    pub c: Signal<Out, ConnWord>,
    pub fx: Signal<Out, Fx>,
    pub act: Signal<Out, Act>,
    pub dlv_v: Signal<Out, Bit>,
    pub dlv: Signal<Out, DlvJob>,
    pub cpl_v: Signal<Out, Bit>,
    pub cpl: Signal<Out, CplRec>,
    pub zpump: Signal<Out, Bit>,
    step: PumpStep,
    k_zero_fx: Param<Fx>,
    k_zero_act: Param<Act>,
    k_zero_req: Param<PoolReq>,
    a: Signal<Local, Act>,
    req: Signal<Local, PoolReq>,
    n: Signal<Local, Bits<32>>,
    /// The head held buffer's bytes not yet delivered, and whether they fit the head receive.
    hleft: Signal<Local, Bits<32>>,
    fits: Signal<Local, Bit>,
}

impl Logic for CtlPump {
    #[hdl_gen]
    fn update(&mut self) {
        self.step.cw.next = self.cw.val();
        self.step.sq_f.next = self.sq_f.val();
        self.c.next = self.cw.val();
        self.fx.next = self.k_zero_fx.val();
        self.fx.next.work = true;
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.conn.val();
        self.zpump.next = false;
        self.dlv_v.next = false;
        self.cpl_v.next = false;
        // The delivery: as much of the head held buffer as the head receive takes. The
        // buffer's bytes end with it exactly when they fit (`held_off + n == len` is
        // `n == len - held_off`): the compare itself, not a sum after it.
        self.hleft.next = self.held_f.val().len - bit_cast::<32, 16>(self.cw.val().held_off);
        self.fits.next = self.rq_f.val().len >= self.hleft.val();
        self.n.next = self.hleft.val();
        if !self.fits.val() {
            self.n.next = self.rq_f.val().len;
        }
        self.dlv.next.conn = self.conn.val();
        self.dlv.next.buf = self.held_f.val().buf;
        self.dlv.next.off = bit_cast::<32, 16>(self.cw.val().held_off);
        self.dlv.next.len = self.n.val();
        self.dlv.next.addr = self.rq_f.val().addr;
        self.dlv.next.urgent = self.held_f.val().urgent;
        self.dlv.next.last_of_buf = self.fits.val();
        self.dlv.next.land = self.cw.val().held_land;
        // The EOF.
        self.cpl.next.tag = self.rq_f.val().tag;
        self.cpl.next.bytes = 0.into();
        self.cpl.next.conn = bit_cast::<16, 8>(self.conn.val());
        self.cpl.next.status = 0.into();
        self.cpl.next.opcode = 6.into();
        self.cpl.next.urgent = false;
        self.cpl.next.eof = true;

        if self.step.flush.val() {
            if !self.cw.val().dlv_busy & (self.cw.val().tx_inflight == 0) & !self.cw.val().op_live {
                self.c.next.fl_v = false;
                self.fx.next.flush_v = true;
                self.fx.next.flush_all = self.cw.val().fl_all;
                self.fx.next.flush_err = self.cw.val().fl_err;
            }
            self.fx.next.work = false;
        } else if self.step.deliver.val() {
            self.dlv_v.next = true;
            self.c.next.dlv_busy = true;
        } else if self.step.eof.val() {
            self.c.next.rq_head = self.cw.val().rq_head + 1;
            self.c.next.rq_n = self.cw.val().rq_n - 1;
            self.cpl_v.next = true;
        } else if self.step.idle.val() {
            self.fx.next.work = false;
        } else if self.step.owed.val() | self.step.zcopy.val() {
            self.zpump.next = true;
        } else if self.step.data.val() {
            self.a.next.code = 1.into();
            self.req.next.op = 2.into();
            self.req.next.class = 0.into();
            self.a.next.cont = 8.into();
        } else {
            self.a.next.code = 4.into();
        }
        self.a.next.req = self.req.val();
        self.act.next = self.a.val();
    }
}
