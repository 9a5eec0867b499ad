//! A first-word-fall-through FIFO of a few entries, as a shift register (model:
//! `sanswitch_model::blocks::widgets::Fifo`).
//!
//! # Ports
//! - `push`, `push_data` (in): append at the edge (only while `can_push`).
//! - `pop` (in): take the head at the edge (only while `valid`).
//! - `valid`, `head` (out): the head, zero while empty (from registers).
//! - `can_push` (out): fewer than `depth` entries (from the count register: a full FIFO refuses
//!   a push even in the cycle its head is taken).
//! - `reset` (in): synchronous; empty.
//!
//! Entries shift toward slot 0 on a pop, so the head is always slot 0 and no read pointer or
//! multiplexer is needed: the right shape for the shallow FIFOs between the engine's units.

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
    k_idx: Vec<Param<Bits<5>>>,
    k_depth: Param<Bits<5>>,
    k_zero: Param<D>,
    wpos: Signal<Local, Bits<5>>,
}

impl<D: Synth> Fifo<D> {
    /// A FIFO of `depth` entries (1..=16).
    pub fn new(depth: usize) -> Self {
        assert!((1..=16).contains(&depth));
        Fifo {
            slots: (0..depth).map(|_| Default::default()).collect(),
            k_idx: (0..depth).map(|i| param(i as u64)).collect(),
            k_depth: param(depth as u64),
            ..Default::default()
        }
    }
}

impl<D: Synth> Logic for Fifo<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count);
        for i in 0..self.slots.len() {
            self.slots[i].clock.next = self.clock.val();
            self.slots[i].d.next = self.slots[i].q.val();
        }
        self.valid.next = self.count.q.val() != 0;
        self.head.next = self.k_zero.val();
        if self.count.q.val() != 0 {
            self.head.next = self.slots[0].q.val();
        }
        self.can_push.next = self.count.q.val() < self.k_depth.val();
        self.wpos.next = self.count.q.val();
        if self.pop.val() {
            for i in 1..self.slots.len() {
                self.slots[i - 1].d.next = self.slots[i].q.val();
            }
            self.wpos.next = self.count.q.val() - 1;
        }
        if self.push.val() {
            for i in 0..self.slots.len() {
                if self.wpos.val() == self.k_idx[i].val() {
                    self.slots[i].d.next = self.push_data.val();
                }
            }
        }
        self.count.d.next = self.count.q.val() + bit_cast::<5, 1>(self.push.val().into())
            - bit_cast::<5, 1>(self.pop.val().into());
        if self.reset.val() {
            self.count.d.next = 0.into();
        }
    }
}
