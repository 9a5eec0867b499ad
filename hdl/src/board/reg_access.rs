//! The bridge's register accesses: node 0's and node 1's register ports as two AXI4-Lite
//! masters, one access at a time on the request's node (the steps `AxW` to `AxR` of
//! [`BridgeState`]).
//!
//! # Ports
//! - `st` (in): the bridge's state; `take` (in): a request word is taken at this edge (a
//!   register write's last word in `RwHi` starts the write's handshakes afresh).
//! - `node`, `reg_addr`, `value`, `node_bit` (in): the request's node, AXI4-Lite address,
//!   write data and the node bit of its response header.
//! - `m_axil_*[k]` (two-element arrays, element `k` for node `k`): the two masters; only the
//!   request's node sees a `valid` or `ready`; the address and data go to both.
//! - `step` (out, [`Step`](super::Step)): as [`ReqIntake`](super::ReqIntake)'s: the
//!   next step, and the response (`RESP` in the header's status bits; a read's data in two
//!   words) once the slave has answered.
//! - `reset` (in): synchronous.

use rust_hdl::prelude::*;

use sanswitch_model::bridge::{Op, header};

use super::{BridgeState, Step};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct RegAccess {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub st: Signal<In, BridgeState>,
    pub take: Signal<In, Bit>,
    pub node: Signal<In, Bit>,
    pub reg_addr: Signal<In, Bits<12>>,
    pub value: Signal<In, Bits<32>>,
    pub node_bit: Signal<In, Bits<16>>,
    pub m_axil_awready: [Signal<In, Bit>; 2],
    pub m_axil_wready: [Signal<In, Bit>; 2],
    pub m_axil_bvalid: [Signal<In, Bit>; 2],
    pub m_axil_bresp: [Signal<In, Bits<2>>; 2],
    pub m_axil_arready: [Signal<In, Bit>; 2],
    pub m_axil_rvalid: [Signal<In, Bit>; 2],
    pub m_axil_rdata: [Signal<In, Bits<32>>; 2],
    pub m_axil_rresp: [Signal<In, Bits<2>>; 2],
    pub m_axil_awvalid: [Signal<Out, Bit>; 2],
    pub m_axil_awaddr: [Signal<Out, Bits<12>>; 2],
    pub m_axil_wvalid: [Signal<Out, Bit>; 2],
    pub m_axil_wdata: [Signal<Out, Bits<32>>; 2],
    pub m_axil_bready: [Signal<Out, Bit>; 2],
    pub m_axil_arvalid: [Signal<Out, Bit>; 2],
    pub m_axil_araddr: [Signal<Out, Bits<12>>; 2],
    pub m_axil_rready: [Signal<Out, Bit>; 2],
    pub step: Signal<Out, Step>,
    /// A write's address and data handshakes done (each may come first).
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    /// The chosen node's handshakes.
    awready: Signal<Local, Bit>,
    wready: Signal<Local, Bit>,
    bvalid: Signal<Local, Bit>,
    bresp: Signal<Local, Bits<2>>,
    arready: Signal<Local, Bit>,
    rvalid: Signal<Local, Bit>,
    rdata: Signal<Local, Bits<32>>,
    rresp: Signal<Local, Bits<2>>,
    awvalid: Signal<Local, Bit>,
    wvalid: Signal<Local, Bit>,
    h_rw: Param<Bits<16>>,
    h_rr: Param<Bits<16>>,
    k_idle: Param<Step>,
}

impl RegAccess {
    pub fn new() -> Self {
        let h = |op: Op| param::<16>(header(op, 0, 0).into());
        RegAccess { h_rw: h(Op::RegWrite), h_rr: h(Op::RegRead), ..Default::default() }
    }
}

impl Logic for RegAccess {
    // rust-hdl's HDL generation takes no match guards: a step's condition is inside its arm.
    #[allow(clippy::collapsible_match)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, aw_done, w_done);
        self.step.next = self.k_idle.val();
        self.awvalid.next = (self.st.val() == BridgeState::AxW) & !self.aw_done.q.val();
        self.wvalid.next = (self.st.val() == BridgeState::AxW) & !self.w_done.q.val();
        self.m_axil_awvalid[0].next = self.awvalid.val() & !self.node.val();
        self.m_axil_wvalid[0].next = self.wvalid.val() & !self.node.val();
        self.m_axil_bready[0].next = (self.st.val() == BridgeState::AxB) & !self.node.val();
        self.m_axil_arvalid[0].next = (self.st.val() == BridgeState::AxAr) & !self.node.val();
        self.m_axil_rready[0].next = (self.st.val() == BridgeState::AxR) & !self.node.val();
        self.m_axil_awvalid[1].next = self.awvalid.val() & self.node.val();
        self.m_axil_wvalid[1].next = self.wvalid.val() & self.node.val();
        self.m_axil_bready[1].next = (self.st.val() == BridgeState::AxB) & self.node.val();
        self.m_axil_arvalid[1].next = (self.st.val() == BridgeState::AxAr) & self.node.val();
        self.m_axil_rready[1].next = (self.st.val() == BridgeState::AxR) & self.node.val();
        for k in 0..2 {
            self.m_axil_awaddr[k].next = self.reg_addr.val();
            self.m_axil_araddr[k].next = self.reg_addr.val();
            self.m_axil_wdata[k].next = self.value.val();
        }
        self.awready.next = self.m_axil_awready[0].val();
        self.wready.next = self.m_axil_wready[0].val();
        self.bvalid.next = self.m_axil_bvalid[0].val();
        self.bresp.next = self.m_axil_bresp[0].val();
        self.arready.next = self.m_axil_arready[0].val();
        self.rvalid.next = self.m_axil_rvalid[0].val();
        self.rdata.next = self.m_axil_rdata[0].val();
        self.rresp.next = self.m_axil_rresp[0].val();
        if self.node.val() {
            self.awready.next = self.m_axil_awready[1].val();
            self.wready.next = self.m_axil_wready[1].val();
            self.bvalid.next = self.m_axil_bvalid[1].val();
            self.bresp.next = self.m_axil_bresp[1].val();
            self.arready.next = self.m_axil_arready[1].val();
            self.rvalid.next = self.m_axil_rvalid[1].val();
            self.rdata.next = self.m_axil_rdata[1].val();
            self.rresp.next = self.m_axil_rresp[1].val();
        }
        match self.st.val() {
            BridgeState::RwHi => {
                if self.take.val() {
                    self.aw_done.d.next = false;
                    self.w_done.d.next = false;
                }
            }
            BridgeState::AxW => {
                self.aw_done.d.next = self.aw_done.q.val() | self.awready.val();
                self.w_done.d.next = self.w_done.q.val() | self.wready.val();
                if (self.aw_done.q.val() | self.awready.val())
                    & (self.w_done.q.val() | self.wready.val())
                {
                    self.step.next.set_st = true;
                    self.step.next.next_st = BridgeState::AxB;
                }
            }
            BridgeState::AxB => {
                if self.bvalid.val() {
                    self.step.next.q_load = true;
                    self.step.next.q0 =
                        self.h_rw.val() | self.node_bit.val() | bit_cast::<16, 2>(self.bresp.val());
                    self.step.next.q_n = 1.into();
                }
            }
            BridgeState::AxAr => {
                if self.arready.val() {
                    self.step.next.set_st = true;
                    self.step.next.next_st = BridgeState::AxR;
                }
            }
            BridgeState::AxR => {
                if self.rvalid.val() {
                    self.step.next.q_load = true;
                    self.step.next.q0 =
                        self.h_rr.val() | self.node_bit.val() | bit_cast::<16, 2>(self.rresp.val());
                    self.step.next.q1 = self.rdata.val().get_bits::<16>(0);
                    self.step.next.q2 = self.rdata.val().get_bits::<16>(16);
                    self.step.next.q_n = 3.into();
                }
            }
            _ => {}
        }
        if self.reset.val() {
            self.aw_done.d.next = false;
            self.w_done.d.next = false;
        }
    }
}
