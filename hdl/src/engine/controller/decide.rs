//! The controller's decision on the event in hand and the registers that hold it: the first
//! decision on an event ([`CtlStart`], or [`CtlZStart`] for a transfer's end and the pump's
//! zero-copy steps), or the decision on an answer (the pool manager's: [`CtlCont`]; the
//! sequencer's: [`CtlZSeq`]), then the tail they share ([`CtlTail`]); the result is loaded
//! into the event's registers when the controller says the decision is taken.
//!
//! # Ports
//! - `at` (in): the controller's phase one-hot (bit 1 Decide: a first decision; bits 2
//!   Pool, 5 Seq: an answer's).
//! - `ev` (in): the event in hand (`CtlEvent`'s registers).
//! - `cw` (in): its connection's word; `sq_f`, `rq_f`, `held_f` (in): its queues' heads,
//!   read from `cw` (a first decision's); `sq_h`, `rq_h` (in): the heads of the word in
//!   hand (an answer's decisions; the head send's rest is also kept a cycle late in
//!   `rest_r`, [`SendRest`], for the decisions on a pool answer).
//! - `resp`, `rsp` (in): the pool manager's and the sequencer's answers.
//! - `pool`, `seq` (out, combinational): the decision in hand asks the pool manager or the
//!   sequencer next; else the event is applied.
//! - `ld_start`, `ld_cont`, `ld_zseq` (in): load the first decision (Decide), the pool
//!   answer's (Pool) or the sequencer answer's (Seq) into the registers at the edge.
//! - `w`, `step` (out, registers): the event as handled so far (the connection's new word,
//!   the effects, the pending queue appends) and what comes next (the request in flight
//!   and its continuation).
//! - `reset` (in): synchronous; clears `w`'s connection word (the state RAM's sweep writes
//!   it: [`CtlState`](super::CtlState)). Nothing reads the word in hand before the next
//!   first decision loads it, so this is only the sweep's zero, in the flip-flops' own
//!   reset.
//! - `fwd` (out, combinational): the decision on the answer in hand is a sequencer command
//!   the controller offers in the answer's cycle (a zero-copy message's, the pool having
//!   taken it, or one following the sequencer's own answer); `fwd_w`, `fwd_act` (out): that
//!   decision, before the registers (the model's `Controller::forward`).
//! - `pfwd` (in): a pool request decided as a posted sequencer command is taken is offered
//!   now (`CtlPhases`); `pool_fwd_ok` (out, combinational): the decision in hand is a pool
//!   request whose answer is read (so it may be forwarded); `pool_req` (out): the request
//!   on the pool's port, the undelayed decision's when `pfwd` (its operation, connection,
//!   class and buffer: the operands it leaves are ones its operation does not read), else
//!   the step register's (the model's `Controller::forward_pool`).
//! - `job_v`/`job`, `cpl_v`/`cpl`, `dlv_v`/`dlv` (out, registers): the message job, the
//!   completion and the delivery job made so far. Each register loads from the decisions
//!   that make it only (the start makes all three; a pool answer's a job or a completion;
//!   the sequencer's a completion), so its multiplexer has no more inputs than that.
//!
//! Timing: the tail's input is a four-way multiplexer on two select bits: `tsel1` (the
//! phase, from registers) picks a first decision over an answer's; `tsel0`, which waits
//! for the start's own decision (`zpump`), picks within the pair, so it enters the
//! multiplexer's last level only (one LUT6 per bit of the ~2,200-bit decision, where a
//! priority chain costs three).

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use super::super::records::{
    Act, ConnWord, CplRec, DlvJob, EvRec, HdrRec, HeldEnt, PoolReq, PoolResp, RqEnt, SendRest,
    SeqRsp, SqEnt, TxJob, Work,
};
use super::{CtlCont, CtlStart, CtlTail, CtlZSeq, CtlZStart};
use crate::widgets::Param;

#[derive(LogicBlock, Default)]
pub struct CtlDecide {
    pub at: Signal<In, Bits<6>>,
    pub ev: Signal<In, EvRec>,
    pub cw: Signal<In, ConnWord>,
    pub sq_f: Signal<In, SqEnt>,
    pub sq_h: Signal<In, SqEnt>,
    pub rq_h: Signal<In, RqEnt>,
    pub rq_f: Signal<In, RqEnt>,
    pub held_f: Signal<In, HeldEnt>,
    pub resp: Signal<In, PoolResp>,
    pub rsp: Signal<In, SeqRsp>,
    pub pool: Signal<Out, Bit>,
    pub seq: Signal<Out, Bit>,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ld_start: Signal<In, Bit>,
    pub ld_cont: Signal<In, Bit>,
    pub ld_zseq: Signal<In, Bit>,
    pub w: Signal<Out, Work>,
    pub step: Signal<Out, Act>,
    pub job_v: Signal<Out, Bit>,
    pub job: Signal<Out, TxJob>,
    pub cpl_v: Signal<Out, Bit>,
    pub cpl: Signal<Out, CplRec>,
    pub dlv_v: Signal<Out, Bit>,
    pub dlv: Signal<Out, DlvJob>,
    pub fwd: Signal<Out, Bit>,
    pub fwd_w: Signal<Out, Work>,
    pub fwd_act: Signal<Out, Act>,
    pub pfwd: Signal<In, Bit>,
    pub pool_fwd_ok: Signal<Out, Bit>,
    pub pool_req: Signal<Out, PoolReq>,
    w_r: DFF<Work>,
    step_r: DFF<Act>,
    job_v_r: DFF<Bit>,
    job_r: DFF<TxJob>,
    cpl_v_r: DFF<Bit>,
    cpl_r: DFF<CplRec>,
    dlv_v_r: DFF<Bit>,
    dlv_r: DFF<DlvJob>,
    rest_r: DFF<SendRest>,
    start: CtlStart,
    cont: CtlCont,
    tail: CtlTail,
    zstart: CtlZStart,
    zseq: CtlZSeq,
    tsel0: Signal<Local, Bit>,
    tsel1: Signal<Local, Bit>,
    w01: Signal<Local, Work>,
    a01: Signal<Local, Act>,
    w23: Signal<Local, Work>,
    a23: Signal<Local, Act>,
    fwd_req: Signal<Local, PoolReq>,
    rest: Signal<Local, SendRest>,
    ext: Signal<Local, Bits<64>>,
    c_r: Signal<Local, ConnWord>,
    hdr: Signal<Local, HdrRec>,
    k_zero_word: Param<ConnWord>,
}

impl CtlDecide {
    pub fn new(p: &EngineParams) -> Self {
        CtlDecide {
            start: CtlStart::new(p),
            cont: CtlCont::new(p),
            zseq: CtlZSeq::new(p),
            ..Default::default()
        }
    }
}

impl Logic for CtlDecide {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, w_r, step_r, job_v_r, job_r, cpl_v_r, cpl_r, dlv_v_r, dlv_r, rest_r
        );
        // The head send's rest, for the pool answer's decisions a cycle or more later (see
        // `SendRest`): loaded every cycle from the word in hand and the event's header.
        self.c_r.next = self.w_r.q.val().c;
        self.hdr.next = self.ev.val().hdr;
        self.rest.next.left = self.sq_h.val().len - self.c_r.val().sent;
        self.rest.next.fits = self.c_r.val().peer_room >= self.rest.val().left;
        self.rest.next.dlen_eq = self.hdr.val().dlen == self.rest.val().left;
        self.ext.next = self.hdr.val().ext;
        self.rest.next.bytes_eq = self.ext.val().get_bits::<32>(0) == self.rest.val().left;
        self.rest_r.d.next = self.rest.val();
        self.start.kind.next = self.ev.val().kind;
        self.start.ev_conn.next = self.ev.val().conn;
        self.start.hdr.next = self.ev.val().hdr;
        self.start.sent.next = self.ev.val().sent;
        self.start.dlv.next = self.ev.val().dlv;
        self.start.cmd.next = self.ev.val().cmd;
        self.start.cw.next = self.cw.val();
        self.start.sq_f.next = self.sq_f.val();
        self.start.rq_f.next = self.rq_f.val();
        self.start.held_f.next = self.held_f.val();
        self.cont.step.next = self.step_r.q.val();
        self.cont.w_in.next = self.w_r.q.val();
        self.cont.sq_f.next = self.sq_h.val();
        self.cont.rest.next = self.rest_r.q.val();
        self.cont.resp.next = self.resp.val();
        self.cont.hdr.next = self.ev.val().hdr;
        self.cont.rq_f.next = self.rq_h.val();
        self.zstart.kind.next = self.ev.val().kind;
        self.zstart.xfer.next = self.ev.val().xfer;
        self.zstart.cw.next = self.cw.val();
        self.zstart.w_in.next = self.start.w.val();
        self.zseq.step.next = self.step_r.q.val();
        self.zseq.w_in.next = self.w_r.q.val();
        self.zseq.rsp.next = self.rsp.val();
        self.zseq.sq_f.next = self.sq_h.val();
        self.zseq.rq_f.next = self.rq_h.val();

        self.tsel1.next = self.at.val().get_bit(1);
        self.tsel0.next = self.at.val().get_bit(5);
        if self.at.val().get_bit(1) {
            self.tsel0.next = (self.ev.val().kind == 7) | self.start.zpump.val();
        }
        self.w01.next = self.cont.w.val();
        self.a01.next = self.cont.act.val();
        if self.tsel0.val() {
            self.w01.next = self.zseq.w.val();
            self.a01.next = self.zseq.act.val();
        }
        self.w23.next = self.start.w.val();
        self.a23.next = self.start.act.val();
        if self.tsel0.val() {
            self.w23.next = self.zstart.w.val();
            self.a23.next = self.zstart.act.val();
        }
        self.tail.w_in.next = self.w01.val();
        self.tail.act_in.next = self.a01.val();
        if self.tsel1.val() {
            self.tail.w_in.next = self.w23.val();
            self.tail.act_in.next = self.a23.val();
        }
        self.pool.next = self.tail.pool.val();
        self.seq.next = self.tail.seq.val();
        self.fwd.next = (self.ld_cont.val() & self.cont.fwd_v.val())
            | (self.ld_zseq.val() & (self.zseq.act.val().code == 6));
        self.fwd_w.next = self.cont.fwd_w.val();
        self.fwd_act.next = self.cont.fwd_act.val();
        if self.at.val().get_bit(5) {
            self.fwd_w.next = self.zseq.w.val();
            self.fwd_act.next = self.zseq.act.val();
        }
        self.pool_fwd_ok.next = self.tail.pool.val() & (self.tail.step.val().cont != 0);
        // A forwarded request takes its operation, connection, class and buffer from the
        // undelayed decision; its sequence and credit operands stay the step register's:
        // only `OPEN` and `RECV` read them, and only `CtlRx`, a first decision, asks for
        // those, never the sequencer answer's decision that is forwarded.
        self.pool_req.next = self.step_r.q.val().req;
        self.fwd_req.next = self.tail.step.val().req;
        if self.pfwd.val() {
            self.pool_req.next.op = self.fwd_req.val().op;
            self.pool_req.next.conn = self.fwd_req.val().conn;
            self.pool_req.next.class = self.fwd_req.val().class;
            self.pool_req.next.buf = self.fwd_req.val().buf;
        }

        // The registers, each loaded from the decisions that make it.
        self.w.next = self.w_r.q.val();
        self.step.next = self.step_r.q.val();
        self.job_v.next = self.job_v_r.q.val();
        self.job.next = self.job_r.q.val();
        self.cpl_v.next = self.cpl_v_r.q.val();
        self.cpl.next = self.cpl_r.q.val();
        self.dlv_v.next = self.dlv_v_r.q.val();
        self.dlv.next = self.dlv_r.q.val();
        if self.ld_start.val() | self.ld_cont.val() | self.ld_zseq.val() {
            self.w_r.d.next = self.tail.w.val();
            self.step_r.d.next = self.tail.step.val();
        }
        if self.reset.val() {
            self.w_r.d.next.c = self.k_zero_word.val();
        }
        if self.ld_start.val() {
            self.job_v_r.d.next = self.start.new_job_v.val();
            self.job_r.d.next = self.start.new_job.val();
            self.cpl_v_r.d.next = self.start.new_cpl_v.val();
            self.cpl_r.d.next = self.start.new_cpl.val();
            self.dlv_v_r.d.next = self.start.new_dlv_v.val();
            self.dlv_r.d.next = self.start.new_dlv.val();
        }
        if self.ld_cont.val() & self.cont.new_job_v.val() {
            self.job_v_r.d.next = true;
            self.job_r.d.next = self.cont.new_job.val();
        }
        if self.ld_cont.val() & self.cont.new_cpl_v.val() {
            self.cpl_v_r.d.next = true;
            self.cpl_r.d.next = self.cont.new_cpl.val();
        }
        if self.ld_zseq.val() & self.zseq.new_cpl_v.val() {
            self.cpl_v_r.d.next = true;
            self.cpl_r.d.next = self.zseq.new_cpl.val();
        }
    }
}
