//! The controller's first decision on an event (the model's `Controller::start` and the
//! event handlers it calls), combinational.
//!
//! # Ports
//! - `kind`, `ev_conn`, `hdr`, `sent`, `dlv`, `cmd` (in): the event (`codes::ev`).
//! - `cw` (in): its connection's state word; `sq_f`, `rq_f`, `held_f` (in): the heads of its
//!   queues (read at the word's head pointers).
//! - `w` (out): the event as it will be applied (connection, new state word, effects,
//!   entries to append); `act` (out): what comes next (`codes::act`).
//!
//! Codes are the numbers of `super::codes` (checked against the model by a test).

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use super::super::records::{
    Act, CmdRec, ConnWord, CplRec, DlvJob, Fx, HdrRec, HeldEnt, Pend, PoolReq, RqEnt, SentRec,
    SqEnt, TxJob, Work,
};
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
    k_conns: Param<Bits<16>>,
    k_depth: Param<Bits<5>>,
    /// Sends longer than this go zero-copy (`u32::MAX`: none does).
    k_thresh: Param<Bits<32>>,
    /// The Hello's first header word: mid 0, flags 0, our receive buffers, 24 bytes.
    k_hello_w0: Param<Bits<64>>,
    k_hello_ext: Param<Bits<64>>,
    k_zero_c: Param<ConnWord>,
    k_zero_fx: Param<Fx>,
    k_zero_pend: Param<Pend>,
    k_zero_act: Param<Act>,
    k_zero_job: Param<TxJob>,
    k_zero_cpl: Param<CplRec>,
    k_zero_dlv: Param<DlvJob>,
    k_zero_req: Param<PoolReq>,
    c: Signal<Local, ConnWord>,
    fx: Signal<Local, Fx>,
    pend: Signal<Local, Pend>,
    cpl: Signal<Local, CplRec>,
    job: Signal<Local, TxJob>,
    dj: Signal<Local, DlvJob>,
    req: Signal<Local, PoolReq>,
    a: Signal<Local, Act>,
    conn: Signal<Local, Bits<8>>,
    hbuf: Signal<Local, Bits<8>>,
    st: Signal<Local, Bits<3>>,
    dead: Signal<Local, Bit>,
    dead_err: Signal<Local, Bits<16>>,
    n: Signal<Local, Bits<32>>,
    tuser: Signal<Local, Bits<16>>,
    ext: Signal<Local, Bits<64>>,
    flags: Signal<Local, Bits<8>>,
    cconn: Signal<Local, Bits<16>>,
    aux: Signal<Local, Bits<64>>,
    /// The incoming message's bytes before its payload.
    fixed: Signal<Local, Bits<32>>,
    zc_send: Signal<Local, Bit>,
}

impl CtlStart {
    pub fn new(p: &EngineParams) -> Self {
        let ext = sanswitch_model::blocks::engine::controller::hello_ext(p.rdma_read, p.buf_size);
        CtlStart {
            k_conns: param(p.connections as u64),
            k_depth: param(p.queue_depth as u64),
            k_thresh: param(p.rdma_threshold as u64),
            k_hello_w0: param(sanswitch_model::blocks::engine::controller::hdr_word0(
                sanswitch_model::wire::mid::HELLO,
                0,
                p.recv_bufs as u16,
                24,
            )),
            k_hello_ext: param(ext),
            ..Default::default()
        }
    }
}

impl Logic for CtlStart {
    #[hdl_gen]
    fn update(&mut self) {
        self.tuser.next = self.hdr.val().tuser;
        self.ext.next = self.hdr.val().ext;
        self.flags.next = self.hdr.val().flags;
        self.cconn.next = self.cmd.val().conn;
        self.aux.next = self.cmd.val().aux;
        self.c.next = self.cw.val();
        self.fx.next = self.k_zero_fx.val();
        self.new_cpl_v.next = false;
        self.new_cpl.next = self.k_zero_cpl.val();
        self.new_dlv_v.next = false;
        self.new_dlv.next = self.k_zero_dlv.val();
        self.fx.next.work = true;
        self.pend.next = self.k_zero_pend.val();
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.job.next = self.k_zero_job.val();
        self.new_job_v.next = false;
        self.dj.next = self.dlv.val();
        self.st.next = self.cw.val().st;
        self.conn.next = self.ev_conn.val();
        self.hbuf.next = self.tuser.val().get_bits::<8>(8);
        self.n.next = 0.into();
        // The command's completion, status filled in below.
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
        self.dead_err.next = 10057.into();
        if (self.st.val() == 6) & (self.cw.val().err != 0) {
            self.dead_err.next = self.cw.val().err;
        }

        // Defaults: apply.
        self.a.next.code = 0.into();
        self.req.next.conn = self.conn.val();
        self.zpump.next = false;
        self.fixed.next = 16.into();
        if self.hdr.val().mid == 0xFE {
            self.fixed.next = 24.into();
            if self.flags.val().get_bit(1) {
                self.fixed.next = 40.into();
            }
        }
        self.zc_send.next = (self.cw.val().sent == 0)
            & !self.sq_f.val().urgent
            & (self.sq_f.val().len > self.k_thresh.val());
        if self.kind.val() == 0 {
            if self.st.val() == 0 {
                // A message for a connection never opened here: refuse it (the peer's
                // CONNECT fails rather than waiting for ever).
                self.fx.next.down = true;
            } else {
                // A credit overrun: a violation.
                self.a.next.code = 2.into();
                self.a.next.kerr = 10054.into();
                self.a.next.notify = true;
            }
        } else if self.kind.val() == 1 {
            self.conn.next = self.tuser.val().get_bits::<8>(0);
            self.req.next.conn = self.tuser.val().get_bits::<8>(0);
            self.req.next.c = self.hdr.val().mseq;
            self.req.next.bufs = self.hdr.val().bufs;
            self.req.next.buf = 1.into();
            self.a.next.kbuf = self.hbuf.val();
            if (self.st.val() == 0) | (self.st.val() == 5) | (self.st.val() == 6) {
                // Gone: dropped, its buffer stays taken.
            } else if self.hdr.val().error != 0 {
                self.a.next.code = 2.into();
                self.a.next.kerr = 10054.into();
                self.a.next.notify = true;
            } else if ((self.st.val() == 1) | (self.st.val() == 2)) & (self.hdr.val().mid == 0) {
                self.c.next.peer_read = self.ext.val().get_bit(8);
                self.c.next.peer_buf = self.ext.val().get_bits::<32>(32);
                self.a.next.code = 1.into();
                self.req.next.op = 0.into();
                self.req.next.a = self.cw.val().init_seq;
                self.req.next.b = self.cw.val().init_seq - 1;
                self.a.next.cont = 1.into();
            } else if (self.st.val() == 3) & (self.hdr.val().mid == 1) {
                if self.hdr.val().ack != self.cw.val().init_seq {
                    self.a.next.code = 2.into();
                    self.a.next.kerr = 10054.into();
                    self.a.next.notify = true;
                } else {
                    self.c.next.peer_read = self.ext.val().get_bit(8);
                    self.c.next.peer_buf = self.ext.val().get_bits::<32>(32);
                    self.a.next.code = 1.into();
                    self.req.next.op = 0.into();
                    self.req.next.a = self.hdr.val().ack + 1;
                    self.req.next.b = self.hdr.val().ack;
                    self.a.next.cont = 3.into();
                }
            } else if (self.st.val() == 4) & ((self.hdr.val().mid == 0) | (self.hdr.val().mid == 1))
            {
                // A duplicate Hello: its buffer posted again.
                self.fx.next.adm_v = true;
                self.fx.next.adm_post = true;
                self.fx.next.adm_buf = self.hbuf.val();
            } else if self.st.val() == 4 {
                self.a.next.code = 1.into();
                self.req.next.op = 4.into();
                self.req.next.buf = self.hbuf.val();
                self.req.next.a = self.hdr.val().mseq;
                self.req.next.b = self.hdr.val().ack;
                self.req.next.c = 0.into();
                self.a.next.cont = 4.into();
                self.a.next.kmid = self.hdr.val().mid;
                self.a.next.kurg = self.flags.val().get_bit(0);
                self.a.next.kpay = 0.into();
                if self.hdr.val().len > self.fixed.val() {
                    self.a.next.kpay = self.hdr.val().len - self.fixed.val();
                }
            } else {
                self.a.next.code = 2.into();
                self.a.next.kerr = 10054.into();
                self.a.next.notify = true;
            }
        } else if self.kind.val() == 2 {
            self.conn.next = self.sent.val().conn;
            self.req.next.conn = self.sent.val().conn;
            self.c.next.tx_inflight = self.cw.val().tx_inflight - 1;
            self.new_cpl_v.next = self.sent.val().cpl_v;
            self.new_cpl.next = self.sent.val().cpl;
            if self.sent.val().pooled {
                self.a.next.code = 1.into();
                self.req.next.op = 3.into();
                self.req.next.buf = self.sent.val().buf;
                self.a.next.cont = 0.into();
            }
        } else if self.kind.val() == 3 {
            self.conn.next = self.dlv.val().conn;
            self.req.next.conn = self.dlv.val().conn;
            self.c.next.dlv_busy = false;
            if (self.st.val() != 6) & (self.cw.val().rq_n != 0) {
                self.cpl.next.tag = self.rq_f.val().tag;
                self.cpl.next.bytes = self.dlv.val().len;
                self.cpl.next.conn = bit_cast::<16, 8>(self.dlv.val().conn);
                self.cpl.next.opcode = 6.into();
                self.cpl.next.urgent = self.dlv.val().urgent;
                if self.dlv.val().land {
                    self.c.next.rx_inline_due = false;
                }
                if self.dlv.val().land & (self.cw.val().rx_x != 0) {
                    // The landing receive completes with its transfer (or now, if that is
                    // done).
                    if self.cw.val().rx_x == 3 {
                        self.c.next.rx_x = 0.into();
                        self.cpl.next.bytes = self.cw.val().rx_total;
                        self.cpl.next.urgent = false;
                        self.c.next.rq_head = self.cw.val().rq_head + 1;
                        self.c.next.rq_n = self.cw.val().rq_n - 1;
                        self.new_cpl_v.next = true;
                    }
                } else {
                    self.c.next.rq_head = self.cw.val().rq_head + 1;
                    self.c.next.rq_n = self.cw.val().rq_n - 1;
                    self.new_cpl_v.next = true;
                }
                self.new_cpl.next = self.cpl.val();
                self.c.next.held_off = self.cw.val().held_off + self.dlv.val().len;
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
        } else if self.kind.val() == 4 {
            self.conn.next = self.cconn.val().get_bits::<8>(0);
            self.req.next.conn = self.cconn.val().get_bits::<8>(0);
            self.new_cpl_v.next = true;
            if self.cmd.val().conn >= self.k_conns.val() {
                self.cpl.next.status = 10038.into();
            } else if self.cmd.val().opcode == 1 {
                // OPEN
                if !((self.st.val() == 0)
                    | (self.st.val() == 1)
                    | (self.st.val() == 5)
                    | (self.st.val() == 6))
                    | self.cw.val().dlv_busy
                    | (self.cw.val().tx_inflight != 0)
                    | self.cw.val().fl_v
                    | self.cw.val().op_live
                {
                    self.cpl.next.status = 10022.into();
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
                    self.new_cpl_v.next = false;
                } else if !((self.st.val() == 4) & !self.cw.val().wait_v) {
                    self.cpl.next.status = 10022.into();
                }
            } else if self.cmd.val().opcode == 3 {
                // CONNECT
                if self.st.val() == 1 {
                    self.job.next.conn = self.conn.val();
                    self.job.next.w0 = self.k_hello_w0.val();
                    self.job.next.w1 = bit_cast::<64, 32>(self.cw.val().init_seq);
                    self.job.next.w2 = self.k_hello_ext.val();
                    self.job.next.nwords = 3.into();
                    self.new_job_v.next = true;
                    self.c.next.tx_inflight = self.cw.val().tx_inflight + 1;
                    self.c.next.st = 3.into();
                    self.c.next.wait_v = true;
                    self.c.next.wait_tag = self.cmd.val().tag;
                    self.c.next.wait_op = self.cmd.val().opcode;
                    self.new_cpl_v.next = false;
                } else if self.st.val() == 4 {
                    self.cpl.next.status = 10056.into();
                } else {
                    self.cpl.next.status = 10022.into();
                }
            } else if (self.cmd.val().opcode == 4) | (self.cmd.val().opcode == 5) {
                // SEND, SEND_URGENT
                if self.dead.val() {
                    self.cpl.next.status = self.dead_err.val();
                } else if self.cw.val().shut | self.cw.val().closing {
                    self.cpl.next.status = 10058.into();
                } else if self.cmd.val().len == 0 {
                } else if bit_cast::<5, 5>(self.cw.val().sq_n) >= self.k_depth.val() {
                    self.cpl.next.status = 10055.into();
                } else {
                    self.new_cpl_v.next = false;
                    self.pend.next.sq_v = true;
                    self.c.next.sq_n = self.cw.val().sq_n + 1;
                }
            } else if self.cmd.val().opcode == 6 {
                // POST_RECV: after a graceful close, still readable.
                if self.dead.val() & !((self.st.val() == 5) & !self.cw.val().closing) {
                    self.cpl.next.status = self.dead_err.val();
                } else if self.cw.val().closing {
                    self.cpl.next.status = 10057.into();
                } else if self.cmd.val().len == 0 {
                } else if self.cw.val().rq_n >= self.k_depth.val() {
                    self.cpl.next.status = 10055.into();
                } else {
                    self.new_cpl_v.next = false;
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
                self.a.next.kerr = 995.into();
                self.a.next.notify = true;
            } else if self.cmd.val().opcode == 9 {
                // CLOSE
                if (self.st.val() == 0)
                    | (self.st.val() == 5)
                    | (self.st.val() == 6)
                    | self.cw.val().closing
                {
                } else if (self.cw.val().held_n != 0)
                    | (self.st.val() != 4)
                    | (self.cw.val().rx_x != 0)
                {
                    self.a.next.code = 2.into();
                    self.a.next.kerr = 995.into();
                    self.a.next.notify = true;
                } else {
                    self.c.next.closing = true;
                    self.c.next.shut = true;
                    self.c.next.fl_v = true;
                    self.c.next.fl_all = false;
                    self.c.next.fl_err = 995.into();
                }
            } else {
                self.cpl.next.status = 10022.into();
            }
            self.new_cpl.next = self.cpl.val();
        } else if self.kind.val() == 6 {
            // The peer's end went down: reset, telling no one.
            if bit_cast::<16, 8>(self.ev_conn.val()) < self.k_conns.val() {
                self.a.next.code = 2.into();
                self.a.next.kerr = 10054.into();
                if self.st.val() == 3 {
                    // Our Hello found nobody: refused.
                    self.a.next.kerr = 10061.into();
                }
                self.a.next.notify = false;
            }
        } else if self.kind.val() == 5 {
            // A pump: a flush once quiet, else a delivery, else the EOF, else the owed
            // zero-copy messages, the sends, Disconnect, update, close.
            if self.cw.val().fl_v {
                if !self.cw.val().dlv_busy
                    & (self.cw.val().tx_inflight == 0)
                    & !self.cw.val().op_live
                {
                    self.c.next.fl_v = false;
                    self.fx.next.flush_v = true;
                    self.fx.next.flush_all = self.cw.val().fl_all;
                    self.fx.next.flush_err = self.cw.val().fl_err;
                }
                self.fx.next.work = false;
            } else if !self.cw.val().dlv_busy
                & (self.cw.val().rq_n != 0)
                & (self.st.val() != 6)
                & (self.cw.val().held_n != 0)
            {
                self.n.next = self.held_f.val().len - self.cw.val().held_off;
                if self.rq_f.val().len < self.n.val() {
                    self.n.next = self.rq_f.val().len;
                }
                self.dj.next.conn = self.conn.val();
                self.dj.next.buf = self.held_f.val().buf;
                self.dj.next.off = self.cw.val().held_off;
                self.dj.next.len = self.n.val();
                self.dj.next.addr = self.rq_f.val().addr;
                self.dj.next.urgent = self.held_f.val().urgent;
                self.dj.next.last_of_buf =
                    self.cw.val().held_off + self.n.val() == self.held_f.val().len;
                self.dj.next.land = self.cw.val().held_land;
                self.new_dlv_v.next = true;
                self.new_dlv.next = self.dj.val();
                self.c.next.dlv_busy = true;
            } else if !self.cw.val().dlv_busy
                & (self.cw.val().rq_n != 0)
                & (self.st.val() != 6)
                & self.cw.val().fin_rcvd
            {
                self.c.next.rq_head = self.cw.val().rq_head + 1;
                self.c.next.rq_n = self.cw.val().rq_n - 1;
                self.cpl.next.tag = self.rq_f.val().tag;
                self.cpl.next.conn = bit_cast::<16, 8>(self.conn.val());
                self.cpl.next.opcode = 6.into();
                self.cpl.next.eof = true;
                self.new_cpl_v.next = true;
                self.new_cpl.next = self.cpl.val();
            } else if self.st.val() != 4 {
                self.fx.next.work = false;
            } else if (self.cw.val().rx_due != 0)
                | self.cw.val().tx_due
                | ((self.cw.val().sq_n != 0) & ((self.cw.val().tx_x != 0) | self.zc_send.val()))
            {
                self.zpump.next = true;
            } else if self.cw.val().sq_n != 0 {
                self.a.next.code = 1.into();
                self.req.next.op = 2.into();
                self.req.next.class = 0.into();
                self.a.next.cont = 8.into();
            } else {
                self.a.next.code = 4.into();
            }
        }
        self.a.next.req = self.req.val();
        self.w.next.conn_v =
            !((self.kind.val() == 4) & (self.cmd.val().conn >= self.k_conns.val()));
        self.w.next.conn = self.conn.val();
        self.w.next.c = self.c.val();
        self.w.next.fx = self.fx.val();
        self.w.next.pend = self.pend.val();
        self.act.next = self.a.val();
        self.new_job.next = self.job.val();
    }
}
