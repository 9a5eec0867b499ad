//! The controller's first decision on the zero-copy events (the model's `on_xfer`, and the
//! pump's `pump_large` and owed-message steps), combinational.
//!
//! # Ports
//! - `kind` (in): the event (`ev`: 5 a pump, 7 a sequencer completion request); `xfer`
//!   (in): the completion request; `cw` (in): the connection's word.
//! - `w_in` (in): the event as [`super::start::CtlStart`] has it (connection, effects).
//! - `w` (out), `act` (out): as [`super::start::CtlStart`]'s; the controller takes them
//!   instead of `CtlStart`'s for a completion request, and for a pump that `CtlStart` hands
//!   over (`zpump`).

use rust_hdl::prelude::*;

use super::super::records::{Act, ConnWord, PoolReq, Work, XferRec};
use crate::widgets::Param;

#[derive(LogicBlock, Default)]
pub struct CtlZStart {
    pub kind: Signal<In, Bits<3>>,
    pub xfer: Signal<In, XferRec>,
    pub cw: Signal<In, ConnWord>,
    pub w_in: Signal<In, Work>,
    pub w: Signal<Out, Work>,
    pub act: Signal<Out, Act>,
    k_zero_act: Param<Act>,
    k_zero_req: Param<PoolReq>,
    req: Signal<Local, PoolReq>,
    c: Signal<Local, ConnWord>,
    a: Signal<Local, Act>,
    wk: Signal<Local, Work>,
    ok: Signal<Local, Bit>,
}

impl Logic for CtlZStart {
    #[hdl_gen]
    fn update(&mut self) {
        self.c.next = self.cw.val();
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.w_in.val().conn;
        self.ok.next = self.xfer.val().status == 0;

        if self.kind.val() == 7 {
            // A transfer ended: owe its message and give its registration up. The region is
            // one only our own RDMA operations used, so the DEREGISTER is posted.
            self.c.next.op_live = false;
            if !self.xfer.val().write
                & (self.cw.val().rx_x == 1)
                & (self.xfer.val().xfer == self.cw.val().rx_xfer)
            {
                self.a.next.code = 6.into();
                self.a.next.zpost = true;
                self.a.next.sop = 1.into();
                self.a.next.srx = true;
                if self.ok.val() {
                    self.c.next.rx_due = 2.into();
                    self.c.next.rx_due_xfer = self.xfer.val().xfer;
                    self.a.next.zk = 6.into();
                } else {
                    self.a.next.zk = 7.into();
                    self.a.next.znotify = true;
                }
            } else if self.xfer.val().write
                & (self.cw.val().tx_x == 4)
                & (self.xfer.val().xfer == self.cw.val().tx_xfer)
            {
                self.a.next.code = 6.into();
                self.a.next.zpost = true;
                self.a.next.sop = 1.into();
                self.c.next.tx_due = true;
                self.c.next.tx_due_bytes = 0.into();
                self.a.next.zk = 5.into();
                if self.ok.val() {
                    self.c.next.tx_due_bytes = self.xfer.val().bytes;
                    self.a.next.zk = 4.into();
                }
            }
            // Else an aborted transfer: the flush it held may go now.
        } else if (self.cw.val().rx_due != 0) | self.cw.val().tx_due {
            // An owed message goes before any Data: a buffer and credit for it.
            self.a.next.code = 1.into();
            self.req.next.op = 2.into();
            self.req.next.class = 1.into();
            self.a.next.cont = 13.into();
        } else if self.cw.val().tx_x == 0 {
            // Register the part after the inline bytes: for the peer's reads, or ours.
            self.a.next.code = 6.into();
            self.a.next.sop = 0.into();
            if self.cw.val().peer_read {
                self.a.next.saccess = 1.into();
            }
            self.a.next.zk = 0.into();
        } else if self.cw.val().tx_x == 1 {
            self.a.next.code = 1.into();
            self.req.next.op = 2.into();
            self.req.next.class = 0.into();
            self.a.next.cont = 12.into();
        } else {
            // Waiting for the peer: nothing of this send to do.
            self.a.next.code = 4.into();
        }
        self.a.next.req = self.req.val();
        self.wk.next = self.w_in.val();
        self.wk.next.c = self.c.val();
        self.w.next = self.wk.val();
        self.act.next = self.a.val();
    }
}
