//! The controller's decision on the event in hand, combinational: the first decision on
//! an event ([`CtlStart`], or [`CtlZStart`] for a transfer's end and the pump's zero-copy
//! steps), or the decision on an answer (the pool manager's: [`CtlCont`]; the
//! sequencer's: [`CtlZSeq`]), then the tail they share ([`CtlTail`]).
//!
//! # Ports
//! - `phase` (in): the controller's phase (1 Decide: a first decision; 2 Pool, 5 Seq: an
//!   answer's).
//! - `kind`, `ev_conn`, `hdr`, `sent`, `dlv`, `cmd`, `xfer` (in): the event.
//! - `cw` (in): its connection's word; `sq_f`, `rq_f`, `held_f` (in): its queues' heads.
//! - `w_in`, `step` (in): the event as handled so far and the continuation of the request
//!   answered; `resp`, `rsp` (in): the pool manager's and the sequencer's answers.
//! - `w`, `step_out` (out): the event after the decision and what comes next; `pool`, `seq`
//!   (out): a pool request or a sequencer command is next, else the event is applied.
//! - `start_*`, `cont_*`, `zseq_*` (out): the message job, completion and delivery job each
//!   decision makes, kept apart so the controller's registers load each from its own
//!   decision (the multiplexer is the register's own, as before the split).
//!
//! Timing: the tail's input is a four-way multiplexer on two select bits: `tsel1` (the
//! phase, from registers) picks a first decision over an answer's; `tsel0`, which waits
//! for the start's own decision (`zpump`), picks within the pair, so it enters the
//! multiplexer's last level only (one LUT6 per bit of the ~2,200-bit decision, where a
//! priority chain costs three).

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use super::super::records::{
    Act, CmdRec, ConnWord, CplRec, DlvJob, HdrRec, HeldEnt, PoolResp, RqEnt, SentRec, SeqRsp,
    SqEnt, TxJob, Work, XferRec,
};
use super::{CtlCont, CtlStart, CtlTail, CtlZSeq, CtlZStart};

#[derive(LogicBlock, Default)]
pub struct CtlDecide {
    pub phase: Signal<In, Bits<3>>,
    pub kind: Signal<In, Bits<3>>,
    pub ev_conn: Signal<In, Bits<8>>,
    pub hdr: Signal<In, HdrRec>,
    pub sent: Signal<In, SentRec>,
    pub dlv: Signal<In, DlvJob>,
    pub cmd: Signal<In, CmdRec>,
    pub xfer: Signal<In, XferRec>,
    pub cw: Signal<In, ConnWord>,
    pub sq_f: Signal<In, SqEnt>,
    pub rq_f: Signal<In, RqEnt>,
    pub held_f: Signal<In, HeldEnt>,
    pub w_in: Signal<In, Work>,
    pub step: Signal<In, Act>,
    pub resp: Signal<In, PoolResp>,
    pub rsp: Signal<In, SeqRsp>,
    pub w: Signal<Out, Work>,
    pub step_out: Signal<Out, Act>,
    pub pool: Signal<Out, Bit>,
    pub seq: Signal<Out, Bit>,
    pub start_job_v: Signal<Out, Bit>,
    pub start_job: Signal<Out, TxJob>,
    pub start_cpl_v: Signal<Out, Bit>,
    pub start_cpl: Signal<Out, CplRec>,
    pub start_dlv_v: Signal<Out, Bit>,
    pub start_dlv: Signal<Out, DlvJob>,
    pub cont_job_v: Signal<Out, Bit>,
    pub cont_job: Signal<Out, TxJob>,
    pub cont_cpl_v: Signal<Out, Bit>,
    pub cont_cpl: Signal<Out, CplRec>,
    pub zseq_cpl_v: Signal<Out, Bit>,
    pub zseq_cpl: Signal<Out, CplRec>,
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
        self.start.kind.next = self.kind.val();
        self.start.ev_conn.next = self.ev_conn.val();
        self.start.hdr.next = self.hdr.val();
        self.start.sent.next = self.sent.val();
        self.start.dlv.next = self.dlv.val();
        self.start.cmd.next = self.cmd.val();
        self.start.cw.next = self.cw.val();
        self.start.sq_f.next = self.sq_f.val();
        self.start.rq_f.next = self.rq_f.val();
        self.start.held_f.next = self.held_f.val();
        self.cont.step.next = self.step.val();
        self.cont.w_in.next = self.w_in.val();
        self.cont.sq_f.next = self.sq_f.val();
        self.cont.resp.next = self.resp.val();
        self.cont.hdr.next = self.hdr.val();
        self.cont.rq_f.next = self.rq_f.val();
        self.zstart.kind.next = self.kind.val();
        self.zstart.xfer.next = self.xfer.val();
        self.zstart.cw.next = self.cw.val();
        self.zstart.sq_f.next = self.sq_f.val();
        self.zstart.w_in.next = self.start.w.val();
        self.zseq.step.next = self.step.val();
        self.zseq.w_in.next = self.w_in.val();
        self.zseq.rsp.next = self.rsp.val();
        self.zseq.hdr.next = self.hdr.val();
        self.zseq.sq_f.next = self.sq_f.val();
        self.zseq.rq_f.next = self.rq_f.val();

        self.tsel1.next = self.phase.val() == 1;
        self.tsel0.next = self.phase.val() == 5;
        if self.phase.val() == 1 {
            self.tsel0.next = (self.kind.val() == 7) | self.start.zpump.val();
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
        self.w.next = self.tail.w.val();
        self.step_out.next = self.tail.step.val();
        self.pool.next = self.tail.pool.val();
        self.seq.next = self.tail.seq.val();

        // What each decision makes, for the controller's registers.
        self.start_job_v.next = self.start.new_job_v.val();
        self.start_job.next = self.start.new_job.val();
        self.start_cpl_v.next = self.start.new_cpl_v.val();
        self.start_cpl.next = self.start.new_cpl.val();
        self.start_dlv_v.next = self.start.new_dlv_v.val();
        self.start_dlv.next = self.start.new_dlv.val();
        self.cont_job_v.next = self.cont.new_job_v.val();
        self.cont_job.next = self.cont.new_job.val();
        self.cont_cpl_v.next = self.cont.new_cpl_v.val();
        self.cont_cpl.next = self.cont.new_cpl.val();
        self.zseq_cpl_v.next = self.zseq.new_cpl_v.val();
        self.zseq_cpl.next = self.zseq.new_cpl.val();
    }
}
