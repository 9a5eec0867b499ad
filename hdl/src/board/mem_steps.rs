//! The bridge's memory requests, word by word (the steps `WData` to `Words` of
//! [`BridgeState`]): a write's data words gathered four to a 64-bit word and written, a
//! read's words read one at a time and sent as four response words each.
//!
//! # Ports
//! - `st` (in): the bridge's state; `take`, `d` (in): a request word taken at this edge
//!   (the request's length in `Len` starts the count afresh; its data in `WData`).
//! - `ok`, `last`, `node_bit`, `mem_st` (in): the request lies inside the memory, word `k`
//!   is its last, the node bit and status bits of its response header.
//! - `k` (out): the memory word at hand (for the decode of its index and bytes).
//! - `m_mem_valid`, `m_mem_write`, `m_mem_wdata` (out), `m_mem_ready`, `s_mem_rvalid`,
//!   `s_mem_rdata` (in): the memory port, as the bridge's.
//! - `can_put` (in), `put`, `word` (out): a read's data words to the response register.
//! - `step` (out, [`Step`](super::Step)): as [`ReqIntake`](super::ReqIntake)'s: the
//!   next step, and a write's response once its last word is written (or dropped).
//! - `reset` (in): synchronous.

use rust_hdl::prelude::*;

use sanswitch_model::bridge::{Op, header};

use super::{BridgeState, Step};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct MemSteps {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub st: Signal<In, BridgeState>,
    pub take: Signal<In, Bit>,
    pub d: Signal<In, Bits<16>>,
    pub ok: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub node_bit: Signal<In, Bits<16>>,
    pub mem_st: Signal<In, Bits<16>>,
    pub m_mem_ready: Signal<In, Bit>,
    pub s_mem_rvalid: Signal<In, Bit>,
    pub s_mem_rdata: Signal<In, Bits<64>>,
    pub can_put: Signal<In, Bit>,
    pub k: Signal<Out, Bits<16>>,
    pub m_mem_valid: Signal<Out, Bit>,
    pub m_mem_write: Signal<Out, Bit>,
    pub m_mem_wdata: Signal<Out, Bits<64>>,
    pub put: Signal<Out, Bit>,
    pub word: Signal<Out, Bits<16>>,
    pub step: Signal<Out, Step>,
    /// The word at hand, the 16-bit part of it at hand, the 64-bit word itself.
    k_r: DFF<Bits<16>>,
    j: DFF<Bits<2>>,
    data: DFF<Bits<64>>,
    h_mw: Param<Bits<16>>,
    k_idle: Param<Step>,
}

impl MemSteps {
    pub fn new() -> Self {
        MemSteps { h_mw: param(header(Op::MemWrite, 0, 0).into()), ..Default::default() }
    }
}

impl Logic for MemSteps {
    // rust-hdl's HDL generation takes no match guards: a step's condition is inside its arm.
    #[allow(clippy::collapsible_match)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, k_r, j, data);
        self.step.next = self.k_idle.val();
        self.k.next = self.k_r.q.val();
        self.m_mem_write.next = self.st.val() == BridgeState::MemW;
        self.m_mem_valid.next = self.m_mem_write.val() | (self.st.val() == BridgeState::MemR);
        self.m_mem_wdata.next = self.data.q.val();
        self.put.next = false;
        self.word.next = 0.into();
        match self.st.val() {
            BridgeState::Len => {
                if self.take.val() {
                    self.k_r.d.next = 0.into();
                    self.j.d.next = 0.into();
                }
            }
            BridgeState::WData => {
                if self.take.val() {
                    self.data.d.next =
                        (self.data.q.val() >> 16) | (bit_cast::<64, 16>(self.d.val()) << 48);
                    self.j.d.next = self.j.q.val() + 1;
                    if self.j.q.val().all() & self.ok.val() {
                        self.step.next.set_st = true;
                        self.step.next.next_st = BridgeState::MemW;
                    } else if self.j.q.val().all() {
                        // Outside the memory: the words are taken and dropped.
                        self.k_r.d.next = self.k_r.q.val() + 1;
                        if self.last.val() {
                            self.step.next.q_load = true;
                            self.step.next.q0 =
                                self.h_mw.val() | self.node_bit.val() | self.mem_st.val();
                            self.step.next.q_n = 1.into();
                        }
                    }
                }
            }
            BridgeState::MemW => {
                if self.m_mem_ready.val() {
                    self.k_r.d.next = self.k_r.q.val() + 1;
                    self.step.next.set_st = true;
                    self.step.next.next_st = BridgeState::WData;
                    if self.last.val() {
                        self.step.next.q_load = true;
                        self.step.next.q0 =
                            self.h_mw.val() | self.node_bit.val() | self.mem_st.val();
                        self.step.next.q_n = 1.into();
                    }
                }
            }
            BridgeState::MemR => {
                if self.m_mem_ready.val() {
                    self.step.next.set_st = true;
                    self.step.next.next_st = BridgeState::MemWait;
                }
            }
            BridgeState::MemWait => {
                if self.s_mem_rvalid.val() {
                    self.data.d.next = self.s_mem_rdata.val();
                    self.j.d.next = 0.into();
                    self.step.next.set_st = true;
                    self.step.next.next_st = BridgeState::Words;
                }
            }
            BridgeState::Words => {
                if self.can_put.val() {
                    self.put.next = true;
                    self.word.next = self.data.q.val().get_bits::<16>(0);
                    self.data.d.next = self.data.q.val() >> 16;
                    self.j.d.next = self.j.q.val() + 1;
                    if self.j.q.val().all() {
                        self.k_r.d.next = self.k_r.q.val() + 1;
                        self.step.next.set_st = true;
                        self.step.next.next_st = BridgeState::MemR;
                        if self.last.val() {
                            self.step.next.next_st = BridgeState::Hdr;
                        }
                    }
                }
            }
            _ => {}
        }
        if self.reset.val() {
            self.k_r.d.next = 0.into();
            self.j.d.next = 0.into();
            self.data.d.next = 0.into();
        }
    }
}
