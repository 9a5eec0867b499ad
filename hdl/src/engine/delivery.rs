//! Delivery: received payload from the receive-buffer RAM into a posted host buffer (model:
//! `sanswitch_model::blocks::engine::delivery`, whose documentation gives the behaviour).
//!
//! # Ports
//! - `job_push`, `job` (in) / `job_can_push` (out): the job FIFO (two entries).
//! - `done_pop` (in) / `done_valid`, `done` (out): the done FIFO (two entries).
//! - `ram_addr` (out, combinational from registers and `wr_ready`) / `ram_data` (in, the word
//!   at the address of the cycle before): the receive-buffer RAM's read port.
//! - `wr_*`: the host memory write stream (`wr_valid`, `wr_addr`, `wr_data`, `wr_keep`,
//!   `wr_last` from the output register, zero when not valid; `wr_ready` in).
//! - `reset` (in): synchronous; nothing in flight.
//!
//! The RAM is read one word ahead: `lo` holds the word a beat starts in, the RAM's output the
//! next; the beat is their concatenation shifted by the offset's low three bits. The read
//! address advances only with a beat, so a stalled beat finds its words still there.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use super::records::DlvJob;
use crate::widgets::{LutFifo, Param, param};

#[derive(LogicBlock, Default)]
pub struct Delivery {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub job_push: Signal<In, Bit>,
    pub job: Signal<In, DlvJob>,
    pub job_can_push: Signal<Out, Bit>,
    pub done_pop: Signal<In, Bit>,
    pub done_valid: Signal<Out, Bit>,
    pub done: Signal<Out, DlvJob>,
    pub ram_addr: Signal<Out, Bits<16>>,
    pub ram_data: Signal<In, Bits<64>>,
    pub wr_ready: Signal<In, Bit>,
    pub wr_valid: Signal<Out, Bit>,
    pub wr_addr: Signal<Out, Bits<64>>,
    pub wr_data: Signal<Out, Bits<64>>,
    pub wr_keep: Signal<Out, Bits<8>>,
    pub wr_last: Signal<Out, Bit>,
    jobs: LutFifo<DlvJob>,
    dones: LutFifo<DlvJob>,
    cur_v: DFF<Bit>,
    cur: DFF<DlvJob>,
    k: DFF<Bits<32>>,
    prime: DFF<Bits<2>>,
    ra_q: DFF<Bits<16>>,
    lo: DFF<Bits<64>>,
    fin_v: DFF<Bit>,
    fin: DFF<DlvJob>,
    out_v: DFF<Bit>,
    out_addr: DFF<Bits<64>>,
    out_data: DFF<Bits<64>>,
    out_keep: DFF<Bits<8>>,
    out_last: DFF<Bit>,
    /// Receive-buffer RAM layout: a connection's buffers and a buffer's words (log2).
    k_conn_shift: Param<Bits<16>>,
    k_buf_shift: Param<Bits<16>>,
    k_ones8: Param<Bits<8>>,
    k_ones64: Param<Bits<64>>,
    load: Signal<Local, Bit>,
    first_word: Signal<Local, Bits<16>>,
    rem: Signal<Local, Bits<32>>,
    last: Signal<Local, Bit>,
    fin_free: Signal<Local, Bit>,
    cat: Signal<Local, Bits<128>>,
    shifted: Signal<Local, Bits<128>>,
    nbytes: Signal<Local, Bits<4>>,
    keep: Signal<Local, Bits<8>>,
    mask: Signal<Local, Bits<64>>,
}

impl Delivery {
    pub fn new(p: &EngineParams) -> Self {
        let buf_shift = p.buf_words().trailing_zeros() as u64;
        let conn_shift = buf_shift + p.recv_slots().trailing_zeros() as u64;
        Delivery {
            jobs: LutFifo::new(sanswitch_model::blocks::engine::DLV_FIFO),
            dones: LutFifo::new(sanswitch_model::blocks::engine::DONE_FIFO),
            k_conn_shift: param(conn_shift),
            k_buf_shift: param(buf_shift),
            k_ones8: param(0xFF),
            k_ones64: param(u64::MAX),
            ..Default::default()
        }
    }
}

impl Logic for Delivery {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cur_v, cur, k, prime, ra_q, lo, fin_v, fin, out_v, out_addr, out_data,
            out_keep, out_last
        );
        clock!(self, clock, jobs, dones);
        self.jobs.reset.next = self.reset.val();
        self.dones.reset.next = self.reset.val();
        self.jobs.push.next = self.job_push.val();
        self.jobs.push_data.next = self.job.val();
        self.job_can_push.next = self.jobs.can_push.val();
        self.dones.pop.next = self.done_pop.val();
        self.done_valid.next = self.dones.valid.val();
        self.done.next = self.dones.head.val();
        self.wr_valid.next = self.out_v.q.val();
        self.wr_addr.next = 0.into();
        self.wr_data.next = 0.into();
        self.wr_keep.next = 0.into();
        self.wr_last.next = false;
        if self.out_v.q.val() {
            self.wr_addr.next = self.out_addr.q.val();
            self.wr_data.next = self.out_data.q.val();
            self.wr_keep.next = self.out_keep.q.val();
            self.wr_last.next = self.out_last.q.val();
        }

        self.load.next = !self.out_v.q.val() | self.wr_ready.val();
        self.dones.push.next = false;
        self.dones.push_data.next = self.fin.q.val();
        self.fin_free.next = !self.fin_v.q.val();
        if self.out_v.q.val() & self.wr_ready.val() {
            self.out_v.d.next = false;
            if self.fin_v.q.val() {
                self.dones.push.next = true;
                self.fin_v.d.next = false;
                self.fin_free.next = true;
            }
        }

        // The job's first word: {conn, buf, off / 8}.
        self.first_word.next = (bit_cast::<16, 8>(self.cur.q.val().conn)
            << self.k_conn_shift.val())
            + (bit_cast::<16, 8>(self.cur.q.val().buf) << self.k_buf_shift.val())
            + bit_cast::<16, 32>(self.cur.q.val().off >> 3);
        self.ram_addr.next = self.ra_q.q.val();
        self.ra_q.d.next = self.ra_q.q.val();
        self.rem.next = self.cur.q.val().len - (self.k.q.val() << 3);
        self.last.next = self.rem.val() <= 8;
        self.nbytes.next = 8.into();
        if self.rem.val() < 8 {
            self.nbytes.next = bit_cast::<4, 32>(self.rem.val());
        }
        self.keep.next = self.k_ones8.val();
        self.mask.next = self.k_ones64.val();
        if self.rem.val() < 8 {
            // Bytes past the job's end are not written (and read as zero, as in the model).
            self.keep.next = !(self.k_ones8.val() << bit_cast::<8, 4>(self.nbytes.val()));
            self.mask.next = !(self.k_ones64.val() << (bit_cast::<64, 4>(self.nbytes.val()) << 3));
        }
        self.cat.next =
            (bit_cast::<128, 64>(self.ram_data.val()) << 64) | bit_cast::<128, 64>(self.lo.q.val());
        self.shifted.next = self.cat.val() >> (bit_cast::<8, 32>(self.cur.q.val().off & 7) << 3);

        self.jobs.pop.next = false;
        if !self.cur_v.q.val() {
            if self.jobs.valid.val() {
                self.jobs.pop.next = true;
                self.cur_v.d.next = true;
                self.cur.d.next = self.jobs.head.val();
                self.k.d.next = 0.into();
                self.prime.d.next = 2.into();
            }
        } else if self.prime.q.val() == 2 {
            self.ram_addr.next = self.first_word.val();
            self.ra_q.d.next = self.first_word.val() + 1;
            self.prime.d.next = 1.into();
        } else if self.prime.q.val() == 1 {
            self.ram_addr.next = self.ra_q.q.val();
            self.lo.d.next = self.ram_data.val();
            self.prime.d.next = 0.into();
        } else if self.load.val()
            & (!self.last.val() | (self.dones.can_push.val() & self.fin_free.val()))
        {
            self.ram_addr.next = self.ra_q.q.val() + 1;
            self.ra_q.d.next = self.ra_q.q.val() + 1;
            self.lo.d.next = self.ram_data.val();
            self.out_v.d.next = true;
            self.out_addr.d.next = self.cur.q.val().addr;
            self.out_data.d.next = bit_cast::<64, 128>(self.shifted.val()) & self.mask.val();
            self.out_keep.d.next = self.keep.val();
            self.out_last.d.next = self.last.val();
            self.k.d.next = self.k.q.val() + 1;
            if self.last.val() {
                self.fin_v.d.next = true;
                self.fin.d.next = self.cur.q.val();
                self.cur_v.d.next = false;
            }
        }
        if self.reset.val() {
            self.cur_v.d.next = false;
            self.fin_v.d.next = false;
            self.out_v.d.next = false;
        }
    }
}
