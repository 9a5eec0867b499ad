//! The node memory's read side: a NIC read request (byte address and length) turned into
//! word reads in sequence and beats realigned to the request's address (the model:
//! `sanswitch_model::blocks::node_mem`, "Reads").
//!
//! # Ports
//! - `s_axis_rdreq_*`: the request (taken while idle); `m_axis_rddata_*`: the beats, through
//!   a FIFO of `RD_FIFO` beats.
//! - `wants` (out): the next word's read would go this cycle; `addr` (out): its index;
//!   `grant` (in): the RAM's read port is this side's this cycle; `ram_data` (in): the word
//!   read last cycle.
//! - `oob` (out): a request outside the memory (or of no bytes) is taken at this edge: it is
//!   answered with zero beats of its shape, one a cycle, with no read.
//! - `reset` (in): synchronous.

use rust_hdl::prelude::*;

use sanswitch_model::blocks::node_mem::RD_FIFO;

use crate::widgets::{Fifo, Param, param};

/// A beat of the read data stream.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RdBeat {
    pub data: Bits<64>,
    pub keep: Bits<8>,
    pub last: Bit,
}

#[derive(LogicBlock, Default)]
pub struct MemRd {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_rdreq_tvalid: Signal<In, Bit>,
    pub s_axis_rdreq_addr: Signal<In, Bits<64>>,
    pub s_axis_rdreq_len: Signal<In, Bits<32>>,
    pub m_axis_rddata_tready: Signal<In, Bit>,
    pub grant: Signal<In, Bit>,
    pub ram_data: Signal<In, Bits<64>>,
    pub s_axis_rdreq_tready: Signal<Out, Bit>,
    pub m_axis_rddata_tvalid: Signal<Out, Bit>,
    pub m_axis_rddata_tdata: Signal<Out, Bits<64>>,
    pub m_axis_rddata_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_rddata_tlast: Signal<Out, Bit>,
    pub wants: Signal<Out, Bit>,
    pub addr: Signal<Out, Bits<16>>,
    pub oob: Signal<Out, Bit>,
    out: Fifo<RdBeat>,
    /// Beats in the FIFO (its own count, for the read-ahead limit).
    out_n: DFF<Bits<4>>,
    busy: DFF<Bit>,
    /// The request: first word, byte offset, the last beat's keep, words (an in-range
    /// request spans at most `words`, so 16 bits), beats (any request: up to 2^29).
    i0: DFF<Bits<16>>,
    o: DFF<Bits<3>>,
    keep_last: DFF<Bits<8>>,
    nwords: DFF<Bits<16>>,
    nbeats: DFF<Bits<30>>,
    is_oob: DFF<Bit>,
    /// Words read, beats made; `j`: the word arriving (read last cycle).
    read: DFF<Bits<16>>,
    made: DFF<Bits<30>>,
    inflight: DFF<Bit>,
    j: DFF<Bits<16>>,
    prev: DFF<Bits<64>>,
    flush: DFF<Bit>,
    push: Signal<Local, Bit>,
    push_data: Signal<Local, Bits<64>>,
    made_next: Signal<Local, Bits<30>>,
    produced: Signal<Local, Bits<16>>,
    /// The request's end, in 21 bits (enough once its start and length are known to be
    /// inside a memory of at most 2^18 bytes).
    req_end: Signal<Local, Bits<21>>,
    req_nwords: Signal<Local, Bits<20>>,
    req_tail: Signal<Local, Bits<3>>,
    /// The two words a beat is cut from, and the pair shifted down by the byte offset.
    lo: Signal<Local, Bits<64>>,
    hi: Signal<Local, Bits<64>>,
    joined: Signal<Local, Bits<128>>,
    /// `-(len mod 8)` in 3 bits: its own signal, as Verilog would widen the negation to the
    /// expression it stood in.
    neg_tail: Signal<Local, Bits<3>>,
    req_oob: Signal<Local, Bit>,
    c_depth16: Param<Bits<16>>,
    c_ff: Param<Bits<8>>,
    c_bytes: Param<Bits<64>>,
    c_bytes21: Param<Bits<21>>,
    c_bytes32: Param<Bits<32>>,
}

impl MemRd {
    /// In front of a memory of `words` 64-bit words (a power of two, at most 32768: the word
    /// counters are 16 bits).
    pub fn new(words: usize) -> Self {
        assert!(words.is_power_of_two() && words <= 1 << 15, "{words} words");
        MemRd {
            out: Fifo::new(RD_FIFO),
            c_depth16: param(RD_FIFO as u64),
            c_ff: param(0xFF),
            c_bytes: param(8 * words as u64),
            c_bytes21: param(8 * words as u64),
            c_bytes32: param(8 * words as u64),
            ..Default::default()
        }
    }
}

impl Logic for MemRd {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, out_n, busy, i0, o, keep_last, nwords, nbeats, is_oob, read, made,
            inflight, j, prev, flush
        );
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        self.m_axis_rddata_tvalid.next = self.out.valid.val();
        self.m_axis_rddata_tdata.next = self.out.head.val().data;
        self.m_axis_rddata_tkeep.next = self.out.head.val().keep;
        self.m_axis_rddata_tlast.next = self.out.head.val().last;
        self.out.pop.next = self.m_axis_rddata_tready.val() & self.out.valid.val();
        self.s_axis_rdreq_tready.next = !self.busy.q.val();
        // Read ahead while the FIFO has room for every beat the words read so far and the
        // next will make (an unaligned request's first word makes none, its last may make
        // two). In 16 bits: only an in-range request reads, and its beats fit.
        self.produced.next = self.read.q.val() + 1;
        if self.o.q.val().any() {
            self.produced.next = self.read.q.val();
            if ((self.read.q.val() + 1) == self.nwords.q.val())
                & (self.nbeats.q.val().get_bits::<16>(0) == self.nwords.q.val())
            {
                self.produced.next = self.read.q.val() + 1;
            }
        }
        self.wants.next = self.busy.q.val()
            & !self.is_oob.q.val()
            & (self.read.q.val() < self.nwords.q.val())
            & ((bit_cast::<16, 4>(self.out_n.q.val()) + self.produced.val()
                - self.made.q.val().get_bits::<16>(0))
                <= self.c_depth16.val());
        self.addr.next = self.i0.q.val() + self.read.q.val();
        // One byte-select for every case: an aligned word is itself (`lo` = the word, no
        // shift); an unaligned beat is `{word, prev} >> 8o`, a flushed one `{0, prev} >> 8o`.
        self.lo.next = self.prev.q.val();
        self.hi.next = self.ram_data.val();
        if !self.o.q.val().any() {
            self.lo.next = self.ram_data.val();
        }
        if !self.inflight.q.val() {
            self.hi.next = 0.into();
        }
        self.joined.next = ((bit_cast::<128, 64>(self.hi.val()) << 64)
            | bit_cast::<128, 64>(self.lo.val()))
            >> (bit_cast::<8, 3>(self.o.q.val()) << 3);
        self.push.next = false;
        self.push_data.next = self.joined.val().get_bits::<64>(0);
        self.made_next.next = self.made.q.val();
        self.inflight.d.next = false;
        if self.inflight.q.val() {
            self.push.next = !self.o.q.val().any() | self.j.q.val().any();
            self.prev.d.next = self.ram_data.val();
        } else if self.flush.q.val() {
            self.push.next = true;
            self.flush.d.next = false;
        } else if self.busy.q.val() & self.is_oob.q.val() & self.out.can_push.val() {
            self.push.next = true;
            self.push_data.next = 0.into();
        }
        if self.push.val() {
            self.made_next.next = self.made.q.val() + 1;
        }
        self.made.d.next = self.made_next.val();
        // The last word of an unaligned request whose last beat lies in it alone: that
        // beat next cycle, from `prev`.
        if self.inflight.q.val()
            & self.o.q.val().any()
            & ((self.j.q.val() + 1) == self.nwords.q.val())
            & (self.made_next.val() < self.nbeats.q.val())
        {
            self.flush.d.next = true;
        }
        self.out.push.next = self.push.val();
        self.out.push_data.next.data = self.push_data.val();
        self.out.push_data.next.last = (self.made.q.val() + 1) == self.nbeats.q.val();
        self.out.push_data.next.keep = self.c_ff.val();
        if (self.made.q.val() + 1) == self.nbeats.q.val() {
            self.out.push_data.next.keep = self.keep_last.q.val();
        }
        self.out_n.d.next = self.out_n.q.val() + bit_cast::<4, 1>(self.push.val().into())
            - bit_cast::<4, 1>(self.out.pop.val().into());
        if self.busy.q.val() & (self.made_next.val() == self.nbeats.q.val()) {
            self.busy.d.next = false;
        }
        if self.grant.val() {
            self.inflight.d.next = true;
            self.j.d.next = self.read.q.val();
            self.read.d.next = self.read.q.val() + 1;
        }
        // A request: whether it lies inside the memory (its end is summed in 21 bits only
        // once its start and length are each known to be inside), its words and beats.
        self.req_end.next = self.s_axis_rdreq_addr.val().get_bits::<21>(0)
            + self.s_axis_rdreq_len.val().get_bits::<21>(0);
        self.req_oob.next = !self.s_axis_rdreq_len.val().any()
            | (self.s_axis_rdreq_addr.val() >= self.c_bytes.val())
            | (self.s_axis_rdreq_len.val() > self.c_bytes32.val())
            | (self.req_end.val() > self.c_bytes21.val());
        self.req_tail.next = self.s_axis_rdreq_len.val().get_bits::<3>(0);
        self.neg_tail.next = !self.req_tail.val() + 1;
        self.req_nwords.next = (bit_cast::<20, 3>(self.s_axis_rdreq_addr.val().get_bits::<3>(0))
            + self.s_axis_rdreq_len.val().get_bits::<20>(0)
            + 7)
            >> 3;
        self.oob.next = false;
        if !self.busy.q.val() & self.s_axis_rdreq_tvalid.val() {
            self.busy.d.next = true;
            self.i0.d.next = self.s_axis_rdreq_addr.val().get_bits::<16>(3);
            self.o.d.next = self.s_axis_rdreq_addr.val().get_bits::<3>(0);
            self.is_oob.d.next = self.req_oob.val();
            self.oob.next = self.req_oob.val();
            self.nwords.d.next = self.req_nwords.val().get_bits::<16>(0);
            // len / 8 rounded up; the last beat keeps the low `len mod 8` bytes (all 8 when
            // that is 0).
            self.nbeats.d.next = bit_cast::<30, 29>(self.s_axis_rdreq_len.val().get_bits::<29>(3));
            self.keep_last.d.next = self.c_ff.val();
            if self.req_tail.val().any() {
                self.nbeats.d.next =
                    bit_cast::<30, 29>(self.s_axis_rdreq_len.val().get_bits::<29>(3)) + 1;
                self.keep_last.d.next = self.c_ff.val() >> bit_cast::<8, 3>(self.neg_tail.val());
            }
            if !self.s_axis_rdreq_len.val().any() {
                self.nwords.d.next = 0.into();
                self.nbeats.d.next = 1.into();
                self.keep_last.d.next = 0.into();
            }
            self.read.d.next = 0.into();
            self.made.d.next = 0.into();
        }
        if self.reset.val() {
            self.out_n.d.next = 0.into();
            self.busy.d.next = false;
            self.i0.d.next = 0.into();
            self.o.d.next = 0.into();
            self.keep_last.d.next = 0.into();
            self.nwords.d.next = 0.into();
            self.nbeats.d.next = 0.into();
            self.is_oob.d.next = false;
            self.read.d.next = 0.into();
            self.made.d.next = 0.into();
            self.inflight.d.next = false;
            self.j.d.next = 0.into();
            self.prev.d.next = 0.into();
            self.flush.d.next = false;
        }
    }
}
