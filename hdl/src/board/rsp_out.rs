//! The bridge's response output: one register on `m_axis_rsp_*`, and where the stream
//! stands in its 512-word block (what `FLUSH` pads to).
//!
//! # Ports
//! - `put` (in), `word` (in): a word for the register this cycle; only when `can_put`.
//! - `can_put` (out): the register is empty or being taken (`!tvalid | tready`).
//! - `m_axis_rsp_tvalid`, `m_axis_rsp_tdata` (out), `m_axis_rsp_tready` (in): the stream.
//! - `at_block_start` (out): the words put since reset are a whole number of blocks.
//! - `reset` (in): synchronous.
//!
//! # Timing
//! A word put at an edge is shown from the next cycle; `can_put` is combinational from
//! `tready` (the FIFO behind it registers its own ready).

use rust_hdl::prelude::*;

use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct RspOut {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub put: Signal<In, Bit>,
    pub word: Signal<In, Bits<16>>,
    pub m_axis_rsp_tready: Signal<In, Bit>,
    pub m_axis_rsp_tvalid: Signal<Out, Bit>,
    pub m_axis_rsp_tdata: Signal<Out, Bits<16>>,
    pub can_put: Signal<Out, Bit>,
    pub at_block_start: Signal<Out, Bit>,
    out_v: DFF<Bit>,
    out: DFF<Bits<16>>,
    /// Words put since the last block boundary (the block is 512 words: 9 bits wrap).
    in_block: DFF<Bits<9>>,
    k_one: Param<Bits<9>>,
}

impl RspOut {
    pub fn new() -> Self {
        assert_eq!(sanswitch_model::bridge::BLOCK_WORDS, 1 << 9, "in_block wraps at the block");
        RspOut { k_one: param(1), ..Default::default() }
    }
}

impl Logic for RspOut {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_v, out, in_block);
        self.m_axis_rsp_tvalid.next = self.out_v.q.val();
        self.m_axis_rsp_tdata.next = self.out.q.val();
        self.can_put.next = !self.out_v.q.val() | self.m_axis_rsp_tready.val();
        self.at_block_start.next = !self.in_block.q.val().any();
        if self.m_axis_rsp_tready.val() {
            self.out_v.d.next = false;
        }
        if self.put.val() & self.can_put.val() {
            self.out_v.d.next = true;
            self.out.d.next = self.word.val();
            self.in_block.d.next = self.in_block.q.val() + self.k_one.val();
        }
        if self.reset.val() {
            self.out_v.d.next = false;
            self.out.d.next = 0.into();
            self.in_block.d.next = 0.into();
        }
    }
}
