//! The controller: the session protocol, one event at a time (model:
//! `sanswitch_model::blocks::engine::controller`, whose documentation gives the behaviour).
//!
//! # Structure
//! - this file: the phases (`Idle`, `Decide`, `Pool`, `Apply`, `Flush`, `Seq`), the state
//!   RAMs (a word per connection; the send, receive and held-payload queues' entries), and
//!   the effects handed out in `Apply`;
//! - [`CtlPick`] (`pick.rs`): the event taken in `Idle` (priority, then a round-robin pump
//!   over the connections' work bits, which it keeps);
//! - [`CtlQueues`] (`queues.rs`): the send, receive and held-payload queues' RAMs;
//! - [`CtlFlush`] (`flush.rs`): a flush's step, one completion per cycle;
//! - [`CtlDecide`] (`decide.rs`): the decision on the event in hand, from these:
//! - [`CtlStart`] (`start.rs`): the first decision on an event, the large ones in
//!   [`CtlRx`] (`rx.rs`: a header), [`CtlDlv`] (`dlv.rs`: a finished delivery), [`CtlCmd`]
//!   (`cmd.rs`: a command) and [`CtlPump`] (`pump.rs`: a pump);
//! - [`CtlCont`] (`cont.rs`): the decision on a pool manager's answer, by continuation in
//!   [`CtlSession`] (`session.rs`), [`CtlRecv`] (`recv.rs`), [`CtlTxCont`] (`txcont.rs`);
//!   message headers through [`HdrWords`] (`hdr_words.rs`);
//! - [`CtlTail`] (`tail.rs`): the tails both share (abort, re-post, the pump's last steps).
//! - the zero-copy paths: [`CtlZStart`] (`zstart.rs`: a transfer's end, the pump's
//!   zero-copy steps), [`CtlZMsg`] and [`CtlZPool`] (`zmsg.rs`, `zpool.rs`, inside
//!   [`CtlCont`]), [`CtlZSeq`] (`zseq.rs`: the sequencer's answers).
//!
//! # Codes
//! The model's enums as numbers. Phase: 0 Idle, 1 Decide, 2 Pool, 3 Apply, 4 Flush, 5 Seq.
//! Event (`ev_kind`): 0 overrun, 1 header, 2 sent, 3 delivered, 4 command, 5 pump, 6 down,
//! 7 transfer ended. `act.code`: 0 apply, 1 pool request, 2 abort, 3 re-post, 4 the pump's
//! `pump_fin`, 5 `pump_closed`, 6 sequencer command. `act.cont` (after a pool answer): 0
//! apply, 1 Hello opened, 2 HelloAck's buffer, 3 HelloAck opened, 4 a message received, 5
//! re-posted, 6 the Abort's buffer, 7 the pool closed on an abort, 8 a Data buffer, 9 the
//! Disconnect's buffer, 10 queried, 11 the credit update's buffer, 12 the LargeSend's
//! buffer, 13 an owed message's buffer. `act.zk`: see [`CtlZSeq`]. Connection state `st`:
//! 0 Free, 1 Open, 2 AwaitHello, 3 HelloSent, 4 Established, 5 Closed, 6 Aborted. `tx_x`:
//! 0 none, 1 registered, 2 awaiting ReadComplete, 3 awaiting SinkAvail, 4 writing. `rx_x`:
//! 0 none, 1 reading, 2 awaiting WriteComplete, 3 landed. `rx_due`: 0 none, 1 SendByCopy,
//! 2 ReadComplete, 3 SinkAvail.
//!
//! # Ports
//! - events: `ovr_*`, `hdr_*`, `sent_*`, `dlv_*`, `cmd_*` (in, a FIFO's head or the parser's
//!   header record) and `take_*` (out): taken in `Idle`.
//! - `pool_valid`, `pool_req` (out) / `pool_ready`, `resp_valid`, `resp` (in): the pool
//!   manager.
//! - `seq_valid`, `seq_cmd`, `take_rsp` (out) / `seq_ready`, `rsp_valid`, `rsp` (in): the
//!   sequencer's commands; `xfer_valid`, `xfer` (in) / `take_xfer` (out): its completion
//!   requests, an event.
//! - `cpl_*`, `job_*`, `dj_*` (out, with `*_can_push` in): pushes into the completion FIFO,
//!   the builder's and the delivery's job FIFOs; `adm_*` (out): the posted-bitmap change.
//! - `reset` (in): synchronous; the state RAM is not cleared (a connection is made fresh by
//!   OPEN, and nothing reads a connection's word before OPEN would make sense of it... except
//!   that a Free word must read as Free: see `sweep`).

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

mod cmd;
mod cont;
mod decide;
mod dlv;
mod flush;
mod hdr_words;
mod inline;
mod pick;
mod pump;
mod queues;
mod recv;
mod rx;
mod session;
mod start;
mod tail;
mod txcont;
mod zmsg;
mod zpool;
mod zseq;
mod zstart;
pub use cmd::CtlCmd;
pub use cont::CtlCont;
pub use decide::CtlDecide;
pub use dlv::CtlDlv;
pub use flush::CtlFlush;
pub use hdr_words::HdrWords;
pub use inline::CtlInline;
pub use pick::CtlPick;
pub use pump::CtlPump;
pub use queues::CtlQueues;
pub use recv::CtlRecv;
pub use rx::CtlRx;
pub use session::CtlSession;
pub use start::CtlStart;
pub use tail::CtlTail;
pub use txcont::CtlTxCont;
pub use zmsg::CtlZMsg;
pub use zpool::CtlZPool;
pub use zseq::CtlZSeq;
pub use zstart::CtlZStart;

use super::records::{
    Act, CmdRec, ConnWord, CplRec, DlvJob, Fx, HdrRec, Pend, PoolReq, PoolResp, RqEnt, SentRec,
    SeqCmd, SeqRsp, SqEnt, TxJob, Work, XferRec,
};
use crate::widgets::{Param, Ram, param};

#[derive(LogicBlock, Default)]
pub struct Controller {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ovr_valid: Signal<In, Bit>,
    pub ovr_conn: Signal<In, Bits<8>>,
    pub down_valid: Signal<In, Bit>,
    pub down_conn: Signal<In, Bits<8>>,
    pub take_down: Signal<Out, Bit>,
    pub down_can_push: Signal<In, Bit>,
    pub down_push: Signal<Out, Bit>,
    pub hdr_valid: Signal<In, Bit>,
    pub hdr: Signal<In, HdrRec>,
    pub sent_valid: Signal<In, Bit>,
    pub sent: Signal<In, SentRec>,
    pub dlv_valid: Signal<In, Bit>,
    pub dlv: Signal<In, DlvJob>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd: Signal<In, CmdRec>,
    pub take_ovr: Signal<Out, Bit>,
    pub take_hdr: Signal<Out, Bit>,
    pub take_sent: Signal<Out, Bit>,
    pub take_dlv: Signal<Out, Bit>,
    pub take_cmd: Signal<Out, Bit>,
    pub pool_ready: Signal<In, Bit>,
    pub pool_valid: Signal<Out, Bit>,
    pub pool_req: Signal<Out, PoolReq>,
    pub resp_valid: Signal<In, Bit>,
    pub resp: Signal<In, PoolResp>,
    pub seq_ready: Signal<In, Bit>,
    pub seq_valid: Signal<Out, Bit>,
    pub seq_cmd: Signal<Out, SeqCmd>,
    pub rsp_valid: Signal<In, Bit>,
    pub rsp: Signal<In, SeqRsp>,
    pub take_rsp: Signal<Out, Bit>,
    pub xfer_valid: Signal<In, Bit>,
    pub xfer: Signal<In, XferRec>,
    pub take_xfer: Signal<Out, Bit>,
    pub cpl_can_push: Signal<In, Bit>,
    pub job_can_push: Signal<In, Bit>,
    pub dj_can_push: Signal<In, Bit>,
    pub cpl_push: Signal<Out, Bit>,
    pub cpl: Signal<Out, CplRec>,
    pub job_push: Signal<Out, Bit>,
    pub job: Signal<Out, TxJob>,
    pub dj_push: Signal<Out, Bit>,
    pub dj: Signal<Out, DlvJob>,
    pub adm_valid: Signal<Out, Bit>,
    pub adm_conn: Signal<Out, Bits<8>>,
    pub adm_post: Signal<Out, Bit>,
    pub adm_open: Signal<Out, Bit>,
    pub adm_buf: Signal<Out, Bits<8>>,
    pick: CtlPick,
    flush: CtlFlush,
    decide: CtlDecide,
    conn_ram: Ram<ConnWord>,
    queues: CtlQueues,
    phase: DFF<Bits<3>>,
    ev_kind: DFF<Bits<3>>,
    ev_conn: DFF<Bits<8>>,
    ev_hdr: DFF<HdrRec>,
    ev_sent: DFF<SentRec>,
    ev_dlv: DFF<DlvJob>,
    ev_cmd: DFF<CmdRec>,
    ev_xfer: DFF<XferRec>,
    w: DFF<Work>,
    /// The event's message job (`Effects::job`), written by the decision that builds it.
    jr_v: DFF<Bit>,
    jr: DFF<TxJob>,
    /// The event's completion and delivery job (`Effects::cpl`, `Effects::dlv`), likewise.
    cr_v: DFF<Bit>,
    cr: DFF<CplRec>,
    dr_v: DFF<Bit>,
    dr: DFF<DlvJob>,
    step: DFF<Act>,
    psent: DFF<Bit>,
    fl_conn: DFF<Bits<8>>,
    fl_all: DFF<Bit>,
    fl_err: DFF<Bits<16>>,
    /// After reset, every word is written Free, one per cycle (no event is taken meanwhile).
    sweep: DFF<Bit>,
    sweep_addr: DFF<Bits<8>>,
    k_last: Param<Bits<8>>,
    k_zero_word: Param<ConnWord>,
    cur_conn: Signal<Local, Bits<8>>,
    cur: Signal<Local, ConnWord>,
    cw: Signal<Local, ConnWord>,
    wc: Signal<Local, ConnWord>,
    wfx: Signal<Local, Fx>,
    wpend: Signal<Local, Pend>,
    newc: Signal<Local, ConnWord>,
    fxc: Signal<Local, CplRec>,
    fxj: Signal<Local, TxJob>,
    room: Signal<Local, Bit>,
    sqf: Signal<Local, SqEnt>,
    rqf: Signal<Local, RqEnt>,
    conn16: Signal<Local, Bits<16>>,
    tuser: Signal<Local, Bits<16>>,
    next_phase: Signal<Local, Bits<3>>,
}

impl Controller {
    pub fn new(p: &EngineParams) -> Self {
        let n = p.connections as usize;
        let np2 = n.next_power_of_two();
        Controller {
            pick: CtlPick::new(n),
            decide: CtlDecide::new(p),
            conn_ram: Ram::new(np2.max(2), false),
            queues: CtlQueues::new(p),
            k_last: param(n as u64 - 1),
            ..Default::default()
        }
    }
}

impl Logic for Controller {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, ev_kind, ev_conn, ev_hdr, ev_sent, ev_dlv, ev_cmd, ev_xfer, w,
            jr_v, jr, cr_v, cr, dr_v, dr, step, psent, fl_conn, fl_all, fl_err, sweep, sweep_addr
        );
        self.pick.clock.next = self.clock.val();
        self.pick.reset.next = self.reset.val();
        self.conn_ram.write_clock.next = self.clock.val();
        self.queues.clock.next = self.clock.val();

        // The connection whose word and queue heads are read this cycle.
        self.cur_conn.next = self.w.q.val().conn;
        if self.phase.q.val() == 1 {
            self.cur_conn.next = self.ev_conn.q.val();
        } else if self.phase.q.val() == 4 {
            self.cur_conn.next = self.fl_conn.q.val();
        }
        self.conn_ram.read_address.next = bit_cast::<16, 8>(self.cur_conn.val());
        self.cw.next = self.conn_ram.read_data.val();
        self.wc.next = self.w.q.val().c;
        self.wfx.next = self.w.q.val().fx;
        self.wpend.next = self.w.q.val().pend;
        self.cur.next = self.cw.val();
        if (self.phase.q.val() == 2) | (self.phase.q.val() == 3) | (self.phase.q.val() == 5) {
            self.cur.next = self.wc.val();
        }
        self.queues.rd_conn.next = self.cur_conn.val();
        self.queues.rd.next = self.cur.val();
        self.sqf.next = self.queues.sq_f.val();
        self.rqf.next = self.queues.rq_f.val();

        // The decision on the event in hand.
        self.decide.phase.next = self.phase.q.val();
        self.decide.kind.next = self.ev_kind.q.val();
        self.decide.ev_conn.next = self.ev_conn.q.val();
        self.decide.hdr.next = self.ev_hdr.q.val();
        self.decide.sent.next = self.ev_sent.q.val();
        self.decide.dlv.next = self.ev_dlv.q.val();
        self.decide.cmd.next = self.ev_cmd.q.val();
        self.decide.xfer.next = self.ev_xfer.q.val();
        self.decide.cw.next = self.cw.val();
        self.decide.sq_f.next = self.sqf.val();
        self.decide.rq_f.next = self.rqf.val();
        self.decide.held_f.next = self.queues.held_f.val();
        self.decide.w_in.next = self.w.q.val();
        self.decide.step.next = self.step.q.val();
        self.decide.resp.next = self.resp.val();
        self.decide.rsp.next = self.rsp.val();

        // Defaults: nothing taken, pushed or written.
        self.down_push.next = false;
        self.pool_valid.next = false;
        self.pool_req.next = self.step.q.val().req;
        self.seq_valid.next = false;
        self.seq_cmd.next = self.step.q.val().seq;
        self.take_rsp.next = false;
        self.cpl_push.next = false;
        self.fxc.next = self.cr.q.val();
        self.job_push.next = false;
        self.fxj.next = self.jr.q.val();
        self.job.next = self.fxj.val();
        self.dj_push.next = false;
        self.dj.next = self.dr.q.val();
        self.adm_valid.next = false;
        self.adm_conn.next = self.w.q.val().conn;
        self.adm_post.next = self.wfx.val().adm_post;
        self.adm_open.next = self.wfx.val().adm_open;
        self.adm_buf.next = self.wfx.val().adm_buf;
        self.conn_ram.write_enable.next = false;
        self.conn_ram.write_address.next = bit_cast::<16, 8>(self.w.q.val().conn);
        self.newc.next = self.wc.val();
        if self.jr_v.q.val() & self.fxj.val().pooled {
            // Every message carries our posted count.
            self.newc.next.adv_due = false;
        }
        self.queues.wr_conn.next = self.w.q.val().conn;
        self.queues.wr.next = self.wc.val();
        self.queues.cmd.next = self.ev_cmd.q.val();
        self.queues.sq_we.next = false;
        self.queues.rq_we.next = false;
        self.queues.held_we.next = false;
        self.queues.held.next = self.wpend.val().held;

        // The event an idle controller takes.
        self.tuser.next = self.hdr.val().tuser;
        self.conn16.next = self.cmd.val().conn;
        self.pick.enable.next = !self.sweep.q.val() & (self.phase.q.val() == 0);
        self.pick.sent_valid.next = self.sent_valid.val();
        self.pick.sent_conn.next = self.sent.val().conn;
        self.pick.dlv_valid.next = self.dlv_valid.val();
        self.pick.dlv_conn.next = self.dlv.val().conn;
        self.pick.xfer_valid.next = self.xfer_valid.val();
        self.pick.xfer_conn.next = self.xfer.val().conn;
        self.pick.cmd_valid.next = self.cmd_valid.val();
        self.pick.cmd_conn.next = self.conn16.val().get_bits::<8>(0);
        self.pick.ovr_valid.next = self.ovr_valid.val();
        self.pick.ovr_conn.next = self.ovr_conn.val();
        self.pick.down_valid.next = self.down_valid.val();
        self.pick.down_conn.next = self.down_conn.val();
        self.pick.hdr_valid.next = self.hdr_valid.val();
        self.pick.hdr_conn.next = self.tuser.val().get_bits::<8>(0);
        self.pick.set_v.next = false;
        self.pick.set_conn.next = self.w.q.val().conn;
        self.pick.set_work.next = self.wfx.val().work;
        self.take_sent.next = self.pick.take_sent.val();
        self.take_dlv.next = self.pick.take_dlv.val();
        self.take_xfer.next = self.pick.take_xfer.val();
        self.take_cmd.next = self.pick.take_cmd.val();
        self.take_ovr.next = self.pick.take_ovr.val();
        self.take_down.next = self.pick.take_down.val();
        self.take_hdr.next = self.pick.take_hdr.val();
        // The flush's step (read only in Flush).
        self.flush.cw.next = self.cw.val();
        self.flush.sq_f.next = self.sqf.val();
        self.flush.rq_f.next = self.rqf.val();
        self.flush.conn.next = self.fl_conn.q.val();
        self.flush.all.next = self.fl_all.q.val();
        self.flush.err.next = self.fl_err.q.val();
        self.flush.can_push.next = self.cpl_can_push.val();
        self.room.next = false;
        // Where a decision goes next: a pool request, a sequencer command, or Apply.
        self.next_phase.next = 3.into();
        if self.decide.pool.val() {
            self.next_phase.next = 2.into();
        } else if self.decide.seq.val() {
            self.next_phase.next = 5.into();
        }

        if self.sweep.q.val() {
            self.conn_ram.write_enable.next = true;
            self.conn_ram.write_address.next = bit_cast::<16, 8>(self.sweep_addr.q.val());
            self.sweep_addr.d.next = self.sweep_addr.q.val() + 1;
            if self.sweep_addr.q.val() == self.k_last.val() {
                self.sweep.d.next = false;
            }
        } else if self.phase.q.val() == 0 {
            if self.pick.any.val() {
                self.phase.d.next = 1.into();
                self.ev_kind.d.next = self.pick.kind.val();
                self.ev_conn.d.next = self.pick.conn.val();
            }
            if self.pick.take_sent.val() {
                self.ev_sent.d.next = self.sent.val();
            }
            if self.pick.take_dlv.val() {
                self.ev_dlv.d.next = self.dlv.val();
            }
            if self.pick.take_xfer.val() {
                self.ev_xfer.d.next = self.xfer.val();
            }
            if self.pick.take_cmd.val() {
                self.ev_cmd.d.next = self.cmd.val();
            }
            if self.pick.take_hdr.val() {
                self.ev_hdr.d.next = self.hdr.val();
            }
        } else if self.phase.q.val() == 1 {
            self.w.d.next = self.decide.w.val();
            self.jr_v.d.next = self.decide.start_job_v.val();
            self.jr.d.next = self.decide.start_job.val();
            self.cr_v.d.next = self.decide.start_cpl_v.val();
            self.cr.d.next = self.decide.start_cpl.val();
            self.dr_v.d.next = self.decide.start_dlv_v.val();
            self.dr.d.next = self.decide.start_dlv.val();
            self.step.d.next = self.decide.step_out.val();
            self.psent.d.next = false;
            self.phase.d.next = self.next_phase.val();
        } else if self.phase.q.val() == 2 {
            if !self.psent.q.val() {
                self.pool_valid.next = true;
                if self.pool_ready.val() {
                    self.psent.d.next = true;
                }
            } else if self.resp_valid.val() {
                self.w.d.next = self.decide.w.val();
                if self.decide.cont_job_v.val() {
                    self.jr_v.d.next = true;
                    self.jr.d.next = self.decide.cont_job.val();
                }
                if self.decide.cont_cpl_v.val() {
                    self.cr_v.d.next = true;
                    self.cr.d.next = self.decide.cont_cpl.val();
                }
                self.step.d.next = self.decide.step_out.val();
                self.psent.d.next = false;
                self.phase.d.next = self.next_phase.val();
            }
        } else if self.phase.q.val() == 5 {
            // A sequencer command out, then its answer.
            if !self.psent.q.val() {
                self.seq_valid.next = true;
                if self.seq_ready.val() {
                    self.psent.d.next = true;
                }
            } else if self.rsp_valid.val() {
                self.take_rsp.next = true;
                self.w.d.next = self.decide.w.val();
                if self.decide.zseq_cpl_v.val() {
                    self.cr_v.d.next = true;
                    self.cr.d.next = self.decide.zseq_cpl.val();
                }
                self.step.d.next = self.decide.step_out.val();
                self.psent.d.next = false;
                self.phase.d.next = self.next_phase.val();
            }
        } else if self.phase.q.val() == 3 {
            self.room.next = (!self.cr_v.q.val() | self.cpl_can_push.val())
                & (!self.jr_v.q.val() | self.job_can_push.val())
                & (!self.dr_v.q.val() | self.dj_can_push.val())
                & (!self.wfx.val().down | self.down_can_push.val());
            if self.room.val() {
                self.cpl_push.next = self.cr_v.q.val();
                self.job_push.next = self.jr_v.q.val();
                self.dj_push.next = self.dr_v.q.val();
                self.phase.d.next = 0.into();
                if self.w.q.val().conn_v {
                    self.adm_valid.next = self.wfx.val().adm_v;
                    self.down_push.next = self.wfx.val().down;
                    self.conn_ram.write_enable.next = true;
                    self.queues.sq_we.next = self.wpend.val().sq_v;
                    self.queues.rq_we.next = self.wpend.val().rq_v;
                    self.queues.held_we.next = self.wpend.val().held_v;
                    self.pick.set_v.next = true;
                    if self.wfx.val().flush_v {
                        self.phase.d.next = 4.into();
                        self.fl_conn.d.next = self.w.q.val().conn;
                        self.fl_all.d.next = self.wfx.val().flush_all;
                        self.fl_err.d.next = self.wfx.val().flush_err;
                    }
                }
            }
        } else {
            // Flush: one queued command completes per cycle, with the flush's status.
            self.newc.next = self.flush.newc.val();
            self.conn_ram.write_address.next = bit_cast::<16, 8>(self.fl_conn.q.val());
            self.cpl_push.next = self.flush.push.val();
            self.conn_ram.write_enable.next = self.flush.push.val();
            if self.flush.done.val() {
                self.phase.d.next = 0.into();
            }
        }
        // Last, after every branch has changed them (a combinational block reads a signal as
        // it stands at the statement: an earlier copy would miss the changes).
        self.conn_ram.write_data.next = self.newc.val();
        if self.sweep.q.val() {
            self.conn_ram.write_data.next = self.k_zero_word.val();
        }
        self.cpl.next = self.fxc.val();
        if self.phase.q.val() == 4 {
            self.cpl.next = self.flush.cpl.val();
        }
        if self.reset.val() {
            self.phase.d.next = 0.into();
            self.psent.d.next = false;
            self.sweep.d.next = true;
            self.sweep_addr.d.next = 0.into();
        }
    }
}
