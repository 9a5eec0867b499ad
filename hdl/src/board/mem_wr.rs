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
    beat: DFF<Bits<32>>,
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
    nb: Signal<Local, Bits<64>>,
    sh: Signal<Local, Bits<64>>,
    w: Signal<Local, Bits<16>>,
    keep16: Signal<Local, Bits<16>>,
    c_one16: Param<Bits<16>>,
    c_one64: Param<Bits<64>>,
    k_bit: Vec<Param<Bits<8>>>,
    c_one32: Param<Bits<32>>,
    c_64: Param<Bits<64>>,
    c_bytes: Param<Bits<64>>,
}

impl MemWr {
    /// In front of a memory of `words` 64-bit words.
    pub fn new(words: usize) -> Self {
        MemWr {
            c_one16: param(1),
            c_one64: param(1),
            k_bit: (0..8).map(|k| param(1 << k)).collect(),
            c_one32: param(1),
            c_64: param(64),
            c_bytes: param(8 * words as u64),
            ..Default::default()
        }
    }
}

impl Logic for MemWr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat, i0, o, carry_v, carry_w, carry_d, carry_m);
        self.flush.next = self.carry_v.q.val() & !self.beat.q.val().any();
        self.b_i0.next = self.i0.q.val();
        self.b_o.next = self.o.q.val();
        if !self.beat.q.val().any() {
            self.b_i0.next = self.s_axis_wr_addr.val().get_bits::<16>(3);
            self.b_o.next = self.s_axis_wr_addr.val().get_bits::<3>(0);
        }
        // Bytes: as many as tkeep has bits (the beat's low bytes).
        self.nb.next = 0.into();
        for k in 0..8 {
            if (self.s_axis_wr_tkeep.val() & self.k_bit[k].val()).any() {
                self.nb.next = self.nb.val() + self.c_one64.val();
            }
        }
        // Inside: the burst starts inside (so nothing below overflows) and the beat's last
        // byte is inside.
        self.in_mem.next = (self.s_axis_wr_addr.val() < self.c_bytes.val())
            & ((self.s_axis_wr_addr.val()
                + (bit_cast::<64, 32>(self.beat.q.val()) << 3)
                + self.nb.val())
                <= self.c_bytes.val());
        self.w.next = self.b_i0.val() + bit_cast::<16, 32>(self.beat.q.val());
        self.sh.next = bit_cast::<64, 3>(self.b_o.val()) << 3;
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
                    self.carry_w.d.next = self.w.val() + self.c_one16.val();
                    self.carry_d.d.next =
                        self.s_axis_wr_tdata.val() >> (self.c_64.val() - self.sh.val());
                    self.carry_m.d.next = self.keep16.val().get_bits::<8>(8);
                }
            }
            if !self.beat.q.val().any() {
                self.i0.d.next = self.b_i0.val();
                self.o.d.next = self.b_o.val();
            }
            self.beat.d.next = self.beat.q.val() + self.c_one32.val();
            if self.s_axis_wr_tlast.val() {
                self.beat.d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.i0.d.next = 0.into();
            self.o.d.next = 0.into();
            self.carry_v.d.next = false;
            self.carry_w.d.next = 0.into();
            self.carry_d.d.next = 0.into();
            self.carry_m.d.next = 0.into();
        }
    }
}
