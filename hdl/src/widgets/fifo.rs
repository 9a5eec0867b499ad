//! A first-word-fall-through FIFO of a few entries, as a ring of registers (model:
//! `sanswitch_model::blocks::widgets::Fifo`).
//!
//! # Ports
//! - `push`, `push_data` (in): append at the edge (only while `can_push`).
//! - `pop` (in): take the head at the edge (only while `valid`).
//! - `valid`, `head` (out): the head, zero while empty (from registers through the read
//!   multiplexer).
//! - `can_push` (out): fewer than `depth` entries (from the count register: a full FIFO refuses
//!   a push even in the cycle its head is taken).
//! - `reset` (in): synchronous; empty.
//!
//! # Why a ring
//! A push writes only the slot at the write pointer, so a slot's register keeps its value
//! through its clock enable and needs no multiplexer of its own; the one multiplexer is the
//! head's, over the slots at the read pointer. A shift register (head always in slot 0) needs
//! a two-way multiplexer in front of every bit of every slot instead: for the engine's wide
//! records (a message job is over 700 bits) that is three times the LUTs of the ring.

use rust_hdl::prelude::*;

use super::{Param, param};

#[derive(LogicBlock, Default)]
pub struct Fifo<D: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_data: Signal<In, D>,
    pub pop: Signal<In, Bit>,
    pub valid: Signal<Out, Bit>,
    pub head: Signal<Out, D>,
    pub can_push: Signal<Out, Bit>,
    slots: Vec<DFF<D>>,
    count: DFF<Bits<5>>,
    /// Read and write pointers (slot numbers, wrapping at `depth`).
    rp: DFF<Bits<4>>,
    wp: DFF<Bits<4>>,
    k_idx: Vec<Param<Bits<4>>>,
    k_last: Param<Bits<4>>,
    k_depth: Param<Bits<5>>,
    k_zero: Param<D>,
    at_rp: Signal<Local, D>,
}

impl<D: Synth> Fifo<D> {
    /// A FIFO of `depth` entries (1..=16).
    pub fn new(depth: usize) -> Self {
        assert!((1..=16).contains(&depth));
        Fifo {
            slots: (0..depth).map(|_| Default::default()).collect(),
            k_idx: (0..depth).map(|i| param(i as u64)).collect(),
            k_last: param(depth as u64 - 1),
            k_depth: param(depth as u64),
            ..Default::default()
        }
    }
}

impl<D: Synth> Logic for Fifo<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, rp, wp);
        self.at_rp.next = self.k_zero.val();
        for i in 0..self.slots.len() {
            self.slots[i].clock.next = self.clock.val();
            self.slots[i].d.next = self.slots[i].q.val();
            if self.rp.q.val() == self.k_idx[i].val() {
                self.at_rp.next = self.slots[i].q.val();
            }
            if self.push.val() & (self.wp.q.val() == self.k_idx[i].val()) {
                self.slots[i].d.next = self.push_data.val();
            }
        }
        self.valid.next = self.count.q.val() != 0;
        self.head.next = self.k_zero.val();
        if self.count.q.val() != 0 {
            self.head.next = self.at_rp.val();
        }
        self.can_push.next = self.count.q.val() < self.k_depth.val();
        if self.pop.val() {
            self.rp.d.next = self.rp.q.val() + 1;
            if self.rp.q.val() == self.k_last.val() {
                self.rp.d.next = 0.into();
            }
        }
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + 1;
            if self.wp.q.val() == self.k_last.val() {
                self.wp.d.next = 0.into();
            }
        }
        self.count.d.next = self.count.q.val() + bit_cast::<5, 1>(self.push.val().into())
            - bit_cast::<5, 1>(self.pop.val().into());
        if self.reset.val() {
            self.count.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.wp.d.next = 0.into();
        }
    }
}
