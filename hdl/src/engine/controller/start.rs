//! The controller's first decision on an event (the model's `Controller::start` and the
//! event handlers it calls), combinational: the small events here, the large ones in their
//! own blocks ([`CtlRx`] a header, [`CtlDlv`] a finished delivery, [`CtlCmd`] a command,
//! [`CtlPump`] a pump), chosen by the event's kind.
//!
//! # Ports
//! - `kind`, `ev_conn`, `hdr`, `sent`, `dlv`, `cmd` (in): the event (`codes::ev`).
//! - `cw` (in): its connection's state word; `sq_f`, `rq_f`, `held_f` (in): the heads of its
//!   queues (read at the word's head pointers).
//! - `w` (out): the event as it will be applied (connection, new state word, effects,
//!   entries to append); `act` (out): what comes next (`codes::act`).
//! - `new_job*`, `new_cpl*`, `new_dlv*` (out): the message job, completion and delivery job
//!   the event makes, for the controller's registers.
//! - `zpump` (out): a pump whose next step is a zero-copy one.
//!
//! Codes are the numbers of `super::codes` (checked against the model by a test).

use rust_hdl::prelude::*;

use crate::widgets::wsa;
use sanswitch_model::params::EngineParams;
use sanswitch_model::status::WsaError;

use super::super::records::{
    Act, CmdRec, ConnWord, CplRec, DlvJob, Fx, HdrRec, HeldEnt, Pend, PoolReq, RqEnt, SentRec,
    SqEnt, TxJob, Work,
};
use super::{CtlCmd, CtlDlv, CtlPump, CtlRx};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlStart {
    pub kind: Signal<In, Bits<3>>,
    pub ev_conn: Signal<In, Bits<8>>,
    pub hdr: Signal<In, HdrRec>,
    pub sent: Signal<In, SentRec>,
    pub dlv: Signal<In, DlvJob>,
    pub cmd: Signal<In, CmdRec>,
    pub cw: Signal<In, ConnWord>,
    pub sq_f: Signal<In, SqEnt>,
    pub rq_f: Signal<In, RqEnt>,
    pub held_f: Signal<In, HeldEnt>,
    pub w: Signal<Out, Work>,
    pub act: Signal<Out, Act>,
    /// A message job built (Hello), for the controller's job register.
    pub new_job_v: Signal<Out, Bit>,
    pub new_job: Signal<Out, TxJob>,
    /// A completion, for the controller's completion register.
    pub new_cpl_v: Signal<Out, Bit>,
    pub new_cpl: Signal<Out, CplRec>,
    /// A delivery job (the pump's), for the controller's delivery register.
    pub new_dlv_v: Signal<Out, Bit>,
    pub new_dlv: Signal<Out, DlvJob>,
    /// A pump whose next step is a zero-copy one (an owed message, or the head send's
    /// transfer): [`super::zstart::CtlZStart`] decides it.
    pub zpump: Signal<Out, Bit>,
    rx: CtlRx,
    on_dlv: CtlDlv,
    on_cmd: CtlCmd,
    pump: CtlPump,
    k_conns: Param<Bits<16>>,
    k_zero_fx: Param<Fx>,
    k_zero_pend: Param<Pend>,
    k_zero_act: Param<Act>,
    k_zero_job: Param<TxJob>,
    k_zero_req: Param<PoolReq>,
    c: Signal<Local, ConnWord>,
    fx: Signal<Local, Fx>,
    a: Signal<Local, Act>,
    req: Signal<Local, PoolReq>,
    sreq: Signal<Local, PoolReq>,
    conn: Signal<Local, Bits<8>>,
    /// `WSAECONNRESET` (`WsaError::ConnReset`).
    k_connreset: Param<Bits<16>>,
    /// `WSAECONNREFUSED` (`WsaError::ConnRefused`).
    k_connrefused: Param<Bits<16>>,
}

impl CtlStart {
    pub fn new(p: &EngineParams) -> Self {
        CtlStart {
            rx: CtlRx::new(),
            on_cmd: CtlCmd::new(p),
            pump: CtlPump::default(),
            k_conns: param(p.connections as u64),
            k_connreset: wsa(WsaError::ConnReset),
            k_connrefused: wsa(WsaError::ConnRefused),
            ..Default::default()
        }
    }
}

impl Logic for CtlStart {
    #[hdl_gen]
    fn update(&mut self) {
        self.rx.hdr.next = self.hdr.val();
        self.rx.cw.next = self.cw.val();
        self.on_dlv.dlv.next = self.dlv.val();
        self.on_dlv.cw.next = self.cw.val();
        self.on_dlv.rq_f.next = self.rq_f.val();
        self.on_cmd.cmd.next = self.cmd.val();
        self.on_cmd.cw.next = self.cw.val();
        self.pump.conn.next = self.ev_conn.val();
        self.pump.cw.next = self.cw.val();
        self.pump.sq_f.next = self.sq_f.val();
        self.pump.rq_f.next = self.rq_f.val();
        self.pump.held_f.next = self.held_f.val();

        // Defaults: apply, nothing made.
        self.conn.next = self.ev_conn.val();
        self.c.next = self.cw.val();
        self.fx.next = self.k_zero_fx.val();
        self.fx.next.work = true;
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.ev_conn.val();
        self.a.next.req = self.req.val();
        // A sent message's buffer back to the pool (the request of kind 2).
        self.sreq.next = self.k_zero_req.val();
        self.sreq.next.conn = self.sent.val().conn;
        self.sreq.next.op = 3.into();
        self.sreq.next.buf = self.sent.val().buf;
        self.w.next.pend = self.k_zero_pend.val();
        self.new_job_v.next = false;
        self.new_job.next = self.k_zero_job.val();
        self.new_cpl_v.next = false;
        self.new_cpl.next = self.on_cmd.cpl.val();
        self.new_dlv_v.next = false;
        self.new_dlv.next = self.pump.dlv.val();
        self.zpump.next = false;
        if self.kind.val() == 0 {
            if self.cw.val().st == 0 {
                // A message for a connection never opened here: refuse it (the peer's
                // CONNECT fails rather than waiting for ever).
                self.fx.next.down = true;
            } else {
                // A credit overrun: a violation.
                self.a.next.code = 2.into();
                self.a.next.kerr = self.k_connreset.val();
                self.a.next.notify = true;
            }
        } else if self.kind.val() == 1 {
            self.conn.next = self.rx.conn.val();
            self.c.next = self.rx.c.val();
            self.fx.next = self.rx.fx.val();
            self.a.next = self.rx.act.val();
        } else if self.kind.val() == 2 {
            // A message sent: its buffer back to the pool, and a send it finished completes.
            self.conn.next = self.sent.val().conn;
            self.a.next.req = self.sreq.val();
            self.c.next.tx_inflight = self.cw.val().tx_inflight - 1;
            self.new_cpl_v.next = self.sent.val().cpl_v;
            self.new_cpl.next = self.sent.val().cpl;
            if self.sent.val().pooled {
                self.a.next.code = 1.into();
                self.a.next.cont = 0.into();
            }
        } else if self.kind.val() == 3 {
            self.conn.next = self.dlv.val().conn;
            self.c.next = self.on_dlv.c.val();
            self.a.next = self.on_dlv.act.val();
            self.new_cpl_v.next = self.on_dlv.cpl_v.val();
            self.new_cpl.next = self.on_dlv.cpl.val();
        } else if self.kind.val() == 4 {
            self.conn.next = self.on_cmd.conn.val();
            self.c.next = self.on_cmd.c.val();
            self.fx.next = self.on_cmd.fx.val();
            self.a.next = self.on_cmd.act.val();
            self.w.next.pend = self.on_cmd.pend.val();
            self.new_cpl_v.next = self.on_cmd.cpl_v.val();
            self.new_job_v.next = self.on_cmd.job_v.val();
            self.new_job.next = self.on_cmd.job.val();
        } else if self.kind.val() == 6 {
            // The peer's end went down: reset, telling no one.
            if bit_cast::<16, 8>(self.ev_conn.val()) < self.k_conns.val() {
                self.a.next.code = 2.into();
                self.a.next.kerr = self.k_connreset.val();
                if self.cw.val().st == 3 {
                    // Our Hello found nobody: refused.
                    self.a.next.kerr = self.k_connrefused.val();
                }
                self.a.next.notify = false;
            }
        } else if self.kind.val() == 5 {
            self.c.next = self.pump.c.val();
            self.fx.next = self.pump.fx.val();
            self.a.next = self.pump.act.val();
            self.zpump.next = self.pump.zpump.val();
            self.new_dlv_v.next = self.pump.dlv_v.val();
            self.new_cpl_v.next = self.pump.cpl_v.val();
            self.new_cpl.next = self.pump.cpl.val();
        }
        self.w.next.conn_v =
            !((self.kind.val() == 4) & (self.cmd.val().conn >= self.k_conns.val()));
        self.w.next.conn = self.conn.val();
        self.w.next.c = self.c.val();
        self.w.next.fx = self.fx.val();
        self.act.next = self.a.val();
    }
}
