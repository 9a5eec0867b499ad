//! The engine's counter read port: the index names a block (`[7:5]`,
//! `sanswitch_model::blocks::engine::cnt_block`) and a counter in it (`[4:0]`); every bank
//! reads the counter index, this picks the named block's answer.
//!
//! # Ports
//! - `rd_index` (in): the engine's `cnt_rd_index`; `bank_index` (out): its counter part, to
//!   every bank's `cnt_rd_index`.
//! - `parser_data`, `pool_data`, `seq_data` (in): the banks' `cnt_rd_data`; `rd_data` (out):
//!   the engine's `cnt_rd_data`, zero for a block number with no bank.
//! - `reset` (in): synchronous.
//!
//! # Timing
//! The block number is registered, so `rd_data` is the counter the index named the cycle
//! before (the banks register their own read the same way).

use rust_hdl::prelude::*;
use sanswitch_model::blocks::engine::cnt_block;

use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CntMux {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rd_index: Signal<In, Bits<8>>,
    pub parser_data: Signal<In, Bits<32>>,
    pub pool_data: Signal<In, Bits<32>>,
    pub seq_data: Signal<In, Bits<32>>,
    pub bank_index: Signal<Out, Bits<5>>,
    pub rd_data: Signal<Out, Bits<32>>,
    /// The block the index named the cycle before.
    sel: DFF<Bits<3>>,
    k_parser: Param<Bits<3>>,
    k_pool: Param<Bits<3>>,
    k_seq: Param<Bits<3>>,
}

impl CntMux {
    pub fn new() -> Self {
        CntMux {
            k_parser: param(cnt_block::PARSER as u64),
            k_pool: param(cnt_block::POOL as u64),
            k_seq: param(cnt_block::SEQUENCER as u64),
            ..Default::default()
        }
    }
}

impl Logic for CntMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sel);
        self.bank_index.next = self.rd_index.val().get_bits::<5>(0);
        self.sel.d.next = self.rd_index.val().get_bits::<3>(5);
        if self.reset.val() {
            self.sel.d.next = 0.into();
        }
        self.rd_data.next = 0.into();
        if self.sel.q.val() == self.k_parser.val() {
            self.rd_data.next = self.parser_data.val();
        }
        if self.sel.q.val() == self.k_pool.val() {
            self.rd_data.next = self.pool_data.val();
        }
        if self.sel.q.val() == self.k_seq.val() {
            self.rd_data.next = self.seq_data.val();
        }
    }
}
