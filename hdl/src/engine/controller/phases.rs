//! The controller's phase machine (the model's `Phase` and `Controller::clock`): which phase
//! the event in hand is in, the handshakes with the pool manager and the sequencer, and the
//! answers still owed to posted pool requests.
//!
//! # Phases
//! 0 `Idle` → 1 `Decide` → (2 `Pool` | 5 `Seq`)* → 3 `Apply` → (4 `Flush`) → `Idle`. An
//! `Apply` that ends without a flush takes the next event in its own cycle (`enable`) and
//! goes to `Decide` at once. A pool request whose continuation is 0 (nothing reads its
//! answer) is *posted*: `Apply` follows the cycle it is taken, and its answer is dropped
//! when it comes.
//!
//! # Ports
//! - `sweeping` (in): the state RAM is being swept after reset; no event is taken.
//! - `enable` (out): an event may be taken this cycle (`Idle`, or an `Apply` that ends this
//!   cycle without a flush); `taken` (in): one was.
//! - `next_phase` (in): where the decision in hand goes next (2, 5 or 3).
//! - `cont0` (in): the pool request in hand continues with 0 (its answer is not read).
//! - `pool_valid`, `seq_valid` (out) / `pool_ready`, `seq_ready` (in): the request or
//!   command offered until taken.
//! - `resp_valid`, `rsp_valid` (in) / `ld_cont`, `ld_zseq` (out): an answer for the event in
//!   hand, to load its decision (a dropped answer is not one).
//! - `room`, `flush`, `flush_done` (in): `Apply`'s effects can go out; they start a flush;
//!   the flush is over.
//! - `phase` (out, register).
//! - `reset` (in): synchronous; `Idle`, nothing sent, nothing to drop.
//!
//! Timing: `enable`, `pool_valid`, `seq_valid`, `ld_cont` and `ld_zseq` are combinational
//! from the registers and `room`, `flush`, the ready and answer inputs; the registers load
//! at the clock edge.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CtlPhases {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub sweeping: Signal<In, Bit>,
    pub taken: Signal<In, Bit>,
    pub next_phase: Signal<In, Bits<3>>,
    pub cont0: Signal<In, Bit>,
    pub pool_ready: Signal<In, Bit>,
    pub seq_ready: Signal<In, Bit>,
    pub resp_valid: Signal<In, Bit>,
    pub rsp_valid: Signal<In, Bit>,
    pub room: Signal<In, Bit>,
    pub flush: Signal<In, Bit>,
    pub flush_done: Signal<In, Bit>,
    pub enable: Signal<Out, Bit>,
    pub pool_valid: Signal<Out, Bit>,
    pub seq_valid: Signal<Out, Bit>,
    pub ld_cont: Signal<Out, Bit>,
    pub ld_zseq: Signal<Out, Bit>,
    pub phase: Signal<Out, Bits<3>>,
    ph: DFF<Bits<3>>,
    /// The request to the pool manager or the sequencer has been taken; its answer is due.
    psent: DFF<Bit>,
    /// Answers still to come for posted pool requests. The pool answers in order, so these
    /// are the next ones. Two bits: a posted request takes three cycles at least (pick,
    /// Decide, Pool), and the pool answers within that many of each.
    drop: DFF<Bits<2>>,
    /// A posted pool request is taken this cycle.
    posted: Signal<Local, Bit>,
    /// A posted request's answer comes (and is dropped) this cycle.
    dropped: Signal<Local, Bit>,
}

impl Logic for CtlPhases {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ph, psent, drop);
        self.phase.next = self.ph.q.val();
        self.pool_valid.next = (self.ph.q.val() == 2) & !self.psent.q.val();
        self.seq_valid.next = (self.ph.q.val() == 5) & !self.psent.q.val();
        self.posted.next = self.pool_valid.val() & self.pool_ready.val() & self.cont0.val();
        self.dropped.next = (self.drop.q.val() != 0) & self.resp_valid.val();
        self.ld_cont.next = (self.ph.q.val() == 2)
            & self.psent.q.val()
            & self.resp_valid.val()
            & !self.dropped.val();
        self.ld_zseq.next = (self.ph.q.val() == 5) & self.psent.q.val() & self.rsp_valid.val();
        // The event's word is read in Decide, after Apply's write.
        self.enable.next = !self.sweeping.val()
            & ((self.ph.q.val() == 0)
                | ((self.ph.q.val() == 3) & self.room.val() & !self.flush.val()));

        if self.posted.val() & !self.dropped.val() {
            self.drop.d.next = self.drop.q.val() + 1;
        } else if !self.posted.val() & self.dropped.val() {
            self.drop.d.next = self.drop.q.val() - 1;
        }

        if self.sweeping.val() {
            // No event until every connection's word reads Free.
        } else if (self.ph.q.val() == 0) & self.taken.val() {
            self.ph.d.next = 1.into();
        } else if self.ph.q.val() == 1 {
            self.psent.d.next = false;
            self.ph.d.next = self.next_phase.val();
        } else if (self.ph.q.val() == 2) | (self.ph.q.val() == 5) {
            if (self.pool_valid.val() & self.pool_ready.val())
                | (self.seq_valid.val() & self.seq_ready.val())
            {
                self.psent.d.next = true;
            }
            if self.ld_cont.val() | self.ld_zseq.val() {
                self.psent.d.next = false;
                self.ph.d.next = self.next_phase.val();
            }
            if self.posted.val() {
                // The event as decided is what Apply writes.
                self.psent.d.next = false;
                self.ph.d.next = 3.into();
            }
        } else if (self.ph.q.val() == 3) & self.room.val() {
            self.ph.d.next = 0.into();
            if self.taken.val() {
                self.ph.d.next = 1.into();
            }
            if self.flush.val() {
                self.ph.d.next = 4.into();
            }
        } else if (self.ph.q.val() == 4) & self.flush_done.val() {
            self.ph.d.next = 0.into();
        }
        if self.reset.val() {
            self.ph.d.next = 0.into();
            self.psent.d.next = false;
            self.drop.d.next = 0.into();
        }
    }
}
