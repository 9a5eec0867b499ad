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
    i0: DFF<Bits<16>>,
    o: DFF<Bits<3>>,
    len: DFF<Bits<32>>,
    nwords: DFF<Bits<32>>,
    nbeats: DFF<Bits<32>>,
    is_oob: DFF<Bit>,
    read: DFF<Bits<32>>,
    made: DFF<Bits<32>>,
    inflight: DFF<Bit>,
    j: DFF<Bits<32>>,
    prev: DFF<Bits<64>>,
    flush: DFF<Bit>,
    push: Signal<Local, Bit>,
    push_data: Signal<Local, Bits<64>>,
    rem: Signal<Local, Bits<32>>,
    made_next: Signal<Local, Bits<32>>,
    produced: Signal<Local, Bits<32>>,
    req_end: Signal<Local, Bits<64>>,
    /// The byte offset in bits.
    sh: Signal<Local, Bits<64>>,
    req_oob: Signal<Local, Bit>,
    c_one32: Param<Bits<32>>,
    c_depth32: Param<Bits<32>>,
    c_eight: Param<Bits<32>>,
    c_ff: Param<Bits<8>>,
    c_64: Param<Bits<64>>,
    c_bytes: Param<Bits<64>>,
}

impl MemRd {
    /// In front of a memory of `words` 64-bit words.
    pub fn new(words: usize) -> Self {
        MemRd {
            out: Fifo::new(RD_FIFO),
            c_one32: param(1),
            c_depth32: param(RD_FIFO as u64),
            c_eight: param(8),
            c_ff: param(0xFF),
            c_64: param(64),
            c_bytes: param(8 * words as u64),
            ..Default::default()
        }
    }
}

impl Logic for MemRd {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, out_n, busy, i0, o, len, nwords, nbeats, is_oob, read, made, inflight, j,
            prev, flush
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
        // two).
        self.produced.next = self.read.q.val() + self.c_one32.val();
        if self.o.q.val().any() {
            self.produced.next = self.read.q.val();
            if ((self.read.q.val() + self.c_one32.val()) == self.nwords.q.val())
                & (self.nbeats.q.val() == self.nwords.q.val())
            {
                self.produced.next = self.read.q.val() + self.c_one32.val();
            }
        }
        self.wants.next = self.busy.q.val()
            & !self.is_oob.q.val()
            & (self.read.q.val() < self.nwords.q.val())
            & ((bit_cast::<32, 4>(self.out_n.q.val()) + self.produced.val() - self.made.q.val())
                <= self.c_depth32.val());
        self.addr.next = self.i0.q.val() + bit_cast::<16, 32>(self.read.q.val());
        // The beat made this cycle is beat `made`: its keep and last.
        self.rem.next = self.len.q.val() - (self.made.q.val() << 3);
        self.sh.next = bit_cast::<64, 3>(self.o.q.val()) << 3;
        self.push.next = false;
        self.push_data.next = 0.into();
        self.made_next.next = self.made.q.val();
        self.inflight.d.next = false;
        if self.inflight.q.val() {
            if !self.o.q.val().any() {
                self.push.next = true;
                self.push_data.next = self.ram_data.val();
            } else if self.j.q.val().any() {
                self.push.next = true;
                self.push_data.next = (self.prev.q.val() >> self.sh.val())
                    | (self.ram_data.val() << (self.c_64.val() - self.sh.val()));
            }
            self.prev.d.next = self.ram_data.val();
        } else if self.flush.q.val() {
            self.push.next = true;
            self.push_data.next = self.prev.q.val() >> self.sh.val();
            self.flush.d.next = false;
        } else if self.busy.q.val() & self.is_oob.q.val() & self.out.can_push.val() {
            self.push.next = true;
        }
        if self.push.val() {
            self.made_next.next = self.made.q.val() + self.c_one32.val();
        }
        self.made.d.next = self.made_next.val();
        // The last word of an unaligned request whose last beat lies in it alone: that
        // beat next cycle, from `prev`.
        if self.inflight.q.val()
            & self.o.q.val().any()
            & ((self.j.q.val() + self.c_one32.val()) == self.nwords.q.val())
            & (self.made_next.val() < self.nbeats.q.val())
        {
            self.flush.d.next = true;
        }
        self.out.push.next = self.push.val();
        self.out.push_data.next.data = self.push_data.val();
        self.out.push_data.next.keep = self.c_ff.val();
        if self.rem.val() < self.c_eight.val() {
            self.out.push_data.next.keep = self.c_ff.val()
                >> (self.c_eight.val().get_bits::<8>(0) - self.rem.val().get_bits::<8>(0));
        }
        self.out.push_data.next.last =
            (self.made.q.val() + self.c_one32.val()) == self.nbeats.q.val();
        self.out_n.d.next = self.out_n.q.val() + bit_cast::<4, 1>(self.push.val().into())
            - bit_cast::<4, 1>(self.out.pop.val().into());
        if self.busy.q.val() & (self.made_next.val() == self.nbeats.q.val()) {
            self.busy.d.next = false;
        }
        if self.grant.val() {
            self.inflight.d.next = true;
            self.j.d.next = self.read.q.val();
            self.read.d.next = self.read.q.val() + self.c_one32.val();
        }
        // A request: its words, beats, and whether it lies inside the memory.
        self.req_end.next =
            self.s_axis_rdreq_addr.val() + bit_cast::<64, 32>(self.s_axis_rdreq_len.val());
        self.req_oob.next = !self.s_axis_rdreq_len.val().any()
            | (self.s_axis_rdreq_addr.val() >= self.c_bytes.val())
            | (self.req_end.val() > self.c_bytes.val());
        self.oob.next = false;
        if !self.busy.q.val() & self.s_axis_rdreq_tvalid.val() {
            self.busy.d.next = true;
            self.i0.d.next = self.s_axis_rdreq_addr.val().get_bits::<16>(3);
            self.o.d.next = self.s_axis_rdreq_addr.val().get_bits::<3>(0);
            self.len.d.next = self.s_axis_rdreq_len.val();
            self.is_oob.d.next = self.req_oob.val();
            self.oob.next = self.req_oob.val();
            self.nwords.d.next = (bit_cast::<32, 3>(self.s_axis_rdreq_addr.val().get_bits::<3>(0))
                + self.s_axis_rdreq_len.val()
                + self.c_eight.val()
                - self.c_one32.val())
                >> 3;
            // len / 8 rounded up, without overflowing near 2^32.
            self.nbeats.d.next = self.s_axis_rdreq_len.val() >> 3;
            if self.s_axis_rdreq_len.val().get_bits::<3>(0).any() {
                self.nbeats.d.next = (self.s_axis_rdreq_len.val() >> 3) + self.c_one32.val();
            }
            if !self.s_axis_rdreq_len.val().any() {
                self.nwords.d.next = 0.into();
                self.nbeats.d.next = self.c_one32.val();
            }
            self.read.d.next = 0.into();
            self.made.d.next = 0.into();
        }
        if self.reset.val() {
            self.out_n.d.next = 0.into();
            self.busy.d.next = false;
            self.i0.d.next = 0.into();
            self.o.d.next = 0.into();
            self.len.d.next = 0.into();
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
