//! The controller's phase machine (the model's `Phase` and `Controller::clock`): which phase
//! the event in hand is in, and the handshakes with the pool manager and the sequencer.
//!
//! # Phases
//! 0 `Idle` → 1 `Decide` → (2 `Pool` | 5 `Seq`)* → 3 `Apply` → (4 `Flush`) → `Idle`. An
//! `Apply` that ends without a flush takes the next event in its own cycle (`enable`) and
//! goes to `Decide` at once. A pool request whose continuation is 0 (nothing reads its
//! answer) is *posted*: `Apply` follows the cycle it is taken.
//!
//! A posted request's answer needs no count to be told from an event's own. The pool
//! answers two cycles after it takes a request (its `m_axis_resp_tready` is tied high, so
//! never later), and an answer is loaded only in `Pool` after the request is taken
//! (`psent`), which the next event reaches four cycles after a posted request at the
//! soonest: `Apply` (the pick), `Decide`, `Pool` (its request taken), then waiting. The
//! model counts the posted answers still to come and asserts that none reaches an event
//! waiting for its own (`Controller::owed`).
//!
//! A sequencer command can be posted too (`zpost`: the DEREGISTER of a region only this
//! engine's RDMA operations used, after its transfer). Its answer is told apart by a bit
//! (`sowed`): the sequencer's answer waits for `take_rsp`, and the sequencer may take the
//! next command while it waits, so the next answer can come while the next event waits for
//! its own. The sequencer answers in order, and takes a command only once the last one's
//! answer is out, so one bit is enough (the model asserts it). The pool request decided as
//! a posted command is taken (the owed message's `ALLOC` after a transfer's `DEREGISTER`)
//! is offered in that same cycle (`pfwd`) when its answer is read; taken then, the phase
//! moves to `Pool` waiting for the answer. A posted pool request is not forwarded, so
//! `posted` counts only `Pool`'s own offer.
//!
//! # Ports
//! - `sweeping` (in): the state RAM is being swept after reset; no event is taken.
//! - `enable` (out): an event may be taken this cycle (`Idle`, or an `Apply` that ends this
//!   cycle without a flush); `taken` (in): one was.
//! - `next_phase` (in): where the decision in hand goes next (2, 5 or 3).
//! - `cont0` (in): the pool request in hand continues with 0 (its answer is not read).
//! - `zpost` (in): the sequencer command in hand is posted (its answer is not read).
//! - `fwd` (in): the decision on this cycle's answer is a sequencer command offered now
//!   (`seq_valid`); taken now, its own answer is waited for from the next cycle.
//! - `pool_fwd_ok` (in): the decision in hand is a pool request whose answer is read;
//!   `pfwd` (out): it is offered now, a posted sequencer command being taken (the port
//!   carries the undelayed decision: `CtlDecide`'s `pool_req`).
//! - `pool_valid`, `seq_valid` (out) / `pool_ready`, `seq_ready` (in): the request or
//!   command offered until taken.
//! - `resp_valid`, `rsp_valid` (in) / `ld_cont`, `ld_zseq` (out): an answer for the event in
//!   hand, to load its decision (for a posted sequencer command, `ld_zseq` comes the cycle
//!   the command is taken). `take_rsp` (out): the sequencer's answer is taken: the event's
//!   own, or a posted command's, dropped.
//! - `room`, `flush`, `flush_done` (in): `Apply`'s effects can go out; they start a flush;
//!   the flush is over.
//! - `phase` (out, register).
//! - `at` (out, register): the phase one-hot (bit `k` set in phase `k`, none in `Idle`), so that what
//!   a phase selects (the state RAM's read address first of all) takes one LUT, not a
//!   decode of `phase` and then a multiplexer.
//! - `reset` (in): synchronous; `Idle`, nothing sent, no answer owed.
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
    pub zpost: Signal<In, Bit>,
    pub fwd: Signal<In, Bit>,
    pub pool_fwd_ok: Signal<In, Bit>,
    pub pfwd: Signal<Out, Bit>,
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
    pub take_rsp: Signal<Out, Bit>,
    pub phase: Signal<Out, Bits<3>>,
    pub at: Signal<Out, Bits<6>>,
    ph: DFF<Bits<3>>,
    /// `ph` one-hot, loaded at the same edges.
    ph1h: DFF<Bits<6>>,
    /// The request to the pool manager or the sequencer has been taken; its answer is due.
    psent: DFF<Bit>,
    /// A posted sequencer command's answer is still to come.
    sowed: DFF<Bit>,
    /// The pool request in hand is offered (not one forwarded).
    pool_offer: Signal<Local, Bit>,
    /// The sequencer command in hand is offered (not one forwarded).
    seq_offer: Signal<Local, Bit>,
    /// A posted pool request is taken this cycle.
    posted: Signal<Local, Bit>,
    /// A posted sequencer command is taken this cycle.
    seq_posted: Signal<Local, Bit>,
    /// The event's own answer from the sequencer comes this cycle.
    own_rsp: Signal<Local, Bit>,
}

impl Logic for CtlPhases {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ph, ph1h, psent, sowed);
        self.phase.next = self.ph.q.val();
        self.at.next = self.ph1h.q.val();
        self.pool_offer.next = (self.ph.q.val() == 2) & !self.psent.q.val();
        self.seq_offer.next = (self.ph.q.val() == 5) & !self.psent.q.val();
        self.seq_valid.next = self.seq_offer.val() | self.fwd.val();
        self.seq_posted.next = self.seq_offer.val() & self.seq_ready.val() & self.zpost.val();
        self.pfwd.next = self.seq_posted.val() & self.pool_fwd_ok.val();
        self.pool_valid.next = self.pool_offer.val() | self.pfwd.val();
        self.posted.next = self.pool_offer.val() & self.pool_ready.val() & self.cont0.val();
        self.ld_cont.next = (self.ph.q.val() == 2) & self.psent.q.val() & self.resp_valid.val();
        self.own_rsp.next = (self.ph.q.val() == 5)
            & self.psent.q.val()
            & self.rsp_valid.val()
            & !self.sowed.q.val();
        self.ld_zseq.next = self.own_rsp.val() | self.seq_posted.val();
        self.take_rsp.next = self.own_rsp.val() | (self.sowed.q.val() & self.rsp_valid.val());
        if self.seq_posted.val() {
            self.sowed.d.next = true;
        } else if self.rsp_valid.val() {
            self.sowed.d.next = false;
        }
        // The event's word is read in Decide, after Apply's write.
        self.enable.next = !self.sweeping.val()
            & ((self.ph.q.val() == 0)
                | ((self.ph.q.val() == 3) & self.room.val() & !self.flush.val()));

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
                // A command or request forwarded and taken: its answer is due
                // (`next_phase` is 5 or 2).
                self.psent.d.next = (self.fwd.val() & self.seq_ready.val())
                    | (self.pfwd.val() & self.pool_ready.val());
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
            self.sowed.d.next = false;
        }
        // Idle has no bit (bit 0 stays clear), so the one-hot powers up equal to `ph`.
        self.ph1h.d.next = 0.into();
        if self.ph.d.val() == 1 {
            self.ph1h.d.next = 2.into();
        } else if self.ph.d.val() == 2 {
            self.ph1h.d.next = 4.into();
        } else if self.ph.d.val() == 3 {
            self.ph1h.d.next = 8.into();
        } else if self.ph.d.val() == 4 {
            self.ph1h.d.next = 16.into();
        } else if self.ph.d.val() == 5 {
            self.ph1h.d.next = 32.into();
        }
    }
}

#[cfg(test)]
mod tests {
    //! Directed runs of the phase machine, for the timings the engine's traffic reaches
    //! rarely or never: an answer in every phase but the one that reads it, a posted
    //! request's answer overlapping the next event, the sweep, a flush.
    use super::*;

    /// One cycle's inputs, all low unless set.
    #[derive(Clone, Copy, Default)]
    struct I {
        reset: bool,
        sweeping: bool,
        taken: bool,
        next_phase: u8,
        cont0: bool,
        zpost: bool,
        fwd: bool,
        pool_fwd_ok: bool,
        pool_ready: bool,
        seq_ready: bool,
        resp_valid: bool,
        rsp_valid: bool,
        room: bool,
        flush: bool,
        flush_done: bool,
    }

    /// One cycle's outputs, before the clock edge.
    #[derive(Debug, Default, PartialEq)]
    struct O {
        phase: u8,
        enable: bool,
        pool_valid: bool,
        pfwd: bool,
        seq_valid: bool,
        ld_cont: bool,
        ld_zseq: bool,
        take_rsp: bool,
    }

    struct Dut(CtlPhases);

    impl Dut {
        fn new() -> Self {
            let mut p = CtlPhases::default();
            p.connect_all();
            let mut d = Dut(p);
            // Powered up without a reset: the one-hot already agrees (checked in `cycle`).
            d.cycle(I::default());
            d.cycle(I { reset: true, ..I::default() });
            d
        }

        /// Apply `i`, read the outputs, then clock.
        fn cycle(&mut self, i: I) -> O {
            let p = &mut self.0;
            p.reset.next = i.reset;
            p.sweeping.next = i.sweeping;
            p.taken.next = i.taken;
            p.next_phase.next = (i.next_phase as u64).into();
            p.cont0.next = i.cont0;
            p.zpost.next = i.zpost;
            p.fwd.next = i.fwd;
            p.pool_fwd_ok.next = i.pool_fwd_ok;
            p.pool_ready.next = i.pool_ready;
            p.seq_ready.next = i.seq_ready;
            p.resp_valid.next = i.resp_valid;
            p.rsp_valid.next = i.rsp_valid;
            p.room.next = i.room;
            p.flush.next = i.flush;
            p.flush_done.next = i.flush_done;
            assert!(simulate(p, 100), "CtlPhases settles");
            // Every phase read from `at` is the phase: the one-hot agrees with the code
            // in every cycle of every run, power-up included.
            let ph = p.phase.val().index();
            let one_hot = if ph == 0 { 0 } else { 1u64 << ph };
            assert_eq!(p.at.val().index() as u64, one_hot, "at vs phase {ph}");
            let o = O {
                phase: p.phase.val().index() as u8,
                enable: p.enable.val(),
                pool_valid: p.pool_valid.val(),
                pfwd: p.pfwd.val(),
                seq_valid: p.seq_valid.val(),
                ld_cont: p.ld_cont.val(),
                ld_zseq: p.ld_zseq.val(),
                take_rsp: p.take_rsp.val(),
            };
            for level in [true, false] {
                p.clock.next = Clock::from(level);
                assert!(simulate(p, 100));
            }
            o
        }

        /// From `Idle`: take an event and decide it goes to `next` (2 or 5).
        fn start(&mut self, next: u8) {
            let o = self.cycle(I { taken: true, ..I::default() });
            assert_eq!(o, O { phase: 0, enable: true, ..O::default() });
            let o = self.cycle(I { next_phase: next, ..I::default() });
            assert_eq!(o, O { phase: 1, ..O::default() });
        }
    }

    #[test]
    fn a_pool_request_waits_for_its_answer_and_loads_it() {
        let mut d = Dut::new();
        d.start(2);
        // Not taken yet: offered again; an answer now is not this event's.
        let o = d.cycle(I { next_phase: 2, resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, pool_valid: true, ..O::default() });
        let o = d.cycle(I { next_phase: 2, pool_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 2, pool_valid: true, ..O::default() });
        // Taken: no longer offered; waiting.
        let o = d.cycle(I { next_phase: 2, ..I::default() });
        assert_eq!(o, O { phase: 2, ..O::default() });
        // The answer continues to a second request, which is offered afresh.
        let o = d.cycle(I { next_phase: 2, resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, ld_cont: true, ..O::default() });
        let o = d.cycle(I { next_phase: 3, pool_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 2, pool_valid: true, ..O::default() });
        let o = d.cycle(I { next_phase: 3, resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, ld_cont: true, ..O::default() });
        // Apply waits for room, then ends; nothing taken: Idle.
        let o = d.cycle(I::default());
        assert_eq!(o, O { phase: 3, ..O::default() });
        let o = d.cycle(I { room: true, ..I::default() });
        assert_eq!(o, O { phase: 3, enable: true, ..O::default() });
        assert_eq!(d.cycle(I::default()).phase, 0);
    }

    #[test]
    fn a_posted_request_goes_to_apply_and_its_answer_reaches_no_event() {
        let mut d = Dut::new();
        d.start(2);
        let o = d.cycle(I { next_phase: 2, cont0: true, pool_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 2, pool_valid: true, ..O::default() });
        // Apply takes the next event in its own cycle, for the pool again.
        let o = d.cycle(I { room: true, taken: true, ..I::default() });
        assert_eq!(o, O { phase: 3, enable: true, ..O::default() });
        // The posted answer comes two cycles after its request was taken: in Decide.
        let o = d.cycle(I { next_phase: 2, resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 1, ..O::default() });
        // Even a late one, in Pool before this event's request is taken, is not loaded.
        let o = d.cycle(I { next_phase: 2, pool_ready: true, resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, pool_valid: true, ..O::default() });
        let o = d.cycle(I { next_phase: 3, resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, ld_cont: true, ..O::default() });
    }

    #[test]
    fn a_sequencer_command_waits_for_its_report() {
        let mut d = Dut::new();
        d.start(5);
        let o = d.cycle(I { next_phase: 5, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, seq_valid: true, ..O::default() });
        // A posted-looking continuation means nothing to the sequencer.
        let o = d.cycle(I { next_phase: 5, cont0: true, seq_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 5, seq_valid: true, ..O::default() });
        // A pool answer is not the sequencer's report.
        let o = d.cycle(I { next_phase: 5, resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ..O::default() });
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ld_zseq: true, take_rsp: true, ..O::default() });
        assert_eq!(d.cycle(I::default()).phase, 3);
    }

    #[test]
    fn a_posted_sequencer_command_goes_on_and_its_answer_is_dropped() {
        let mut d = Dut::new();
        d.start(5);
        // Posted: the decision on it is loaded the cycle it is taken, and it goes to Pool.
        let o = d.cycle(I { next_phase: 2, zpost: true, seq_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 5, seq_valid: true, ld_zseq: true, ..O::default() });
        let o = d.cycle(I { next_phase: 2, pool_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 2, pool_valid: true, ..O::default() });
        // The answer comes and is taken, in Pool; nothing loads it.
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, take_rsp: true, ..O::default() });
        // Owed no more: the pool's answer is the event's.
        let o = d.cycle(I { next_phase: 3, resp_valid: true, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, ld_cont: true, ..O::default() });
    }

    #[test]
    fn a_posted_answer_that_comes_while_the_next_command_waits_is_not_its_answer() {
        let mut d = Dut::new();
        d.start(5);
        let o = d.cycle(I { next_phase: 5, zpost: true, seq_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 5, seq_valid: true, ld_zseq: true, ..O::default() });
        // The next command, not posted, is taken before the posted one's answer is out.
        let o = d.cycle(I { next_phase: 5, seq_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 5, seq_valid: true, ..O::default() });
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, take_rsp: true, ..O::default() });
        let o = d.cycle(I { next_phase: 3, ..I::default() });
        assert_eq!(o, O { phase: 5, ..O::default() });
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ld_zseq: true, take_rsp: true, ..O::default() });
        assert_eq!(d.cycle(I::default()).phase, 3);
    }

    #[test]
    fn a_posted_command_taken_as_the_last_ones_answer_is_taken_stays_owed() {
        let mut d = Dut::new();
        d.start(5);
        let o = d.cycle(I { next_phase: 5, zpost: true, seq_ready: true, ..I::default() });
        assert!(o.ld_zseq);
        // A second posted command is taken in the cycle the first one's answer is taken.
        let o = d.cycle(I {
            next_phase: 5,
            zpost: true,
            seq_ready: true,
            rsp_valid: true,
            ..I::default()
        });
        assert_eq!(
            o,
            O { phase: 5, seq_valid: true, ld_zseq: true, take_rsp: true, ..O::default() }
        );
        // Its answer is owed: a third command's wait does not load it.
        let o = d.cycle(I { next_phase: 5, seq_ready: true, ..I::default() });
        assert!(o.seq_valid && !o.ld_zseq);
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, take_rsp: true, ..O::default() });
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ld_zseq: true, take_rsp: true, ..O::default() });
    }

    #[test]
    fn a_command_forwarded_on_a_pool_answer_and_taken_waits_for_its_own_answer() {
        let mut d = Dut::new();
        d.start(2);
        d.cycle(I { next_phase: 2, pool_ready: true, ..I::default() });
        d.cycle(I { next_phase: 2, ..I::default() });
        // The pool's answer: the decision on it is a command, offered and taken now.
        let o = d.cycle(I {
            next_phase: 5,
            resp_valid: true,
            fwd: true,
            seq_ready: true,
            ..I::default()
        });
        assert_eq!(o, O { phase: 2, seq_valid: true, ld_cont: true, ..O::default() });
        // Not offered again: its answer is waited for, and loaded when it comes.
        let o = d.cycle(I { next_phase: 3, seq_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ..O::default() });
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, seq_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ld_zseq: true, take_rsp: true, ..O::default() });
        assert_eq!(d.cycle(I::default()).phase, 3);
    }

    #[test]
    fn a_command_forwarded_on_a_sequencer_answer_but_not_taken_is_offered_again() {
        let mut d = Dut::new();
        d.start(5);
        d.cycle(I { next_phase: 5, seq_ready: true, ..I::default() });
        let o = d.cycle(I { next_phase: 5, rsp_valid: true, fwd: true, ..I::default() });
        assert_eq!(
            o,
            O { phase: 5, seq_valid: true, ld_zseq: true, take_rsp: true, ..O::default() }
        );
        // Not taken: offered from the Seq phase as any command, then its answer loads.
        let o = d.cycle(I { next_phase: 3, seq_ready: true, ..I::default() });
        assert_eq!(o, O { phase: 5, seq_valid: true, ..O::default() });
        let o = d.cycle(I { next_phase: 3, ..I::default() });
        assert_eq!(o, O { phase: 5, ..O::default() });
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ld_zseq: true, take_rsp: true, ..O::default() });
        // A forwarded command is never posted: `zpost` (the last step's) changes nothing.
        assert_eq!(d.cycle(I { room: true, ..I::default() }).phase, 3);
        d.start(5);
        d.cycle(I { next_phase: 5, seq_ready: true, ..I::default() });
        let o = d.cycle(I {
            next_phase: 5,
            rsp_valid: true,
            fwd: true,
            zpost: true,
            seq_ready: true,
            ..I::default()
        });
        assert_eq!(
            o,
            O { phase: 5, seq_valid: true, ld_zseq: true, take_rsp: true, ..O::default() }
        );
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ld_zseq: true, take_rsp: true, ..O::default() });
    }

    #[test]
    fn a_pool_request_forwarded_as_a_posted_command_is_taken_waits_for_its_answer() {
        let mut d = Dut::new();
        d.start(5);
        // Offered with the posted command and taken with it; the step register's `cont0`
        // (the command's) does not make it posted.
        let i = I {
            next_phase: 2,
            zpost: true,
            seq_ready: true,
            pool_fwd_ok: true,
            pool_ready: true,
            cont0: true,
            ..I::default()
        };
        let o = d.cycle(i);
        assert_eq!(
            o,
            O {
                phase: 5,
                seq_valid: true,
                ld_zseq: true,
                pool_valid: true,
                pfwd: true,
                ..O::default()
            }
        );
        // Waiting: not offered again; the posted command's answer is dropped, the pool's
        // loaded.
        let o = d.cycle(I { next_phase: 3, pool_ready: true, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, take_rsp: true, ..O::default() });
        let o = d.cycle(I { next_phase: 3, resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, ld_cont: true, ..O::default() });
        assert_eq!(d.cycle(I::default()).phase, 3);
    }

    #[test]
    fn a_pool_request_forwarded_but_not_taken_is_offered_again_and_only_on_a_posted_command() {
        let mut d = Dut::new();
        d.start(5);
        // The posted command not taken: nothing forwarded.
        let o = d.cycle(I { next_phase: 2, zpost: true, pool_fwd_ok: true, ..I::default() });
        assert_eq!(o, O { phase: 5, seq_valid: true, ..O::default() });
        // Taken, the pool not ready: offered from Pool next.
        let i =
            I { next_phase: 2, zpost: true, seq_ready: true, pool_fwd_ok: true, ..I::default() };
        let o = d.cycle(i);
        assert_eq!(
            o,
            O {
                phase: 5,
                seq_valid: true,
                ld_zseq: true,
                pool_valid: true,
                pfwd: true,
                ..O::default()
            }
        );
        let o = d.cycle(I { next_phase: 2, pool_ready: true, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, pool_valid: true, take_rsp: true, ..O::default() });
        let o = d.cycle(I { next_phase: 3, resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 2, ld_cont: true, ..O::default() });
        assert_eq!(d.cycle(I { room: true, ..I::default() }).phase, 3);
        // A command whose answer is read: no pool request goes with it.
        d.start(5);
        let i = I {
            next_phase: 2,
            seq_ready: true,
            pool_fwd_ok: true,
            pool_ready: true,
            ..I::default()
        };
        let o = d.cycle(i);
        assert_eq!(o, O { phase: 5, seq_valid: true, ..O::default() });
        let o = d.cycle(I { next_phase: 2, rsp_valid: true, pool_fwd_ok: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ld_zseq: true, take_rsp: true, ..O::default() });
        assert!(d.cycle(I { next_phase: 2, ..I::default() }).pool_valid);
    }

    #[test]
    fn a_flush_holds_the_next_event_until_it_is_done() {
        let mut d = Dut::new();
        d.start(3);
        let o = d.cycle(I { room: true, flush: true, taken: true, ..I::default() });
        assert_eq!(o, O { phase: 3, ..O::default() });
        for _ in 0..3 {
            let o = d.cycle(I { taken: true, ..I::default() });
            assert_eq!(o, O { phase: 4, ..O::default() });
        }
        let o = d.cycle(I { flush_done: true, ..I::default() });
        assert_eq!(o, O { phase: 4, ..O::default() });
        assert_eq!(d.cycle(I::default()), O { phase: 0, enable: true, ..O::default() });
    }

    #[test]
    fn no_event_is_taken_during_the_sweep_and_reset_returns_to_idle() {
        let mut d = Dut::new();
        let o = d.cycle(I { sweeping: true, taken: true, ..I::default() });
        assert_eq!(o, O::default());
        assert_eq!(d.cycle(I::default()).phase, 0);
        d.start(2);
        let o = d.cycle(I { reset: true, next_phase: 2, pool_ready: true, ..I::default() });
        assert_eq!(o.phase, 2);

        let o = d.cycle(I { resp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 0, enable: true, ..O::default() });
        // Nothing sent survives the reset: the next request is offered afresh.
        d.start(2);
        assert!(d.cycle(I { next_phase: 2, ..I::default() }).pool_valid);
        // Nor an answer owed to a posted sequencer command.
        d.cycle(I { reset: true, ..I::default() });
        d.start(5);
        let o = d.cycle(I { next_phase: 3, zpost: true, seq_ready: true, ..I::default() });
        assert!(o.ld_zseq);
        d.cycle(I { reset: true, ..I::default() });
        d.start(5);
        assert!(d.cycle(I { next_phase: 3, seq_ready: true, ..I::default() }).seq_valid);
        let o = d.cycle(I { next_phase: 3, rsp_valid: true, ..I::default() });
        assert_eq!(o, O { phase: 5, ld_zseq: true, take_rsp: true, ..O::default() });
    }
}
