//! The controller's decision on a host command (the model's `Controller::on_cmd`),
//! combinational.
//!
//! # Ports
//! - `cmd` (in): the command (`CmdRec`; opcodes as the model's `codes::op`).
//! - `cw` (in): its connection's state word (meaningless when `cmd.conn` is out of range:
//!   the command then fails with `WSAENOTSOCK` and nothing is applied).
//! - `c`, `fx`, `pend` (out): the new word, effects and queue appends.
//! - `act` (out): what comes next (`codes::act`), with its pool request.
//! - `cpl_v`, `cpl` (out): the command completes now, and how; else it waits (queued, or
//!   a LISTEN/CONNECT waiting for the peer).
//! - `job_v`, `job` (out): the Hello a CONNECT sends.

use rust_hdl::prelude::*;

use crate::widgets::wsa;
use sanswitch_model::params::EngineParams;
use sanswitch_model::status::WsaError;

use super::super::records::{Act, CmdRec, ConnWord, CplRec, Fx, Pend, PoolReq, TxJob};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlCmd {
    pub cmd: Signal<In, CmdRec>,
    pub cw: Signal<In, ConnWord>,
    /// The command's connection, as a state-RAM address.
    pub conn: Signal<Out, Bits<8>>,
    pub c: Signal<Out, ConnWord>,
    pub fx: Signal<Out, Fx>,
    pub pend: Signal<Out, Pend>,
    pub act: Signal<Out, Act>,
    pub cpl_v: Signal<Out, Bit>,
    pub cpl: Signal<Out, CplRec>,
    pub job_v: Signal<Out, Bit>,
    pub job: Signal<Out, TxJob>,
    k_conns: Param<Bits<16>>,
    k_depth: Param<Bits<5>>,
    /// The Hello's first header word: mid 0, flags 0, our receive buffers, 24 bytes.
    k_hello_w0: Param<Bits<64>>,
    k_hello_ext: Param<Bits<64>>,
    k_zero_c: Param<ConnWord>,
    k_zero_fx: Param<Fx>,
    k_zero_pend: Param<Pend>,
    k_zero_act: Param<Act>,
    k_zero_job: Param<TxJob>,
    k_zero_req: Param<PoolReq>,
    req: Signal<Local, PoolReq>,
    a: Signal<Local, Act>,
    cconn: Signal<Local, Bits<16>>,
    aux: Signal<Local, Bits<64>>,
    st: Signal<Local, Bits<3>>,
    dead: Signal<Local, Bit>,
    dead_err: Signal<Local, Bits<16>>,
    /// `WSAENOTCONN` (`WsaError::NotConn`).
    k_notconn: Param<Bits<16>>,
    /// `WSAENOTSOCK` (`WsaError::NotSock`).
    k_notsock: Param<Bits<16>>,
    /// `WSAEINVAL` (`WsaError::Inval`).
    k_inval: Param<Bits<16>>,
    /// `WSAEISCONN` (`WsaError::IsConn`).
    k_isconn: Param<Bits<16>>,
    /// `WSAESHUTDOWN` (`WsaError::Shutdown`).
    k_shutdown: Param<Bits<16>>,
    /// `WSAENOBUFS` (`WsaError::NoBufs`).
    k_nobufs: Param<Bits<16>>,
    /// `WSA_OPERATION_ABORTED` (`WsaError::OperationAborted`).
    k_aborted: Param<Bits<16>>,
}

impl CtlCmd {
    pub fn new(p: &EngineParams) -> Self {
        use sanswitch_model::blocks::engine::controller::{hdr_word0, hello_ext};
        use sanswitch_model::wire::{Kind, Layout, mid};
        CtlCmd {
            k_conns: param(p.connections as u64),
            k_depth: param(p.queue_depth as u64),
            k_hello_w0: param(hdr_word0(
                mid::HELLO,
                0,
                p.recv_bufs as u16,
                Layout::of(Kind::Hello).fixed_bytes(false) as u32,
            )),
            k_hello_ext: param(hello_ext(p.rdma_read, p.buf_size)),
            k_notconn: wsa(WsaError::NotConn),
            k_notsock: wsa(WsaError::NotSock),
            k_inval: wsa(WsaError::Inval),
            k_isconn: wsa(WsaError::IsConn),
            k_shutdown: wsa(WsaError::Shutdown),
            k_nobufs: wsa(WsaError::NoBufs),
            k_aborted: wsa(WsaError::OperationAborted),
            ..Default::default()
        }
    }
}

impl Logic for CtlCmd {
    #[hdl_gen]
    fn update(&mut self) {
        self.cconn.next = self.cmd.val().conn;
        self.aux.next = self.cmd.val().aux;
        self.conn.next = self.cconn.val().get_bits::<8>(0);
        self.st.next = self.cw.val().st;
        self.c.next = self.cw.val();
        self.fx.next = self.k_zero_fx.val();
        self.fx.next.work = true;
        self.pend.next = self.k_zero_pend.val();
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.conn.val();
        self.job.next = self.k_zero_job.val();
        self.job_v.next = false;
        self.cpl_v.next = true;
        // The completion, status filled in below.
        self.cpl.next.tag = self.cmd.val().tag;
        self.cpl.next.bytes = 0.into();
        self.cpl.next.conn = self.cmd.val().conn;
        self.cpl.next.status = 0.into();
        self.cpl.next.opcode = self.cmd.val().opcode;
        self.cpl.next.urgent = false;
        self.cpl.next.eof = false;
        // dead(): Free, Open, Closed -> NOTCONN; Aborted -> its error.
        self.dead.next = (self.st.val() == 0)
            | (self.st.val() == 1)
            | (self.st.val() == 5)
            | (self.st.val() == 6);
        self.dead_err.next = self.k_notconn.val();
        if (self.st.val() == 6) & (self.cw.val().err != 0) {
            self.dead_err.next = self.cw.val().err;
        }

        if self.cmd.val().conn >= self.k_conns.val() {
            self.cpl.next.status = self.k_notsock.val();
        } else if self.cmd.val().opcode == 1 {
            // OPEN
            // Only a connection with nothing of its own (the dead states) is opened afresh.
            if !self.dead.val()
                | self.cw.val().dlv_busy
                | (self.cw.val().tx_inflight != 0)
                | self.cw.val().fl_v
                | self.cw.val().op_live
            {
                self.cpl.next.status = self.k_inval.val();
            } else {
                self.c.next = self.k_zero_c.val();
                self.c.next.st = 1.into();
                self.c.next.init_seq = self.aux.val().get_bits::<32>(0);
                self.fx.next.adm_v = true;
                self.fx.next.adm_open = true;
                self.a.next.code = 1.into();
                self.req.next.op = 1.into();
            }
        } else if self.cmd.val().opcode == 2 {
            // LISTEN
            if self.st.val() == 1 {
                self.c.next.st = 2.into();
                self.c.next.wait_v = true;
                self.c.next.wait_tag = self.cmd.val().tag;
                self.c.next.wait_op = self.cmd.val().opcode;
                self.cpl_v.next = false;
            } else if !((self.st.val() == 4) & !self.cw.val().wait_v) {
                self.cpl.next.status = self.k_inval.val();
            }
        } else if self.cmd.val().opcode == 3 {
            // CONNECT
            if self.st.val() == 1 {
                self.job.next.conn = self.conn.val();
                self.job.next.w0 = self.k_hello_w0.val();
                self.job.next.w1 = bit_cast::<64, 32>(self.cw.val().init_seq);
                self.job.next.w2 = self.k_hello_ext.val();
                self.job.next.nwords = 3.into();
                self.job_v.next = true;
                self.c.next.tx_inflight = self.cw.val().tx_inflight + 1;
                self.c.next.st = 3.into();
                self.c.next.wait_v = true;
                self.c.next.wait_tag = self.cmd.val().tag;
                self.c.next.wait_op = self.cmd.val().opcode;
                self.cpl_v.next = false;
            } else if self.st.val() == 4 {
                self.cpl.next.status = self.k_isconn.val();
            } else {
                self.cpl.next.status = self.k_inval.val();
            }
        } else if (self.cmd.val().opcode == 4) | (self.cmd.val().opcode == 5) {
            // SEND, SEND_URGENT
            if self.dead.val() {
                self.cpl.next.status = self.dead_err.val();
            } else if self.cw.val().shut | self.cw.val().closing {
                self.cpl.next.status = self.k_shutdown.val();
            } else if self.cmd.val().len == 0 {
            } else if bit_cast::<5, 5>(self.cw.val().sq_n) >= self.k_depth.val() {
                self.cpl.next.status = self.k_nobufs.val();
            } else {
                self.cpl_v.next = false;
                self.pend.next.sq_v = true;
                self.c.next.sq_n = self.cw.val().sq_n + 1;
            }
        } else if self.cmd.val().opcode == 6 {
            // POST_RECV: after a graceful close, still readable.
            if self.dead.val() & !((self.st.val() == 5) & !self.cw.val().closing) {
                self.cpl.next.status = self.dead_err.val();
            } else if self.cw.val().closing {
                self.cpl.next.status = self.k_notconn.val();
            } else if self.cmd.val().len == 0 {
            } else if self.cw.val().rq_n >= self.k_depth.val() {
                self.cpl.next.status = self.k_nobufs.val();
            } else {
                self.cpl_v.next = false;
                self.pend.next.rq_v = true;
                self.c.next.rq_n = self.cw.val().rq_n + 1;
            }
        } else if self.cmd.val().opcode == 7 {
            // SHUTDOWN
            if self.dead.val() {
                self.cpl.next.status = self.dead_err.val();
            } else {
                self.c.next.shut = true;
            }
        } else if self.cmd.val().opcode == 8 {
            // ABORT
            self.a.next.code = 2.into();
            self.a.next.kerr = self.k_aborted.val();
            self.a.next.notify = true;
        } else if self.cmd.val().opcode == 9 {
            // CLOSE
            if (self.st.val() == 0)
                | (self.st.val() == 5)
                | (self.st.val() == 6)
                | self.cw.val().closing
            {
            } else if (self.cw.val().held_n != 0) | (self.st.val() != 4) | (self.cw.val().rx_x != 0)
            {
                self.a.next.code = 2.into();
                self.a.next.kerr = self.k_aborted.val();
                self.a.next.notify = true;
            } else {
                self.c.next.closing = true;
                self.c.next.shut = true;
                self.c.next.fl_v = true;
                self.c.next.fl_all = false;
                self.c.next.fl_err = self.k_aborted.val();
            }
        } else {
            self.cpl.next.status = self.k_inval.val();
        }
        self.a.next.req = self.req.val();
        self.act.next = self.a.val();
    }
}
