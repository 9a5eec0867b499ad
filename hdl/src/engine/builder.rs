//! Message builder: each control message onto the SAN send stream (model:
//! `sanswitch_model::blocks::engine::builder`, whose documentation gives the behaviour).
//!
//! # Ports
//! - `job_push`, `job` (in) / `job_can_push` (out): the job FIFO (`JOB_FIFO + 1` entries:
//!   the jobs waiting and the one in progress, its head). A job pushed while the FIFO is
//!   empty and the output register free is on `tx_*` in the same cycle (its first beat
//!   passes the register, unless it is the message's only beat); the next beat to show is
//!   loaded at that edge (the second if `tx_ready` took the first, else the first).
//! - `sent_pop` (in) / `sent_valid`, `sent` (out): the sent FIFO (`SENT_FIFO` entries).
//! - `tx_*`: the SAN send stream (`tx_valid`, `tx_data`, `tx_keep`, `tx_last`, `tx_conn` from
//!   the output register, or while it is empty from `job` and `job_push`, which come from
//!   the controller's registers; `tx_ready` in, on no path to them).
//! - `rd_valid`, `rd_addr`, `rd_len` (out, from registers and the job FIFO's RAM) /
//!   `rd_ready` (in): the host memory read request of the current message's payload.
//! - `rdd_valid`, `rdd_data`, `rdd_keep`, `rdd_last` (in) / `rdd_ready` (out): its data;
//!   `rdd_ready` is combinational from `tx_ready` and `rdd_last`.
//! - `reset` (in): synchronous; nothing in flight.

use rust_hdl::prelude::*;

use super::records::{SentRec, TxJob};
use crate::widgets::LutFifo;

#[derive(LogicBlock)]
pub struct Builder {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub job_push: Signal<In, Bit>,
    pub job: Signal<In, TxJob>,
    pub job_can_push: Signal<Out, Bit>,
    pub sent_pop: Signal<In, Bit>,
    pub sent_valid: Signal<Out, Bit>,
    pub sent: Signal<Out, SentRec>,
    pub tx_ready: Signal<In, Bit>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<64>>,
    pub tx_keep: Signal<Out, Bits<8>>,
    pub tx_last: Signal<Out, Bit>,
    pub tx_conn: Signal<Out, Bits<8>>,
    pub rd_ready: Signal<In, Bit>,
    pub rd_valid: Signal<Out, Bit>,
    pub rd_addr: Signal<Out, Bits<64>>,
    pub rd_len: Signal<Out, Bits<32>>,
    pub rdd_valid: Signal<In, Bit>,
    pub rdd_data: Signal<In, Bits<64>>,
    pub rdd_keep: Signal<In, Bits<8>>,
    pub rdd_last: Signal<In, Bit>,
    pub rdd_ready: Signal<Out, Bit>,
    jobs: LutFifo<TxJob>,
    sents: LutFifo<SentRec>,
    /// The FIFO's head is in progress (its first beat is loaded).
    cur_v: DFF<Bit>,
    k: DFF<Bits<3>>,
    req_due: DFF<Bit>,
    out_v: DFF<Bit>,
    out_data: DFF<Bits<64>>,
    out_keep: DFF<Bits<8>>,
    out_last: DFF<Bit>,
    out_conn: DFF<Bits<8>>,
    load: Signal<Local, Bit>,
    src_v: Signal<Local, Bit>,
    bypass: Signal<Local, Bit>,
    hd: Signal<Local, TxJob>,
    m: Signal<Local, TxJob>,
    kk: Signal<Local, Bits<3>>,
    srec: Signal<Local, SentRec>,
    first: Signal<Local, Bit>,
    word: Signal<Local, Bits<64>>,
    last_fixed: Signal<Local, Bit>,
    dma_ready: Signal<Local, Bit>,
    beat_v: Signal<Local, Bit>,
    beat_last: Signal<Local, Bit>,
    /// The pushed job's first beat is on `tx_*` past the empty output register.
    pass: Signal<Local, Bit>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            clock: Default::default(),
            reset: Default::default(),
            job_push: Default::default(),
            job: Default::default(),
            job_can_push: Default::default(),
            sent_pop: Default::default(),
            sent_valid: Default::default(),
            sent: Default::default(),
            tx_ready: Default::default(),
            tx_valid: Default::default(),
            tx_data: Default::default(),
            tx_keep: Default::default(),
            tx_last: Default::default(),
            tx_conn: Default::default(),
            rd_ready: Default::default(),
            rd_valid: Default::default(),
            rd_addr: Default::default(),
            rd_len: Default::default(),
            rdd_valid: Default::default(),
            rdd_data: Default::default(),
            rdd_keep: Default::default(),
            rdd_last: Default::default(),
            rdd_ready: Default::default(),
            jobs: LutFifo::new(sanswitch_model::blocks::engine::JOB_FIFO + 1),
            sents: LutFifo::new(sanswitch_model::blocks::engine::SENT_FIFO),
            cur_v: Default::default(),
            k: Default::default(),
            req_due: Default::default(),
            out_v: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_last: Default::default(),
            out_conn: Default::default(),
            load: Default::default(),
            src_v: Default::default(),
            bypass: Default::default(),
            hd: Default::default(),
            m: Default::default(),
            kk: Default::default(),
            srec: Default::default(),
            first: Default::default(),
            word: Default::default(),
            last_fixed: Default::default(),
            dma_ready: Default::default(),
            beat_v: Default::default(),
            beat_last: Default::default(),
            pass: Default::default(),
        }
    }
}

impl Logic for Builder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cur_v, k, req_due, out_v, out_data, out_keep, out_last, out_conn);
        clock!(self, clock, jobs, sents);
        self.jobs.reset.next = self.reset.val();
        self.sents.reset.next = self.reset.val();
        self.jobs.push_data.next = self.job.val();
        self.job_can_push.next = self.jobs.can_push.val();
        self.sents.pop.next = self.sent_pop.val();
        self.sent_valid.next = self.sents.valid.val();
        self.sent.next = self.sents.head.val();
        // Outputs show zero when not valid (as the model's do). A job pushed into an idle
        // builder passes the output register with its first beat: a cycle sooner from the
        // controller's decision to the SAN, on no path from `tx_ready`. A message's only
        // beat does not pass: its sent record would need the sent FIFO's room here too.
        self.pass.next = !self.out_v.q.val()
            & !self.jobs.valid.val()
            & self.job_push.val()
            & (self.job.val().nwords != 0)
            & !((self.job.val().nwords == 1) & (self.job.val().pay_len == 0))
            & !self.reset.val();
        self.tx_valid.next = self.out_v.q.val() | self.pass.val();
        self.tx_data.next = 0.into();
        self.tx_keep.next = 0.into();
        self.tx_last.next = false;
        self.tx_conn.next = 0.into();
        if self.pass.val() {
            self.tx_data.next = self.job.val().w0;
            self.tx_keep.next = 0xFF.into();
            self.tx_conn.next = self.job.val().conn;
        }
        if self.out_v.q.val() {
            self.tx_data.next = self.out_data.q.val();
            self.tx_keep.next = self.out_keep.q.val();
            self.tx_last.next = self.out_last.q.val();
            self.tx_conn.next = self.out_conn.q.val();
        }
        // The message in progress is the job FIFO's head, read in place (its LUT RAM's
        // read port): it leaves the FIFO with its last beat, so no register copies it.
        self.hd.next = self.jobs.head.val();
        self.rd_valid.next = self.cur_v.q.val() & self.req_due.q.val();
        self.rd_addr.next = 0.into();
        self.rd_len.next = 0.into();
        if self.cur_v.q.val() & self.req_due.q.val() {
            self.rd_addr.next = self.hd.val().pay_addr;
            self.rd_len.next = self.hd.val().pay_len;
        }

        self.load.next = !self.out_v.q.val() | self.tx_ready.val();
        self.dma_ready.next = self.cur_v.q.val()
            & (self.k.q.val() == self.hd.val().nwords)
            & self.load.val()
            & (!self.rdd_last.val() | self.sents.can_push.val());
        self.rdd_ready.next = self.dma_ready.val();
        if self.out_v.q.val() & self.tx_ready.val() {
            self.out_v.d.next = false;
        }
        if self.cur_v.q.val() & self.req_due.q.val() & self.rd_ready.val() {
            self.req_due.d.next = false;
        }

        // The message a beat comes from: the head, else (the FIFO empty) the job pushed now,
        // whose first beat bypasses the FIFO's read. Only the fields a first beat reads are
        // multiplexed (the header's first word, the lengths, what the sent record carries);
        // the later beats read the head, which by then is that job.
        self.bypass.next = !self.jobs.valid.val() & self.job_push.val();
        self.src_v.next = self.jobs.valid.val() | self.job_push.val();
        self.first.next = !self.cur_v.q.val();
        self.m.next = self.hd.val();
        if self.bypass.val() {
            self.m.next = self.job.val();
        }
        // A first beat taken as it passed leaves the second to load (from the pushed job:
        // the FIFO is empty, so `m` is it).
        self.kk.next = self.k.q.val();
        if self.first.val() {
            self.kk.next = 0.into();
            if self.pass.val() & self.tx_ready.val() {
                self.kk.next = 1.into();
            }
        }
        self.srec.next.conn = self.m.val().conn;
        self.srec.next.buf = self.m.val().buf;
        self.srec.next.pooled = self.m.val().pooled;
        self.srec.next.cpl_v = self.m.val().cpl_v;
        self.srec.next.cpl = self.m.val().cpl;
        self.word.next = self.m.val().w0;
        if self.kk.val() == 1 {
            self.word.next = self.m.val().w1;
        } else if self.kk.val() == 2 {
            self.word.next = self.hd.val().w2;
        } else if self.kk.val() == 3 {
            self.word.next = self.hd.val().w3;
        } else if self.kk.val() == 4 {
            self.word.next = self.hd.val().w4;
        }
        self.last_fixed.next =
            (self.kk.val() + 1 == self.m.val().nwords) & (self.m.val().pay_len == 0);
        self.beat_v.next = false;
        self.beat_last.next = false;
        self.sents.push.next = false;
        self.sents.push_data.next = self.srec.val();
        if self.load.val() & self.src_v.val() {
            self.cur_v.d.next = true;
            if self.first.val() {
                self.k.d.next = self.kk.val();
                self.req_due.d.next = self.m.val().pay_len != 0;
            }
            if self.kk.val() < self.m.val().nwords {
                if !self.last_fixed.val() | self.sents.can_push.val() {
                    self.beat_v.next = true;
                    self.beat_last.next = self.last_fixed.val();
                    self.out_data.d.next = self.word.val();
                    self.out_keep.d.next = 0xFF.into();
                    self.k.d.next = self.kk.val() + 1;
                }
            } else if self.rdd_valid.val() & self.dma_ready.val() {
                self.beat_v.next = true;
                self.beat_last.next = self.rdd_last.val();
                self.out_data.d.next = self.rdd_data.val();
                self.out_keep.d.next = self.rdd_keep.val();
            }
            if self.beat_v.val() {
                self.out_v.d.next = true;
                self.out_last.d.next = self.beat_last.val();
                self.out_conn.d.next = self.srec.val().conn;
                if self.beat_last.val() {
                    self.sents.push.next = true;
                    self.cur_v.d.next = false;
                }
            }
        }
        // A job leaves the FIFO with its last beat; one whose only beat bypassed it never
        // enters.
        self.jobs.pop.next = self.sents.push.val() & !self.bypass.val();
        self.jobs.push.next = self.job_push.val() & !(self.sents.push.val() & self.bypass.val());
        if self.reset.val() {
            self.cur_v.d.next = false;
            self.req_due.d.next = false;
            self.out_v.d.next = false;
        }
    }
}
