//! The bridge's request intake: a request's header and argument words taken into registers
//! (the steps `Hdr` to `Len` of [`BridgeState`]), the answers that need no bus or memory
//! access queued at once, the rest handed on by the state it names.
//!
//! # Ports
//! - `st` (in): the bridge's state; `take` (in): a request word `d` is taken at this edge
//!   (`tready` (out): the states that take words: these and `WData`).
//! - `step` (out, [`Step`](super::Step)): the state to go to at this edge, from one of these
//!   steps, and response words to queue for `Emit`; `q_after` (out): the state after them.
//! - The request's fields, registered: `node`, `value` (a register write's), `ok` (it lies
//!   inside the memory); and decoded ([`BridgeDecode`], with `k` (in) the memory word at
//!   hand): `node_bit`, `reg_addr`, `index`, `mask`, `last`, `mem_st`.
//! - `errors` (out): headers answered `ERROR` since reset. `reset` (in): synchronous.

use rust_hdl::prelude::*;

use sanswitch_model::bridge::{Op, header};

use super::{BridgeDecode, BridgeState, Step};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct ReqIntake {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub st: Signal<In, BridgeState>,
    pub take: Signal<In, Bit>,
    pub d: Signal<In, Bits<16>>,
    pub k: Signal<In, Bits<16>>,
    pub tready: Signal<Out, Bit>,
    pub q_after: Signal<Out, BridgeState>,
    pub node: Signal<Out, Bit>,
    pub value: Signal<Out, Bits<32>>,
    pub ok: Signal<Out, Bit>,
    pub node_bit: Signal<Out, Bits<16>>,
    pub reg_addr: Signal<Out, Bits<12>>,
    pub index: Signal<Out, Bits<16>>,
    pub mask: Signal<Out, Bits<8>>,
    pub last: Signal<Out, Bit>,
    pub mem_st: Signal<Out, Bits<16>>,
    pub errors: Signal<Out, Bits<16>>,
    pub step: Signal<Out, Step>,
    dec: BridgeDecode,
    node_r: DFF<Bit>,
    arg: DFF<Bits<11>>,
    value_r: DFF<Bits<32>>,
    addr: DFF<Bits<32>>,
    len: DFF<Bits<16>>,
    write_r: DFF<Bit>,
    ok_r: DFF<Bit>,
    nwords: DFF<Bits<16>>,
    errs: DFF<Bits<16>>,
    h_error: Param<Bits<16>>,
    h_rw: Param<Bits<16>>,
    h_rr: Param<Bits<16>>,
    h_mw: Param<Bits<16>>,
    h_mr: Param<Bits<16>>,
    k_idle: Param<Step>,
}

impl ReqIntake {
    /// In front of two memories of `mem_bytes` each (as [`BridgeDecode::new`]).
    pub fn new(mem_bytes: u32) -> Self {
        let h = |op: Op| param::<16>(header(op, 0, 0).into());
        ReqIntake {
            dec: BridgeDecode::new(mem_bytes),
            h_error: h(Op::Error),
            h_rw: h(Op::RegWrite),
            h_rr: h(Op::RegRead),
            h_mw: h(Op::MemWrite),
            h_mr: h(Op::MemRead),
            ..Default::default()
        }
    }
}

impl Logic for ReqIntake {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, node_r, arg, value_r, addr, len, write_r, ok_r, nwords, errs);
        self.step.next = self.k_idle.val();
        self.dec.d.next = self.d.val();
        self.dec.arg.next = self.arg.q.val();
        self.dec.node.next = self.node_r.q.val();
        self.dec.addr.next = self.addr.q.val();
        self.dec.len.next = self.len.q.val();
        self.dec.k.next = self.k.val();
        self.dec.nwords.next = self.nwords.q.val();
        self.dec.ok.next = self.ok_r.q.val();
        self.node.next = self.node_r.q.val();
        self.value.next = self.value_r.q.val();
        self.ok.next = self.ok_r.q.val();
        self.node_bit.next = self.dec.node_bit.val();
        self.reg_addr.next = self.dec.reg_addr.val();
        self.index.next = self.dec.index.val();
        self.mask.next = self.dec.mask.val();
        self.last.next = self.dec.last.val();
        self.mem_st.next = self.dec.mem_st.val();
        self.errors.next = self.errs.q.val();
        // Words are taken in the states that read them.
        self.tready.next = (self.st.val() == BridgeState::Hdr)
            | (self.st.val() == BridgeState::RwLo)
            | (self.st.val() == BridgeState::RwHi)
            | (self.st.val() == BridgeState::AddrLo)
            | (self.st.val() == BridgeState::AddrHi)
            | (self.st.val() == BridgeState::Len)
            | (self.st.val() == BridgeState::WData);
        self.q_after.next = BridgeState::Hdr;
        if self.take.val() {
            match self.st.val() {
                BridgeState::Hdr => {
                    self.node_r.d.next = self.d.val().get_bit(11);
                    self.arg.d.next = self.d.val().get_bits::<11>(0);
                    if self.dec.is_nop.val() {
                    } else if self.dec.is_rw.val() {
                        self.step.next.set_st = true;
                        self.step.next.next_st = BridgeState::RwLo;
                    } else if self.dec.is_rr.val() & self.dec.d_in_space.val() {
                        self.step.next.set_st = true;
                        self.step.next.next_st = BridgeState::AxAr;
                    } else if self.dec.is_rr.val() {
                        self.step.next.q_load = true;
                        self.step.next.q0 =
                            self.h_rr.val() | self.dec.d_node_bit.val() | self.dec.slverr.val();
                        self.step.next.q_n = 3.into();
                    } else if self.dec.is_mem.val() {
                        self.write_r.d.next = self.dec.is_mw.val();
                        self.step.next.set_st = true;
                        self.step.next.next_st = BridgeState::AddrLo;
                    } else if self.dec.is_flush.val() {
                        self.step.next.set_st = true;
                        self.step.next.next_st = BridgeState::Pad;
                    } else {
                        self.errs.d.next = self.errs.q.val() + 1;
                        self.step.next.q_load = true;
                        self.step.next.q0 = self.h_error.val();
                        self.step.next.q1 = self.d.val();
                        self.step.next.q_n = 2.into();
                    }
                }
                BridgeState::RwLo => {
                    self.value_r.d.next = bit_cast::<32, 16>(self.d.val());
                    self.step.next.set_st = true;
                    self.step.next.next_st = BridgeState::RwHi;
                }
                BridgeState::RwHi => {
                    self.value_r.d.next =
                        self.value_r.q.val() | (bit_cast::<32, 16>(self.d.val()) << 16);
                    if self.dec.in_space.val() {
                        self.step.next.set_st = true;
                        self.step.next.next_st = BridgeState::AxW;
                    } else {
                        self.step.next.q_load = true;
                        self.step.next.q0 =
                            self.h_rw.val() | self.dec.node_bit.val() | self.dec.slverr.val();
                        self.step.next.q_n = 1.into();
                    }
                }
                BridgeState::AddrLo => {
                    self.addr.d.next = bit_cast::<32, 16>(self.d.val());
                    self.step.next.set_st = true;
                    self.step.next.next_st = BridgeState::AddrHi;
                }
                BridgeState::AddrHi => {
                    self.addr.d.next = self.addr.q.val() | (bit_cast::<32, 16>(self.d.val()) << 16);
                    self.step.next.set_st = true;
                    self.step.next.next_st = BridgeState::Len;
                }
                BridgeState::Len => {
                    self.len.d.next = self.d.val();
                    self.ok_r.d.next = self.dec.len_ok.val();
                    self.nwords.d.next = self.dec.len_words.val();
                    if self.write_r.q.val() & self.dec.len_words.val().any() {
                        self.step.next.set_st = true;
                        self.step.next.next_st = BridgeState::WData;
                    } else if self.write_r.q.val() {
                        self.step.next.q_load = true;
                        self.step.next.q0 =
                            self.h_mw.val() | self.dec.node_bit.val() | self.dec.len_st.val();
                        self.step.next.q_n = 1.into();
                    } else {
                        self.step.next.q_load = true;
                        self.step.next.q0 =
                            self.h_mr.val() | self.dec.node_bit.val() | self.dec.len_st.val();
                        self.step.next.q_n = 2.into();
                        if self.dec.len_ok.val() {
                            self.step.next.q1 = self.dec.len_words.val();
                            self.q_after.next = BridgeState::MemR;
                        }
                    }
                }
                _ => {}
            }
        }
        if self.reset.val() {
            self.node_r.d.next = false;
            self.arg.d.next = 0.into();
            self.value_r.d.next = 0.into();
            self.addr.d.next = 0.into();
            self.len.d.next = 0.into();
            self.write_r.d.next = false;
            self.ok_r.d.next = false;
            self.nwords.d.next = 0.into();
            self.errs.d.next = 0.into();
        }
    }
}
