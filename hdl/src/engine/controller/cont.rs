//! The controller's decision on a pool manager's answer (the model's `Controller::cont` and
//! `on_received`), combinational: the continuation named by `step.cont` picks its block,
//! and the message it builds gets its header here.
//!
//! - [`CtlSession`] (`session.rs`): the handshake's steps, an abort's Abort and teardown
//!   (`cont` 1, 2, 3, 6, 7);
//! - [`CtlRecv`] (`recv.rs`): a copy-path message the pool took (`cont` 4);
//! - [`CtlTxCont`] (`txcont.rs`): the pump's Data, Disconnect and credit update (8 to 11);
//! - [`CtlZMsg`] (`zmsg.rs`): a zero-copy message the pool took (`cont` 4 with a
//!   zero-copy message id), and [`CtlZPool`] (`zpool.rs`, `cont` 12 and 13): their
//!   decisions stand for those answers whole.
//!
//! # Ports
//! - `step` (in): the continuation (`act.cont` and its arguments) of the request answered.
//! - `w_in` (in): the event as handled so far; `sq_f` (in): the head of its send queue;
//!   `rest` (in): what is known of that send's rest (registered, see [`SendRest`]).
//! - `resp` (in): the answer; `hdr` (in): the event's header; `rq_f` (in): the head of its
//!   receive queue.
//! - `w` (out), `act` (out): as [`super::start::CtlStart`]'s.
//! - `new_job*`, `new_cpl*` (out): the message job and completion made.
//! - `fwd_v` (out): the decision is a zero-copy message's sequencer command, whose operands
//!   are all the event's own (none from the answer), so the controller offers it in the
//!   answer's cycle; `fwd_w`, `fwd_act` (out): that decision ([`CtlZMsg`]'s), unmultiplexed.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;
use sanswitch_model::wire::mid;

use super::super::records::{
    Act, ConnWord, CplRec, Fx, HdrRec, Pend, PoolReq, PoolResp, RqEnt, SendRest, SqEnt, TxJob, Work,
};
use super::{CtlRecv, CtlSession, CtlTxCont, CtlZMsg, CtlZPool, HdrWords};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlCont {
    pub step: Signal<In, Act>,
    pub w_in: Signal<In, Work>,
    pub sq_f: Signal<In, SqEnt>,
    pub rest: Signal<In, SendRest>,
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
    pub fwd_v: Signal<Out, Bit>,
    pub fwd_w: Signal<Out, Work>,
    pub fwd_act: Signal<Out, Act>,
    session: CtlSession,
    recv: CtlRecv,
    txc: CtlTxCont,
    zmsg: CtlZMsg,
    zpool: CtlZPool,
    hw: HdrWords,
    /// The engine has the zero-copy paths (else their messages are violations).
    k_zc: Param<Bit>,
    k_hello_ext: Param<Bits<64>>,
    k_mid_sba: Param<Bits<8>>,
    k_mid_wc: Param<Bits<8>>,
    k_mid_rc: Param<Bits<8>>,
    k_mid_sink: Param<Bits<8>>,
    k_mid_ls: Param<Bits<8>>,
    k_zero_act: Param<Act>,
    k_zero_job: Param<TxJob>,
    k_zero_req: Param<PoolReq>,
    /// The answered message is a zero-copy one ([`CtlZMsg`] decides).
    zmid: Signal<Local, Bit>,
    wk: Signal<Local, Work>,
    ci: Signal<Local, ConnWord>,
    c: Signal<Local, ConnWord>,
    fx: Signal<Local, Fx>,
    pend: Signal<Local, Pend>,
    a: Signal<Local, Act>,
    req: Signal<Local, PoolReq>,
    job: Signal<Local, TxJob>,
    ck: Signal<Local, Bits<4>>,
    ok: Signal<Local, Bit>,
    build: Signal<Local, Bit>,
}

impl CtlCont {
    pub fn new(p: &EngineParams) -> Self {
        let ext = sanswitch_model::blocks::engine::controller::hello_ext(p.rdma_read, p.buf_size);
        CtlCont {
            session: CtlSession::new(p.zero_copy()),
            recv: CtlRecv::new(),
            txc: CtlTxCont::new(),
            zmsg: CtlZMsg::new(p),
            zpool: CtlZPool::new(),
            k_zc: Param::new(p.zero_copy()),
            k_hello_ext: param(ext),
            k_mid_sba: param(mid::SEND_BY_COPY as u64),
            k_mid_wc: param(mid::WRITE_COMPLETE as u64),
            k_mid_rc: param(mid::READ_COMPLETE as u64),
            k_mid_sink: param(mid::SINK_AVAIL as u64),
            k_mid_ls: param(mid::LARGE_SEND as u64),
            ..Default::default()
        }
    }
}

impl Logic for CtlCont {
    #[hdl_gen]
    fn update(&mut self) {
        self.ck.next = self.step.val().cont;
        self.ok.next = self.resp.val().status == 0;
        self.session.ck.next = self.ck.val();
        self.session.step.next = self.step.val();
        self.session.conn.next = self.w_in.val().conn;
        self.session.ci.next = self.w_in.val().c;
        self.session.fx_in.next = self.w_in.val().fx;
        self.session.ok.next = self.ok.val();
        self.recv.step.next = self.step.val();
        self.recv.ci.next = self.w_in.val().c;
        self.recv.ok.next = self.ok.val();
        self.txc.ck.next = self.ck.val();
        self.txc.conn.next = self.w_in.val().conn;
        self.txc.ci.next = self.w_in.val().c;
        self.txc.sq_f.next = self.sq_f.val();
        self.txc.rest.next = self.rest.val();
        self.txc.resp.next = self.resp.val();
        self.txc.ok.next = self.ok.val();
        self.zmsg.w_in.next = self.w_in.val();
        self.zmsg.kmid.next = self.step.val().kmid;
        self.zmsg.kbuf.next = self.step.val().kbuf;
        self.zmsg.kpay.next = self.step.val().kpay;
        self.zmsg.hdr.next = self.hdr.val();
        self.zmsg.rest.next = self.rest.val();
        self.zmsg.rq_f.next = self.rq_f.val();
        self.zpool.ck.next = self.ck.val();
        self.zpool.w_in.next = self.w_in.val();
        self.zpool.resp.next = self.resp.val();
        self.zpool.sq_f.next = self.sq_f.val();
        self.zpool.rq_f.next = self.rq_f.val();
        self.zmid.next = (self.step.val().kmid == self.k_mid_sba.val())
            | (self.step.val().kmid == self.k_mid_wc.val())
            | (self.step.val().kmid == self.k_mid_rc.val())
            | (self.step.val().kmid == self.k_mid_sink.val())
            | (self.step.val().kmid == self.k_mid_ls.val());

        // The continuation's block.
        self.ci.next = self.w_in.val().c;
        self.c.next = self.w_in.val().c;
        self.fx.next = self.w_in.val().fx;
        self.pend.next = self.w_in.val().pend;
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.w_in.val().conn;
        self.a.next = self.k_zero_act.val();
        self.a.next.req = self.req.val();
        self.new_cpl_v.next = false;
        self.new_cpl.next = self.session.cpl.val();
        self.build.next = false;
        self.hw.mid.next = self.session.mid.val();
        self.hw.flags.next = 0.into();
        self.hw.len.next = self.session.mlen.val();
        if (self.ck.val() == 1)
            | (self.ck.val() == 2)
            | (self.ck.val() == 3)
            | (self.ck.val() == 6)
            | (self.ck.val() == 7)
        {
            self.c.next = self.session.c.val();
            self.fx.next = self.session.fx.val();
            self.a.next = self.session.act.val();
            self.new_cpl_v.next = self.session.cpl_v.val();
            self.build.next = self.session.build.val();
        } else if self.ck.val() == 4 {
            self.c.next = self.recv.c.val();
            self.pend.next.held_v = self.recv.held_v.val();
            self.pend.next.held = self.recv.held.val();
            self.a.next = self.recv.act.val();
        } else if self.ck.val() == 5 {
            // The buffer is the pool's again: post it to the receive path.
            self.fx.next.adm_v = true;
            self.fx.next.adm_post = true;
            self.fx.next.adm_open = false;
            self.fx.next.adm_buf = self.step.val().kbuf;
        } else if (self.ck.val() == 8)
            | (self.ck.val() == 9)
            | (self.ck.val() == 10)
            | (self.ck.val() == 11)
        {
            self.c.next = self.txc.c.val();
            self.a.next = self.txc.act.val();
            self.build.next = self.txc.build.val();
            self.hw.mid.next = self.txc.mid.val();
            self.hw.flags.next = self.txc.mflags.val();
            self.hw.len.next = self.txc.mlen.val();
        }

        // The message built from the answer: header from the pool, payload for Data.
        self.hw.bufs.next = self.resp.val().bufs;
        self.hw.mseq.next = self.resp.val().mseq;
        self.hw.ack.next = self.resp.val().ack;
        self.job.next = self.k_zero_job.val();
        self.job.next.conn = self.w_in.val().conn;
        self.job.next.buf = self.resp.val().buf;
        self.job.next.pooled = true;
        self.job.next.w0 = self.hw.w0.val();
        self.job.next.w1 = self.hw.w1.val();
        self.job.next.w2 = self.k_hello_ext.val();
        self.job.next.nwords = 2.into();
        if self.session.ext_v.val() {
            self.job.next.nwords = 3.into();
        }
        self.job.next.pay_addr = self.txc.pay_addr.val();
        self.job.next.pay_len = self.txc.pay_len.val();
        self.job.next.cpl_v = self.txc.cpl_v.val();
        self.job.next.cpl = self.txc.cpl.val();
        self.new_job_v.next = self.build.val();
        if self.build.val() {
            self.c.next.tx_inflight = self.ci.val().tx_inflight + 1;
        }
        self.wk.next.conn_v = self.w_in.val().conn_v;
        self.wk.next.conn = self.w_in.val().conn;
        self.wk.next.c = self.c.val();
        self.wk.next.fx = self.fx.val();
        self.wk.next.pend = self.pend.val();
        self.w.next = self.wk.val();
        self.act.next = self.a.val();
        self.new_job.next = self.job.val();
        self.fwd_w.next = self.zmsg.w.val();
        self.fwd_act.next = self.zmsg.act.val();
        self.fwd_v.next = false;
        if (self.ck.val() == 4) & self.ok.val() & self.zmid.val() & self.k_zc.val() {
            self.fwd_v.next = self.zmsg.act.val().code == 6;
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
