//! The node memory's write side: a NIC write burst (beat k at the burst's address + 8k,
//! whole bytes in `tkeep`'s low bits) turned into one masked word write a beat, with the
//! bytes a beat carries into the next word merged into that word's write, and a last write
//! of what the burst's last beat carried (the model: `sanswitch_model::blocks::node_mem`,
//! "Writes").
//!
//! # Ports
//! - `s_axis_wr_addr`, `tdata`, `tkeep`, `tlast` (in): the beat offered (its `tvalid` is
//!   the node memory's to arbitrate: `take`).
//! - `take` (in): the beat is taken at this edge (the write port is this side's).
//! - `flush` (out): bytes carried past the burst's last beat wait: the next write is theirs
//!   (the write port is this side's alone this cycle; no beat is taken).
//! - `we`, `waddr`, `wdata`, `wmask` (out): the word write of the carry (`flush`) or of the
//!   beat offered (when inside the memory); `oob` (out): the beat offered lies (partly)
//!   outside the memory: taken, dropped, counted.
//! - `reset` (in): synchronous.

use rust_hdl::prelude::*;

use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct MemWr {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_wr_addr: Signal<In, Bits<64>>,
    pub s_axis_wr_tdata: Signal<In, Bits<64>>,
    pub s_axis_wr_tkeep: Signal<In, Bits<8>>,
    pub s_axis_wr_tlast: Signal<In, Bit>,
    pub take: Signal<In, Bit>,
    pub flush: Signal<Out, Bit>,
    pub we: Signal<Out, Bit>,
    pub waddr: Signal<Out, Bits<16>>,
    pub wdata: Signal<Out, Bits<64>>,
    pub wmask: Signal<Out, Bits<8>>,
    pub oob: Signal<Out, Bit>,
    /// The beat's number in its burst; `far`: the burst is past beat 65535, so 512 KiB past
    /// its start and outside any memory this block fronts.
    beat: DFF<Bits<16>>,
    far: DFF<Bit>,
    i0: DFF<Bits<16>>,
    o: DFF<Bits<3>>,
    carry_v: DFF<Bit>,
    carry_w: DFF<Bits<16>>,
    carry_d: DFF<Bits<64>>,
    carry_m: DFF<Bits<8>>,
    /// The beat's first word and offset; its bytes inside the memory.
    b_i0: Signal<Local, Bits<16>>,
    b_o: Signal<Local, Bits<3>>,
    in_mem: Signal<Local, Bit>,
    nb: Signal<Local, Bits<4>>,
    /// The beat's end: 21 bits hold it once the burst's address is below 2^19.
    b_end: Signal<Local, Bits<21>>,
    /// The offset in bits, and `64 - sh` modulo 64 (both shifters see whole bytes).
    sh: Signal<Local, Bits<64>>,
    sh_hi: Signal<Local, Bits<64>>,
    /// `-o` in 3 bits, its own signal (Verilog would widen the negation in place).
    neg_o: Signal<Local, Bits<3>>,
    w: Signal<Local, Bits<16>>,
    keep16: Signal<Local, Bits<16>>,
    k_bit: Vec<Param<Bits<8>>>,
    c_far: Param<Bits<64>>,
    c_bytes21: Param<Bits<21>>,
}

impl MemWr {
    /// In front of a memory of `words` 64-bit words (a power of two, at most 32768).
    pub fn new(words: usize) -> Self {
        assert!(words.is_power_of_two() && words <= 1 << 15, "{words} words");
        MemWr {
            k_bit: (0..8).map(|k| param(1 << k)).collect(),
            c_far: param(1 << 19),
            c_bytes21: param(8 * words as u64),
            ..Default::default()
        }
    }
}

impl Logic for MemWr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat, far, i0, o, carry_v, carry_w, carry_d, carry_m);
        self.flush.next = self.carry_v.q.val() & !self.beat.q.val().any() & !self.far.q.val();
        self.b_i0.next = self.i0.q.val();
        self.b_o.next = self.o.q.val();
        if !self.beat.q.val().any() & !self.far.q.val() {
            self.b_i0.next = self.s_axis_wr_addr.val().get_bits::<16>(3);
            self.b_o.next = self.s_axis_wr_addr.val().get_bits::<3>(0);
        }
        // Bytes: as many as tkeep has bits (the beat's low bytes).
        self.nb.next = 0.into();
        for k in 0..8 {
            if (self.s_axis_wr_tkeep.val() & self.k_bit[k].val()).any() {
                self.nb.next = self.nb.val() + 1;
            }
        }
        // Inside: the beat's last byte is inside. An address from 2^19 (twice the largest
        // memory) or a beat past 65535 is outside; below both, 21 bits hold the sum.
        self.b_end.next = self.s_axis_wr_addr.val().get_bits::<21>(0)
            + (bit_cast::<21, 16>(self.beat.q.val()) << 3)
            + bit_cast::<21, 4>(self.nb.val());
        self.in_mem.next = !self.far.q.val()
            & (self.s_axis_wr_addr.val() < self.c_far.val())
            & (self.b_end.val() <= self.c_bytes21.val());
        self.w.next = self.b_i0.val() + self.beat.q.val();
        self.sh.next = bit_cast::<64, 3>(self.b_o.val()) << 3;
        self.neg_o.next = !self.b_o.val() + 1;
        self.sh_hi.next = bit_cast::<64, 3>(self.neg_o.val()) << 3;
        self.keep16.next =
            bit_cast::<16, 8>(self.s_axis_wr_tkeep.val()) << bit_cast::<16, 3>(self.b_o.val());
        self.oob.next = self.take.val() & !self.in_mem.val();
        // The write: the carry when flushing, else the beat's low part with the carry.
        self.we.next = false;
        self.waddr.next = self.w.val();
        self.wdata.next = self.s_axis_wr_tdata.val() << self.sh.val();
        self.wmask.next = self.keep16.val().get_bits::<8>(0);
        if self.carry_v.q.val() {
            self.wdata.next = (self.s_axis_wr_tdata.val() << self.sh.val()) | self.carry_d.q.val();
            self.wmask.next = self.keep16.val().get_bits::<8>(0) | self.carry_m.q.val();
        }
        if self.flush.val() {
            self.we.next = true;
            self.waddr.next = self.carry_w.q.val();
            self.wdata.next = self.carry_d.q.val();
            self.wmask.next = self.carry_m.q.val();
            self.carry_v.d.next = false;
        } else if self.take.val() {
            if self.in_mem.val() {
                self.we.next = true;
                self.carry_v.d.next = false;
                if self.b_o.val().any() & self.keep16.val().get_bits::<8>(8).any() {
                    self.carry_v.d.next = true;
                    self.carry_w.d.next = self.w.val() + 1;
                    self.carry_d.d.next = self.s_axis_wr_tdata.val() >> self.sh_hi.val();
                    self.carry_m.d.next = self.keep16.val().get_bits::<8>(8);
                }
            }
            if !self.beat.q.val().any() & !self.far.q.val() {
                self.i0.d.next = self.b_i0.val();
                self.o.d.next = self.b_o.val();
            }
            self.beat.d.next = self.beat.q.val() + 1;
            if self.beat.q.val().all() {
                self.far.d.next = true;
            }
            if self.s_axis_wr_tlast.val() {
                self.beat.d.next = 0.into();
                self.far.d.next = false;
            }
        }
        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.far.d.next = false;
            self.i0.d.next = 0.into();
            self.o.d.next = 0.into();
            self.carry_v.d.next = false;
            self.carry_w.d.next = 0.into();
            self.carry_d.d.next = 0.into();
            self.carry_m.d.next = 0.into();
        }
    }
}
