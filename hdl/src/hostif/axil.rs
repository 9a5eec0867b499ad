//! An AXI4-Lite register slave: the five channels turned into one write strobe and one
//! registered read, for a register file that decodes addresses combinationally (the model:
//! `sanswitch_model::blocks::hostif`, "Registers").
//!
//! A write is taken when address and data are valid together (`awready` and `wready` rise
//! with them, while no answer is pending); the register file applies it at that edge
//! (`wr`, `wr_addr`, `wr_data`) and says whether the address exists (`wr_ok`); `bvalid`
//! answers the next cycle, `SLVERR` for a hole. A read is taken while no read is in flight;
//! the cycle after, `rd_addr` holds its address and the register file's `rd_data`/`rd_ok`
//! are sampled into the answer, shown from the cycle after that (`rvalid`).
//!
//! # Ports
//! - `s_axil_*`: the AXI4-Lite slave (12-bit byte addresses; the low two bits ignored).
//! - `wr`, `wr_addr`, `wr_data` (out), `wr_ok` (in): the write taken this cycle.
//! - `rd_addr` (out), `rd_data`, `rd_ok` (in): the read being answered this cycle.
//! - `wr_bad`, `rd_bad` (out): a hole written or read, at this edge (for a counter).

use rust_hdl::prelude::*;

use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct AxiLiteRegs {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awaddr: Signal<In, Bits<12>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<12>>,
    pub s_axil_rready: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub wr: Signal<Out, Bit>,
    pub wr_addr: Signal<Out, Bits<12>>,
    pub wr_data: Signal<Out, Bits<32>>,
    pub wr_ok: Signal<In, Bit>,
    pub rd_addr: Signal<Out, Bits<12>>,
    pub rd_data: Signal<In, Bits<32>>,
    pub rd_ok: Signal<In, Bit>,
    pub wr_bad: Signal<Out, Bit>,
    pub rd_bad: Signal<Out, Bit>,
    b_pend: DFF<Bit>,
    b_err: DFF<Bit>,
    ar_pend: DFF<Bit>,
    ar_addr: DFF<Bits<12>>,
    r_pend: DFF<Bit>,
    r_err: DFF<Bit>,
    r_data: DFF<Bits<32>>,
    /// Word-aligned addresses only.
    k_word: Param<Bits<12>>,
}

impl AxiLiteRegs {
    pub fn new() -> Self {
        AxiLiteRegs { k_word: param(0xFFC), ..Default::default() }
    }
}

impl Logic for AxiLiteRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, b_pend, b_err, ar_pend, ar_addr, r_pend, r_err, r_data);
        self.wr.next = !self.b_pend.q.val() & self.s_axil_awvalid.val() & self.s_axil_wvalid.val();
        self.s_axil_awready.next = self.wr.val();
        self.s_axil_wready.next = self.wr.val();
        self.wr_addr.next = self.s_axil_awaddr.val() & self.k_word.val();
        self.wr_data.next = self.s_axil_wdata.val();
        self.s_axil_bvalid.next = self.b_pend.q.val();
        self.s_axil_bresp.next = 0.into();
        if self.b_pend.q.val() & self.b_err.q.val() {
            self.s_axil_bresp.next = 2.into();
        }
        self.s_axil_arready.next = !self.ar_pend.q.val() & !self.r_pend.q.val();
        self.s_axil_rvalid.next = self.r_pend.q.val();
        self.s_axil_rdata.next = 0.into();
        if self.r_pend.q.val() {
            self.s_axil_rdata.next = self.r_data.q.val();
        }
        self.s_axil_rresp.next = 0.into();
        if self.r_pend.q.val() & self.r_err.q.val() {
            self.s_axil_rresp.next = 2.into();
        }
        self.rd_addr.next = self.ar_addr.q.val();
        self.wr_bad.next = self.wr.val() & !self.wr_ok.val();
        self.rd_bad.next = self.ar_pend.q.val() & !self.rd_ok.val();

        if self.b_pend.q.val() & self.s_axil_bready.val() {
            self.b_pend.d.next = false;
        }
        if self.r_pend.q.val() & self.s_axil_rready.val() {
            self.r_pend.d.next = false;
        }
        if self.ar_pend.q.val() {
            self.ar_pend.d.next = false;
            self.r_pend.d.next = true;
            self.r_err.d.next = !self.rd_ok.val();
            self.r_data.d.next = 0.into();
            if self.rd_ok.val() {
                self.r_data.d.next = self.rd_data.val();
            }
        }
        if self.s_axil_arready.val() & self.s_axil_arvalid.val() {
            self.ar_pend.d.next = true;
            self.ar_addr.d.next = self.s_axil_araddr.val() & self.k_word.val();
        }
        if self.wr.val() {
            self.b_pend.d.next = true;
            self.b_err.d.next = !self.wr_ok.val();
        }
        if self.reset.val() {
            self.b_pend.d.next = false;
            self.b_err.d.next = false;
            self.ar_pend.d.next = false;
            self.ar_addr.d.next = 0.into();
            self.r_pend.d.next = false;
            self.r_err.d.next = false;
            self.r_data.d.next = 0.into();
        }
    }
}
