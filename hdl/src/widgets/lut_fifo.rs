//! A first-word-fall-through FIFO of up to 32 entries whose entries live in distributed (LUT)
//! RAM (model: `sanswitch_model::blocks::widgets::LutFifo`; where valid, the same FIFO as
//! `sanswitch_model::blocks::widgets::Fifo`).
//!
//! # Ports
//! - `push`, `push_data` (in): append at the edge (only while `can_push`).
//! - `pop` (in): take the head at the edge (only while `valid`).
//! - `valid` (out): not empty (from the count register).
//! - `head` (out): the RAM word at the read pointer: the head while `valid`, the last entry
//!   taken (or zero, if that word was never written) while empty. Users read it only with
//!   `valid`.
//! - `can_push` (out): fewer than `depth` entries (from the count register: a full FIFO refuses
//!   a push even in the cycle its head is taken).
//! - `reset` (in): synchronous; empty (the RAM keeps its words).
//!
//! # Why LUT RAM
//! [`Fifo`](super::Fifo) keeps its slots in flip-flops and picks the head through a
//! multiplexer: per bit of the entry, `depth` flip-flops and one LUT (a 2- to 4-way
//! multiplexer). A RAM32M (four LUT sites of a SLICEM) holds 6 bits of 32 entries with its
//! read port, so the same FIFO in LUT RAM costs two thirds of a LUT site per bit and no
//! flip-flop, whatever its depth up to 32. For the engine's wide records (a message job is
//! over 500 bits) that is the cheaper form; for a few narrow bits the flip-flops are.
//! The head is the RAM's asynchronous read at the read pointer register, one LUT level as
//! the flip-flop FIFO's multiplexer is. It is not forced to zero while empty: that would put
//! an AND gate behind every bit, as many LUTs as the RAM saves.

use rust_hdl::prelude::*;

use super::{LutRam, Param, param};

#[derive(LogicBlock, Default)]
pub struct LutFifo<D: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_data: Signal<In, D>,
    pub pop: Signal<In, Bit>,
    pub valid: Signal<Out, Bit>,
    pub head: Signal<Out, D>,
    pub can_push: Signal<Out, Bit>,
    ram: LutRam<D, 5>,
    count: DFF<Bits<6>>,
    /// Read and write pointers: they wrap at 32 on their own, and at most `depth` entries
    /// lie between them.
    rp: DFF<Bits<5>>,
    wp: DFF<Bits<5>>,
    k_depth: Param<Bits<6>>,
}

impl<D: Synth> LutFifo<D> {
    /// A FIFO of `depth` entries (1..=32).
    pub fn new(depth: usize) -> Self {
        assert!((1..=32).contains(&depth));
        LutFifo { k_depth: param(depth as u64), ..Default::default() }
    }
}

impl<D: Synth> Logic for LutFifo<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, rp, wp);
        self.ram.write_clock.next = self.clock.val();
        self.ram.write_address.next = self.wp.q.val();
        self.ram.write_data.next = self.push_data.val();
        self.ram.write_enable.next = self.push.val();
        self.ram.read_address.next = self.rp.q.val();
        self.head.next = self.ram.read_data.val();
        self.valid.next = self.count.q.val() != 0;
        self.can_push.next = self.count.q.val() < self.k_depth.val();
        if self.pop.val() {
            self.rp.d.next = self.rp.q.val() + 1;
        }
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }
        self.count.d.next = self.count.q.val() + bit_cast::<6, 1>(self.push.val().into())
            - bit_cast::<6, 1>(self.pop.val().into());
        if self.reset.val() {
            self.count.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.wp.d.next = 0.into();
        }
    }
}
