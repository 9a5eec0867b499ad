//! The controller: the session protocol, one event at a time (model:
//! `sanswitch_model::blocks::engine::controller`, whose documentation gives the behaviour).
//!
//! # Structure
//! - this file: the phases (`Idle`, `Decide`, `Pool`, `Apply`, `Flush`, `Seq`), the
//!   handshakes with the pool manager and the sequencer, and the effects handed out in
//!   `Apply`;
//! - [`CtlPhases`] (`phases.rs`): the phase machine. An `Apply` without a flush takes the
//!   next event in its own cycle (so `Idle` is skipped); a pool request whose answer
//!   nothing reads (continuation 0) is posted: `Apply` follows once it is taken, and its
//!   answer is dropped when it comes;
//! - [`CtlEvent`] (`event.rs`): the event taken in `Idle` and kept while it is handled,
//!   chosen by [`CtlPick`] (`pick.rs`: priority, then a round-robin pump over the
//!   connections' work bits, which it keeps);
//! - [`CtlState`] (`state.rs`): the state RAMs, a word per connection and the send, receive
//!   and held-payload queues' entries ([`CtlQueues`], `queues.rs`; a send's entry made by
//!   [`SendEntry`], `send_entry.rs`), written Free after
//!   reset by [`CtlSweep`] (`sweep.rs`);
//! - [`CtlFlush`] (`flush.rs`): a flush's step, one completion per cycle, on the flush
//!   kept by [`CtlFlushKind`] (`flush_kind.rs`);
//! - [`CtlDecide`] (`decide.rs`): the decision on the event in hand and the registers that
//!   keep it (the event as handled so far, the next step, the effects made), from these:
//! - [`CtlStart`] (`start.rs`): the first decision on an event, the large ones in
//!   [`CtlRx`] (`rx.rs`: a header), [`CtlDlv`] (`dlv.rs`: a finished delivery), [`CtlCmd`]
//!   (`cmd.rs`: a command) and [`CtlPump`] (`pump.rs`: a pump, its step chosen by
//!   [`PumpStep`], `pump_step.rs`, which [`CtlZSeq`] also reads);
//! - [`CtlCont`] (`cont.rs`): the decision on a pool manager's answer, by continuation in
//!   [`CtlSession`] (`session.rs`), [`CtlRecv`] (`recv.rs`), [`CtlTxCont`] (`txcont.rs`);
//!   message headers through [`HdrWords`] (`hdr_words.rs`);
//! - [`CtlTail`] (`tail.rs`): the tails both share (abort, re-post, the pump's last steps).
//! - the zero-copy paths: [`CtlZStart`] (`zstart.rs`: a transfer's end, the pump's
//!   zero-copy steps), [`CtlZMsg`] and [`CtlZPool`] (`zmsg.rs`, `zpool.rs`, inside
//!   [`CtlCont`]), [`CtlZSeq`] (`zseq.rs`: the sequencer's answers), and [`CtlSeqCmd`]
//!   (`seq_cmd.rs`: the sequencer command's operands, read at the port).
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
//! - `reset` (in): synchronous; the controller goes idle and the state RAM is swept Free,
//!   one connection per cycle, before an event is taken ([`CtlSweep`]); the queue RAMs are
//!   not cleared (a connection's word says what its queues hold).

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

mod cmd;
mod cont;
mod decide;
mod dlv;
mod event;
mod flush;
mod flush_kind;
mod hdr_words;
mod inline;
mod phases;
mod pick;
mod pump;
mod pump_step;
mod queues;
mod recv;
mod rx;
mod send_entry;
mod seq_cmd;
mod session;
mod start;
mod state;
mod sweep;
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
pub use event::CtlEvent;
pub use flush::CtlFlush;
pub use flush_kind::CtlFlushKind;
pub use hdr_words::HdrWords;
pub use inline::CtlInline;
pub use phases::CtlPhases;
pub use pick::CtlPick;
pub use pump::CtlPump;
pub use pump_step::PumpStep;
pub use queues::CtlQueues;
pub use recv::CtlRecv;
pub use rx::CtlRx;
pub use send_entry::SendEntry;
pub use seq_cmd::CtlSeqCmd;
pub use session::CtlSession;
pub use start::CtlStart;
pub use state::CtlState;
pub use sweep::CtlSweep;
pub use tail::CtlTail;
pub use txcont::CtlTxCont;
pub use zmsg::CtlZMsg;
pub use zpool::CtlZPool;
pub use zseq::CtlZSeq;
pub use zstart::CtlZStart;

use super::records::{
    CmdRec, ConnWord, CplRec, DlvJob, Fx, HdrRec, PoolReq, PoolResp, SentRec, SeqCmd, SeqRsp,
    TxJob, Work, XferRec,
};

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
    intake: CtlEvent,
    state: CtlState,
    decide: CtlDecide,
    flush: CtlFlush,
    flush_kind: CtlFlushKind,
    phases: CtlPhases,
    seq_cmd_of: CtlSeqCmd,
    w: Signal<Local, Work>,
    wfx: Signal<Local, Fx>,
    newc: Signal<Local, ConnWord>,
    /// Apply hands the effects out this cycle: every FIFO they go to has room.
    room: Signal<Local, Bit>,
    applied: Signal<Local, Bit>,
    next_phase: Signal<Local, Bits<3>>,
}

impl Controller {
    pub fn new(p: &EngineParams) -> Self {
        Controller {
            intake: CtlEvent::new(p.connections as usize),
            state: CtlState::new(p),
            decide: CtlDecide::new(p),
            ..Default::default()
        }
    }
}

impl Logic for Controller {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, intake, state, decide, phases, flush_kind);
        self.intake.reset.next = self.reset.val();
        self.state.reset.next = self.reset.val();
        self.phases.reset.next = self.reset.val();
        self.decide.reset.next = self.reset.val();
        self.w.next = self.decide.w.val();
        self.wfx.next = self.w.val().fx;

        self.intake.ovr_valid.next = self.ovr_valid.val();
        self.intake.ovr_conn.next = self.ovr_conn.val();
        self.intake.down_valid.next = self.down_valid.val();
        self.intake.down_conn.next = self.down_conn.val();
        self.intake.hdr_valid.next = self.hdr_valid.val();
        self.intake.hdr.next = self.hdr.val();
        self.intake.sent_valid.next = self.sent_valid.val();
        self.intake.sent.next = self.sent.val();
        self.intake.dlv_valid.next = self.dlv_valid.val();
        self.intake.dlv.next = self.dlv.val();
        self.intake.cmd_valid.next = self.cmd_valid.val();
        self.intake.cmd.next = self.cmd.val();
        self.intake.xfer_valid.next = self.xfer_valid.val();
        self.intake.xfer.next = self.xfer.val();
        self.intake.set_conn.next = self.w.val().conn;
        self.intake.set_work.next = self.wfx.val().work;
        self.take_ovr.next = self.intake.take_ovr.val();
        self.take_down.next = self.intake.take_down.val();
        self.take_hdr.next = self.intake.take_hdr.val();
        self.take_sent.next = self.intake.take_sent.val();
        self.take_dlv.next = self.intake.take_dlv.val();
        self.take_cmd.next = self.intake.take_cmd.val();
        self.take_xfer.next = self.intake.take_xfer.val();

        // The connection's state, read for the event (Decide), the flush (Flush) or the
        // connection in hand; written back in Apply and Flush.
        // The flush's connection is its event's (`CtlState::rd_conn`).
        self.state.rd_conn.next = self.intake.ev.val().conn;
        self.state.fl_conn.next = self.flush_kind.fl_conn.val();
        self.state.w.next = self.w.val();
        self.state.cmd.next = self.intake.ev.val().cmd;
        self.newc.next = self.w.val().c;
        if self.decide.job_v.val() & self.decide.job.val().pooled {
            // Every message carries our posted count.
            self.newc.next.adv_due = false;
        }
        self.state.word.next = self.newc.val();
        self.state.fl_word.next = self.flush.newc.val();

        // The decision on the event in hand, loaded in the phase that takes it.
        self.decide.at.next = self.phases.at.val();
        self.decide.ev.next = self.intake.ev.val();
        self.decide.cw.next = self.state.cw.val();
        self.decide.sq_f.next = self.state.sq_f.val();
        self.decide.rq_f.next = self.state.rq_f.val();
        self.decide.held_f.next = self.state.held_f.val();
        self.decide.sq_h.next = self.state.sq_h.val();
        self.decide.rq_h.next = self.state.rq_h.val();
        self.decide.resp.next = self.resp.val();
        self.decide.rsp.next = self.rsp.val();
        self.decide.ld_start.next = self.phases.at.val().get_bit(1);
        self.decide.ld_cont.next = self.phases.ld_cont.val();
        self.decide.ld_zseq.next = self.phases.ld_zseq.val();
        // Where a decision goes next: a pool request, a sequencer command, or Apply.
        self.next_phase.next = 3.into();
        if self.decide.pool.val() {
            self.next_phase.next = 2.into();
        } else if self.decide.seq.val() {
            self.next_phase.next = 5.into();
        }
        self.phases.next_phase.next = self.next_phase.val();

        // The flush's step (read only in Flush).
        self.flush.cw.next = self.state.cw.val();
        self.flush.sq_f.next = self.state.sq_f.val();
        self.flush.rq_f.next = self.state.rq_f.val();
        self.flush.conn.next = self.flush_kind.fl_conn.val();
        self.flush.all.next = self.flush_kind.fl_all.val();
        self.flush.err.next = self.flush_kind.fl_err.val();
        self.flush.can_push.next = self.cpl_can_push.val();
        self.state.fl_write.next = self.phases.at.val().get_bit(4) & self.flush.push.val();

        // Apply: the effects go out together, once every FIFO they go to has room; the
        // connection's word, queues and work bit are written (a command naming no
        // connection has none).
        self.room.next = (!self.decide.cpl_v.val() | self.cpl_can_push.val())
            & (!self.decide.job_v.val() | self.job_can_push.val())
            & (!self.decide.dlv_v.val() | self.dj_can_push.val())
            & (!self.wfx.val().down | self.down_can_push.val());
        self.applied.next = self.phases.at.val().get_bit(3) & self.room.val() & self.w.val().conn_v;
        // The phases: the event an idle controller takes, or one ending an Apply without
        // a flush takes in the same cycle; the handshakes (`CtlPhases`).
        self.phases.sweeping.next = self.state.sweeping.val();
        self.phases.taken.next = self.intake.taken.val();
        self.phases.room.next = self.room.val();
        self.phases.flush.next = self.applied.val() & self.wfx.val().flush_v;
        self.phases.flush_done.next = self.flush.done.val();
        self.phases.cont0.next = self.decide.step.val().cont == 0;
        self.phases.zpost.next = self.decide.step.val().zpost;
        self.phases.fwd.next = self.decide.fwd.val();
        self.phases.pool_fwd_ok.next = self.decide.pool_fwd_ok.val();
        self.decide.pfwd.next = self.phases.pfwd.val();
        self.phases.pool_ready.next = self.pool_ready.val();
        self.phases.seq_ready.next = self.seq_ready.val();
        self.phases.resp_valid.next = self.resp_valid.val();
        self.phases.rsp_valid.next = self.rsp_valid.val();
        self.intake.enable.next = self.phases.enable.val();
        self.state.apply.next = self.applied.val();
        self.intake.set_v.next = self.applied.val();
        self.adm_valid.next = self.applied.val() & self.wfx.val().adm_v;
        self.down_push.next = self.applied.val() & self.wfx.val().down;
        self.adm_conn.next = self.w.val().conn;
        self.adm_post.next = self.wfx.val().adm_post;
        self.adm_open.next = self.wfx.val().adm_open;
        self.adm_buf.next = self.wfx.val().adm_buf;
        self.job_push.next =
            self.phases.at.val().get_bit(3) & self.room.val() & self.decide.job_v.val();
        self.job.next = self.decide.job.val();
        self.dj_push.next =
            self.phases.at.val().get_bit(3) & self.room.val() & self.decide.dlv_v.val();
        self.dj.next = self.decide.dlv.val();
        self.cpl_push.next =
            self.phases.at.val().get_bit(3) & self.room.val() & self.decide.cpl_v.val();
        self.cpl.next = self.decide.cpl.val();
        if self.phases.at.val().get_bit(4) {
            // A flush: one queued command completes per cycle, with the flush's status.
            self.cpl_push.next = self.flush.push.val();
            self.cpl.next = self.flush.cpl.val();
        }
        // The pool manager's request and the sequencer's command: offered until taken.
        self.pool_valid.next = self.phases.pool_valid.val();
        self.pool_req.next = self.decide.pool_req.val();
        self.seq_valid.next = self.phases.seq_valid.val();
        self.seq_cmd_of.act.next = self.decide.step.val();
        self.seq_cmd_of.w.next = self.w.val();
        if self.decide.fwd.val() {
            self.seq_cmd_of.act.next = self.decide.fwd_act.val();
            self.seq_cmd_of.w.next = self.decide.fwd_w.val();
        }
        self.seq_cmd_of.hdr.next = self.intake.ev.val().hdr;
        self.seq_cmd_of.sq_f.next = self.state.sq_h.val();
        self.seq_cmd_of.rq_f.next = self.state.rq_h.val();
        self.seq_cmd.next = self.seq_cmd_of.cmd.val();
        self.take_rsp.next = self.phases.take_rsp.val();

        // A flush's connection and kind, kept while it runs.
        self.flush_kind.load.next = self.applied.val() & self.wfx.val().flush_v;
        self.flush_kind.conn.next = self.w.val().conn;
        self.flush_kind.all.next = self.wfx.val().flush_all;
        self.flush_kind.err.next = self.wfx.val().flush_err;
    }
}
