//! The controller's decision on a pool manager's answer (the model's `Controller::cont` and
//! `on_received`), combinational.
//!
//! # Ports
//! - `step` (in): the continuation (`act.cont` and its arguments) of the request answered.
//! - `w_in` (in): the event as handled so far; `sq_f` (in): the head of its send queue.
//! - `resp` (in): the answer; `hdr` (in): the event's header; `rq_f` (in): the head of its
//!   receive queue.
//! - `w` (out), `act` (out): as [`super::start::CtlStart`]'s.
//!
//! The zero-copy answers go to [`CtlZMsg`] (a zero-copy message the pool took) and
//! [`CtlZPool`] (`cont` 12 and 13), whose decisions stand for those answers.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use super::super::records::{
    Act, ConnWord, CplRec, Fx, HdrRec, HeldEnt, Pend, PoolReq, PoolResp, RqEnt, SeqCmd, SqEnt,
    TxJob, Work,
};
use super::{CtlZMsg, CtlZPool};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlCont {
    pub step: Signal<In, Act>,
    pub w_in: Signal<In, Work>,
    pub sq_f: Signal<In, SqEnt>,
    pub resp: Signal<In, PoolResp>,
    pub hdr: Signal<In, HdrRec>,
    pub rq_f: Signal<In, RqEnt>,
    pub w: Signal<Out, Work>,
    pub act: Signal<Out, Act>,
    /// A message job built (by this decision or [`CtlZPool`]), for the controller's job
    /// register.
    pub new_job_v: Signal<Out, Bit>,
    pub new_job: Signal<Out, TxJob>,
    /// A completion, for the controller's completion register.
    pub new_cpl_v: Signal<Out, Bit>,
    pub new_cpl: Signal<Out, CplRec>,
    zmsg: CtlZMsg,
    zpool: CtlZPool,
    /// The engine has the zero-copy paths (else their messages are violations).
    k_zc: Param<Bit>,
    k_zero_seq: Param<SeqCmd>,
    sc: Signal<Local, SeqCmd>,
    zmid: Signal<Local, Bit>,
    k_hello_ext: Param<Bits<64>>,
    k_zero_act: Param<Act>,
    k_zero_job: Param<TxJob>,
    k_zero_cpl: Param<CplRec>,
    k_zero_req: Param<PoolReq>,
    wk: Signal<Local, Work>,
    ci: Signal<Local, ConnWord>,
    c: Signal<Local, ConnWord>,
    fx: Signal<Local, Fx>,
    pend: Signal<Local, Pend>,
    jcpl: Signal<Local, CplRec>,
    ck: Signal<Local, Bits<4>>,
    a: Signal<Local, Act>,
    req: Signal<Local, PoolReq>,
    job: Signal<Local, TxJob>,
    cpl: Signal<Local, CplRec>,
    held: Signal<Local, HeldEnt>,
    ok: Signal<Local, Bit>,
    /// Header fields of the message built from this answer.
    mid: Signal<Local, Bits<8>>,
    mflags: Signal<Local, Bits<8>>,
    mlen: Signal<Local, Bits<32>>,
    room: Signal<Local, Bits<32>>,
    left: Signal<Local, Bits<32>>,
    n: Signal<Local, Bits<32>>,
    build: Signal<Local, Bit>,
}

impl CtlCont {
    pub fn new(p: &EngineParams) -> Self {
        let ext = sanswitch_model::blocks::engine::controller::hello_ext(p.rdma_read, p.buf_size);
        CtlCont {
            k_hello_ext: param(ext),
            zmsg: CtlZMsg::new(p),
            k_zc: Param::new(p.zero_copy()),
            ..Default::default()
        }
    }
}

impl Logic for CtlCont {
    #[hdl_gen]
    fn update(&mut self) {
        self.ci.next = self.w_in.val().c;
        self.c.next = self.w_in.val().c;
        self.zmsg.w_in.next = self.w_in.val();
        self.zmsg.kmid.next = self.step.val().kmid;
        self.zmsg.kbuf.next = self.step.val().kbuf;
        self.zmsg.kpay.next = self.step.val().kpay;
        self.zmsg.hdr.next = self.hdr.val();
        self.zmsg.sq_f.next = self.sq_f.val();
        self.zmsg.rq_f.next = self.rq_f.val();
        self.zpool.ck.next = self.step.val().cont;
        self.zpool.w_in.next = self.w_in.val();
        self.zpool.resp.next = self.resp.val();
        self.zpool.sq_f.next = self.sq_f.val();
        self.zpool.rq_f.next = self.rq_f.val();
        self.sc.next = self.k_zero_seq.val();
        self.sc.next.conn = self.w_in.val().conn;
        self.zmid.next = (self.step.val().kmid == 0x04)
            | (self.step.val().kmid == 0x05)
            | (self.step.val().kmid == 0x06)
            | (self.step.val().kmid == 0xFD)
            | (self.step.val().kmid == 0xFE);
        self.fx.next = self.w_in.val().fx;
        self.new_cpl_v.next = false;
        self.new_cpl.next = self.k_zero_cpl.val();
        self.pend.next = self.w_in.val().pend;
        self.jcpl.next.tag = self.sq_f.val().tag;
        self.jcpl.next.bytes = self.sq_f.val().len;
        self.jcpl.next.conn = bit_cast::<16, 8>(self.w_in.val().conn);
        self.jcpl.next.status = 0.into();
        self.jcpl.next.opcode = 4.into();
        if self.sq_f.val().urgent {
            self.jcpl.next.opcode = 5.into();
        }
        self.jcpl.next.urgent = false;
        self.jcpl.next.eof = false;
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.w_in.val().conn;
        self.ok.next = self.resp.val().status == 0;
        self.build.next = false;
        self.mid.next = 0.into();
        self.mflags.next = 0.into();
        self.mlen.next = 16.into();
        self.held.next.buf = self.step.val().kbuf;
        self.held.next.len = self.step.val().kpay;
        self.held.next.urgent = self.step.val().kurg;
        self.cpl.next.tag = self.ci.val().wait_tag;
        self.cpl.next.bytes = 0.into();
        self.cpl.next.conn = bit_cast::<16, 8>(self.w_in.val().conn);
        self.cpl.next.status = 0.into();
        self.cpl.next.opcode = self.ci.val().wait_op;
        self.cpl.next.urgent = false;
        self.cpl.next.eof = false;
        self.room.next = 0.into();
        if self.ci.val().peer_buf > 16 {
            self.room.next = self.ci.val().peer_buf - 16;
        }
        self.left.next = self.sq_f.val().len - self.ci.val().sent;
        self.n.next = self.left.val();
        if self.room.val() < self.left.val() {
            self.n.next = self.room.val();
        }

        self.ck.next = self.step.val().cont;
        if self.ck.val() == 1 {
            // The pool opened on a Hello: answer with HelloAck.
            if !self.ok.val() {
                self.a.next.code = 2.into();
                self.a.next.kerr = 10054.into();
                self.a.next.notify = true;
            } else {
                self.a.next.code = 1.into();
                self.req.next.op = 2.into();
                self.req.next.class = 1.into();
                self.a.next.cont = 2.into();
                self.a.next.kbuf = self.step.val().kbuf;
            }
        } else if (self.ck.val() == 2) | (self.ck.val() == 3) {
            if !self.ok.val() {
                self.a.next.code = 2.into();
                self.a.next.kerr = 10054.into();
                self.a.next.notify = true;
            } else {
                if self.ck.val() == 2 {
                    self.build.next = true;
                    self.mid.next = 1.into();
                    self.mlen.next = 24.into();
                }
                self.c.next.st = 4.into();
                self.fx.next.adm_v = true;
                self.fx.next.adm_post = true;
                self.fx.next.adm_buf = self.step.val().kbuf;
                if self.ci.val().wait_v {
                    self.c.next.wait_v = false;
                    self.new_cpl_v.next = true;
                    self.new_cpl.next = self.cpl.val();
                }
            }
        } else if self.ck.val() == 4 {
            // A message the pool took.
            if !self.ok.val() {
                self.a.next.code = 2.into();
                self.a.next.kerr = 10054.into();
                self.a.next.notify = true;
            } else if self.step.val().kmid == 7 {
                self.a.next.code = 3.into();
                self.a.next.kbuf = self.step.val().kbuf;
            } else if self.step.val().kmid == 3 {
                self.a.next.code = 2.into();
                self.a.next.kerr = 10054.into();
                self.a.next.notify = false;
            } else if self.step.val().kmid == 2 {
                if self.ci.val().fin_rcvd | (self.ci.val().rx_x != 0) {
                    self.a.next.code = 2.into();
                    self.a.next.kerr = 10054.into();
                    self.a.next.notify = true;
                } else {
                    self.c.next.fin_rcvd = true;
                    self.a.next.code = 3.into();
                    self.a.next.kbuf = self.step.val().kbuf;
                }
            } else if self.step.val().kmid == 0xFF {
                // Stream data while a transfer lands would overtake it.
                if self.ci.val().fin_rcvd | (self.ci.val().rx_x != 0) {
                    self.a.next.code = 2.into();
                    self.a.next.kerr = 10054.into();
                    self.a.next.notify = true;
                } else if self.ci.val().closing {
                    self.a.next.code = 2.into();
                    self.a.next.kerr = 995.into();
                    self.a.next.notify = true;
                } else {
                    self.pend.next.held_v = true;
                    self.pend.next.held = self.held.val();
                    self.c.next.held_n = self.ci.val().held_n + 1;
                }
            } else {
                self.a.next.code = 2.into();
                self.a.next.kerr = 10054.into();
                self.a.next.notify = true;
            }
        } else if self.ck.val() == 5 {
            self.fx.next.adm_v = true;
            self.fx.next.adm_post = true;
            self.fx.next.adm_open = false;
            self.fx.next.adm_buf = self.step.val().kbuf;
        } else if self.ck.val() == 6 {
            // The Abort message, when a buffer and credit allow; then close the pool.
            if self.ok.val() {
                self.build.next = true;
                self.mid.next = 3.into();
            }
            self.a.next.code = 1.into();
            self.req.next.op = 1.into();
            self.a.next.cont = 7.into();
            self.a.next.kerr = self.step.val().kerr;
        } else if self.ck.val() == 7 {
            self.c.next.st = 6.into();
            self.c.next.err = self.step.val().kerr;
            if self.step.val().kerr == 995 {
                self.c.next.err = 10057.into();
            }
            self.c.next.held_n = 0.into();
            self.c.next.held_off = 0.into();
            self.c.next.held_land = false;
            self.fx.next.adm_v = true;
            self.fx.next.adm_post = false;
            self.fx.next.adm_open = false;
            self.c.next.fl_v = true;
            self.c.next.fl_all = true;
            self.c.next.fl_err = self.step.val().kerr;
            self.fx.next.down = true;
            if self.k_zc.val() {
                // Every transfer of the connection ends (its completion request follows),
                // every registration of it is released: the peer can touch nothing more.
                self.c.next.tx_x = 0.into();
                self.c.next.rx_x = 0.into();
                self.c.next.tx_due = false;
                self.c.next.rx_due = 0.into();
                self.a.next.code = 6.into();
                self.sc.next.op = 4.into();
                self.a.next.zk = 8.into();
            }
        } else if self.ck.val() == 8 {
            // A buffer and credits for the next Data message of the head send.
            if !self.ok.val() {
                self.a.next.code = 4.into();
            } else {
                self.build.next = true;
                self.mid.next = 0xFF.into();
                if self.sq_f.val().urgent {
                    self.mflags.next = 1.into();
                }
                self.mlen.next = self.n.val() + 16;
                self.c.next.sent = self.ci.val().sent + self.n.val();
                if self.ci.val().sent + self.n.val() == self.sq_f.val().len {
                    self.c.next.sq_head = self.ci.val().sq_head + 1;
                    self.c.next.sq_n = self.ci.val().sq_n - 1;
                    self.c.next.sent = 0.into();
                }
            }
        } else if self.ck.val() == 9 {
            if !self.ok.val() {
                self.a.next.code = 1.into();
                self.req.next.op = 6.into();
                self.a.next.cont = 10.into();
            } else {
                self.build.next = true;
                self.mid.next = 2.into();
                self.c.next.fin_sent = true;
            }
        } else if self.ck.val() == 10 {
            if self.ok.val() & (self.resp.val().update_due | self.ci.val().adv_due) {
                self.a.next.code = 1.into();
                self.req.next.op = 2.into();
                self.req.next.class = 2.into();
                self.a.next.cont = 11.into();
            } else {
                self.a.next.code = 5.into();
            }
        } else if self.ck.val() == 11 {
            if !self.ok.val() {
                self.a.next.code = 5.into();
            } else {
                self.build.next = true;
                self.mid.next = 7.into();
            }
        }

        // The message built from the answer: header from the pool, payload for Data.
        self.job.next = self.k_zero_job.val();
        self.new_job_v.next = false;
        self.job.next.conn = self.w_in.val().conn;
        self.job.next.buf = self.resp.val().buf;
        self.job.next.pooled = true;
        self.job.next.w0 = bit_cast::<64, 8>(self.mid.val())
            | (bit_cast::<64, 8>(self.mflags.val()) << 8)
            | (bit_cast::<64, 16>(self.resp.val().bufs) << 16)
            | (bit_cast::<64, 32>(self.mlen.val()) << 32);
        self.job.next.w1 = bit_cast::<64, 32>(self.resp.val().mseq)
            | (bit_cast::<64, 32>(self.resp.val().ack) << 32);
        self.job.next.w2 = self.k_hello_ext.val();
        self.job.next.nwords = 2.into();
        if self.ck.val() == 2 {
            self.job.next.nwords = 3.into();
        }
        if self.ck.val() == 8 {
            self.job.next.pay_addr = self.sq_f.val().addr + bit_cast::<64, 32>(self.ci.val().sent);
            self.job.next.pay_len = self.n.val();
            if self.ci.val().sent + self.n.val() == self.sq_f.val().len {
                self.job.next.cpl_v = true;
                self.job.next.cpl = self.jcpl.val();
            }
        }
        if self.build.val() {
            self.new_job_v.next = true;
            self.c.next.tx_inflight = self.ci.val().tx_inflight + 1;
        }
        self.a.next.req = self.req.val();
        self.a.next.seq = self.sc.val();
        self.wk.next.conn_v = self.w_in.val().conn_v;
        self.wk.next.conn = self.w_in.val().conn;
        self.wk.next.c = self.c.val();
        self.wk.next.fx = self.fx.val();
        self.wk.next.pend = self.pend.val();
        self.w.next = self.wk.val();
        self.act.next = self.a.val();
        self.new_job.next = self.job.val();
        if (self.ck.val() == 4) & self.ok.val() & self.zmid.val() & self.k_zc.val() {
            self.w.next = self.zmsg.w.val();
            self.act.next = self.zmsg.act.val();
            self.new_job_v.next = false;
            self.new_cpl_v.next = false;
        }
        if (self.ck.val() == 12) | (self.ck.val() == 13) {
            self.w.next = self.zpool.w.val();
            self.act.next = self.zpool.act.val();
            self.new_job_v.next = self.zpool.new_job_v.val();
            self.new_cpl_v.next = false;
            self.new_job.next = self.zpool.new_job.val();
        }
    }
}
