//! The controller's decision on a finished delivery (the model's `Controller::on_dlv`),
//! combinational: the head receive completes (or, landing a LargeSend's inline bytes,
//! waits for its transfer), and a drained held buffer is posted again.
//!
//! # Ports
//! - `dlv` (in): the delivery job the delivery unit reports done.
//! - `cw` (in): its connection's word; `rq_f` (in): the head receive.
//! - `c`, `act` (out): the new word and what comes next (`act` re-post of the drained
//!   buffer, else apply).
//! - `cpl_v`, `cpl` (out): the receive's completion.

use rust_hdl::prelude::*;

use super::super::records::{Act, ConnWord, CplRec, DlvJob, PoolReq, RqEnt};
use crate::widgets::Param;

#[derive(LogicBlock, Default)]
pub struct CtlDlv {
    pub dlv: Signal<In, DlvJob>,
    pub cw: Signal<In, ConnWord>,
    pub rq_f: Signal<In, RqEnt>,
    pub c: Signal<Out, ConnWord>,
    pub act: Signal<Out, Act>,
    pub cpl_v: Signal<Out, Bit>,
    pub cpl: Signal<Out, CplRec>,
    k_zero_act: Param<Act>,
    k_zero_req: Param<PoolReq>,
    a: Signal<Local, Act>,
    req: Signal<Local, PoolReq>,
    /// The head receive goes: not a landing one, or its transfer is done too.
    pop: Signal<Local, Bit>,
}

impl Logic for CtlDlv {
    #[hdl_gen]
    fn update(&mut self) {
        self.c.next = self.cw.val();
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.dlv.val().conn;
        self.a.next.req = self.req.val();
        self.cpl_v.next = false;
        self.c.next.dlv_busy = false;
        self.cpl.next.tag = self.rq_f.val().tag;
        self.cpl.next.bytes = self.dlv.val().len;
        self.cpl.next.conn = bit_cast::<16, 8>(self.dlv.val().conn);
        self.cpl.next.status = 0.into();
        self.cpl.next.opcode = 6.into();
        self.cpl.next.urgent = self.dlv.val().urgent;
        self.cpl.next.eof = false;
        self.pop.next = true;
        if self.dlv.val().land & (self.cw.val().rx_x != 0) {
            // The landing receive completes with its transfer (or now, if that is done).
            self.pop.next = self.cw.val().rx_x == 3;
            self.cpl.next.bytes = self.cw.val().rx_total;
            self.cpl.next.urgent = false;
        }
        if (self.cw.val().st != 6) & (self.cw.val().rq_n != 0) {
            if self.dlv.val().land {
                self.c.next.rx_inline_due = false;
            }
            if self.pop.val() {
                if self.dlv.val().land & (self.cw.val().rx_x != 0) {
                    self.c.next.rx_x = 0.into();
                }
                self.c.next.rq_head = self.cw.val().rq_head + 1;
                self.c.next.rq_n = self.cw.val().rq_n - 1;
                self.cpl_v.next = true;
            }
            self.c.next.held_off = self.cw.val().held_off + bit_cast::<16, 32>(self.dlv.val().len);
            if self.dlv.val().last_of_buf {
                self.c.next.held_head = self.cw.val().held_head + 1;
                self.c.next.held_n = self.cw.val().held_n - 1;
                self.c.next.held_off = 0.into();
                self.c.next.held_land = false;
                self.c.next.adv_due = true;
                self.a.next.code = 3.into();
                self.a.next.kbuf = self.dlv.val().buf;
            }
        }
        self.act.next = self.a.val();
    }
}
