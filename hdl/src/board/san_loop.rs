//! The board's on-chip SAN loopback: what joins the XEM7010's two NICs where the
//! simulations put the fabric model. Model: `sanswitch_model::blocks::san_loop` (its
//! rustdoc and `docs/BOARD.md` give the behaviour and timing).
//!
//! # Ports
//! Every per-node port is a two-element array, element `k` (`s_axis_tx_tvalid[k]`, Verilog
//! `s_axis_tx_tvalid$k`) belongs to node `k` (0, 1), so a parent wires both nodes in one
//! `for` loop. Named from the loopback's side:
//! - `s_axis_tx_*[k]`, `s_axis_down_*[k]` (in): node `k`'s `m_axis_tx_*`, `m_axis_down_*`;
//!   `m_axis_rx_*[k]`, `m_axis_down_*[k]` (out): its `s_axis_rx_*`, `s_axis_down_*`.
//! - `s_axis_rq_*[k]` (in), `m_axis_rs_*[k]` (out): node `k`'s RDMA requests and their
//!   responses; `m_axis_ac_*[k]` (out), `s_axis_ck_*[k]` (in): the other node's requests
//!   checked by node `k`.
//! - `m_mem_*[k]` (out: `valid`, `write`, `index`, `wdata`, `wmask`; in: `ready`),
//!   `s_mem_rdata[k]` (in): node `k` memory's word port (`NodeMem`'s `s_mem_*`, read data a
//!   cycle after the grant).
//! - `cnt_copies`, `cnt_oob` (out): copies done, granted ranges outside a memory (16 bits,
//!   wrapping); `busy` (out): a unit not idle or a message in a link (the activity LED).
//! - `reset` (in): synchronous.
//!
//! # Structure
//! [`MsgLink`] `k` carries node `k`'s messages to the other node; [`RdmaCopy`] `k` carries out
//! node `k`'s requests; [`WordArb`] `k` shares node `k`'s memory between unit `k` (its
//! initiator memory, master `a`) and the other unit (its target memory, master `b`).

use rust_hdl::prelude::*;

use super::{MsgLink, RdmaCopy, WordArb};

#[derive(LogicBlock, Default)]
pub struct SanLoop {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_tx_tvalid: [Signal<In, Bit>; 2],
    pub s_axis_tx_tdata: [Signal<In, Bits<64>>; 2],
    pub s_axis_tx_tkeep: [Signal<In, Bits<8>>; 2],
    pub s_axis_tx_tlast: [Signal<In, Bit>; 2],
    pub s_axis_tx_tuser: [Signal<In, Bits<8>>; 2],
    pub s_axis_down_tvalid: [Signal<In, Bit>; 2],
    pub s_axis_down_conn: [Signal<In, Bits<8>>; 2],
    pub m_axis_rx_tready: [Signal<In, Bit>; 2],
    pub m_axis_down_tready: [Signal<In, Bit>; 2],
    pub s_axis_rq_tvalid: [Signal<In, Bit>; 2],
    pub s_axis_rq_tag: [Signal<In, Bits<16>>; 2],
    pub s_axis_rq_write: [Signal<In, Bit>; 2],
    pub s_axis_rq_conn: [Signal<In, Bits<8>>; 2],
    pub s_axis_rq_raddr: [Signal<In, Bits<64>>; 2],
    pub s_axis_rq_rkey: [Signal<In, Bits<32>>; 2],
    pub s_axis_rq_laddr: [Signal<In, Bits<64>>; 2],
    pub s_axis_rq_len: [Signal<In, Bits<32>>; 2],
    pub m_axis_rs_tready: [Signal<In, Bit>; 2],
    pub m_axis_ac_tready: [Signal<In, Bit>; 2],
    pub s_axis_ck_tvalid: [Signal<In, Bit>; 2],
    pub s_axis_ck_grant: [Signal<In, Bit>; 2],
    pub s_axis_ck_reason: [Signal<In, Bits<3>>; 2],
    pub m_mem_ready: [Signal<In, Bit>; 2],
    pub s_mem_rdata: [Signal<In, Bits<64>>; 2],
    pub s_axis_tx_tready: [Signal<Out, Bit>; 2],
    pub s_axis_down_tready: [Signal<Out, Bit>; 2],
    pub m_axis_rx_tvalid: [Signal<Out, Bit>; 2],
    pub m_axis_rx_tdata: [Signal<Out, Bits<64>>; 2],
    pub m_axis_rx_tkeep: [Signal<Out, Bits<8>>; 2],
    pub m_axis_rx_tlast: [Signal<Out, Bit>; 2],
    pub m_axis_rx_tuser: [Signal<Out, Bits<8>>; 2],
    pub m_axis_down_tvalid: [Signal<Out, Bit>; 2],
    pub m_axis_down_conn: [Signal<Out, Bits<8>>; 2],
    pub s_axis_rq_tready: [Signal<Out, Bit>; 2],
    pub m_axis_rs_tvalid: [Signal<Out, Bit>; 2],
    pub m_axis_rs_tag: [Signal<Out, Bits<16>>; 2],
    pub m_axis_rs_status: [Signal<Out, Bits<3>>; 2],
    pub m_axis_ac_tvalid: [Signal<Out, Bit>; 2],
    pub m_axis_ac_conn: [Signal<Out, Bits<8>>; 2],
    pub m_axis_ac_key: [Signal<Out, Bits<32>>; 2],
    pub m_axis_ac_write: [Signal<Out, Bit>; 2],
    pub m_axis_ac_addr: [Signal<Out, Bits<64>>; 2],
    pub m_axis_ac_len: [Signal<Out, Bits<32>>; 2],
    pub s_axis_ck_tready: [Signal<Out, Bit>; 2],
    pub m_mem_valid: [Signal<Out, Bit>; 2],
    pub m_mem_write: [Signal<Out, Bit>; 2],
    pub m_mem_index: [Signal<Out, Bits<16>>; 2],
    pub m_mem_wdata: [Signal<Out, Bits<64>>; 2],
    pub m_mem_wmask: [Signal<Out, Bits<8>>; 2],
    pub cnt_copies: Signal<Out, Bits<16>>,
    pub cnt_oob: Signal<Out, Bits<16>>,
    pub busy: Signal<Out, Bit>,
    links: [MsgLink; 2],
    units: [RdmaCopy; 2],
    arbs: [WordArb; 2],
}

impl SanLoop {
    /// A loopback between two node memories of `words` 64-bit words.
    pub fn new(words: usize) -> Self {
        SanLoop { units: [RdmaCopy::new(words), RdmaCopy::new(words)], ..Default::default() }
    }
}

impl Logic for SanLoop {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..2 {
            // Link k carries node k's messages to node 1 - k.
            self.links[k].clock.next = self.clock.val();
            self.links[k].reset.next = self.reset.val();
            self.links[k].s_axis_tx_tvalid.next = self.s_axis_tx_tvalid[k].val();
            self.links[k].s_axis_tx_tdata.next = self.s_axis_tx_tdata[k].val();
            self.links[k].s_axis_tx_tkeep.next = self.s_axis_tx_tkeep[k].val();
            self.links[k].s_axis_tx_tlast.next = self.s_axis_tx_tlast[k].val();
            self.links[k].s_axis_tx_tuser.next = self.s_axis_tx_tuser[k].val();
            self.links[k].s_axis_down_tvalid.next = self.s_axis_down_tvalid[k].val();
            self.links[k].s_axis_down_conn.next = self.s_axis_down_conn[k].val();
            self.s_axis_tx_tready[k].next = self.links[k].s_axis_tx_tready.val();
            self.s_axis_down_tready[k].next = self.links[k].s_axis_down_tready.val();
            self.links[k].m_axis_rx_tready.next = self.m_axis_rx_tready[1 - k].val();
            self.links[k].m_axis_down_tready.next = self.m_axis_down_tready[1 - k].val();
            self.m_axis_rx_tvalid[1 - k].next = self.links[k].m_axis_rx_tvalid.val();
            self.m_axis_rx_tdata[1 - k].next = self.links[k].m_axis_rx_tdata.val();
            self.m_axis_rx_tkeep[1 - k].next = self.links[k].m_axis_rx_tkeep.val();
            self.m_axis_rx_tlast[1 - k].next = self.links[k].m_axis_rx_tlast.val();
            self.m_axis_rx_tuser[1 - k].next = self.links[k].m_axis_rx_tuser.val();
            self.m_axis_down_tvalid[1 - k].next = self.links[k].m_axis_down_tvalid.val();
            self.m_axis_down_conn[1 - k].next = self.links[k].m_axis_down_conn.val();
            // Unit k carries out node k's requests; node 1 - k checks them.
            self.units[k].clock.next = self.clock.val();
            self.units[k].reset.next = self.reset.val();
            self.units[k].s_axis_rq_tvalid.next = self.s_axis_rq_tvalid[k].val();
            self.units[k].s_axis_rq_tag.next = self.s_axis_rq_tag[k].val();
            self.units[k].s_axis_rq_write.next = self.s_axis_rq_write[k].val();
            self.units[k].s_axis_rq_conn.next = self.s_axis_rq_conn[k].val();
            self.units[k].s_axis_rq_raddr.next = self.s_axis_rq_raddr[k].val();
            self.units[k].s_axis_rq_rkey.next = self.s_axis_rq_rkey[k].val();
            self.units[k].s_axis_rq_laddr.next = self.s_axis_rq_laddr[k].val();
            self.units[k].s_axis_rq_len.next = self.s_axis_rq_len[k].val();
            self.s_axis_rq_tready[k].next = self.units[k].s_axis_rq_tready.val();
            self.units[k].m_axis_rs_tready.next = self.m_axis_rs_tready[k].val();
            self.m_axis_rs_tvalid[k].next = self.units[k].m_axis_rs_tvalid.val();
            self.m_axis_rs_tag[k].next = self.units[k].m_axis_rs_tag.val();
            self.m_axis_rs_status[k].next = self.units[k].m_axis_rs_status.val();
            self.units[k].m_axis_ac_tready.next = self.m_axis_ac_tready[1 - k].val();
            self.m_axis_ac_tvalid[1 - k].next = self.units[k].m_axis_ac_tvalid.val();
            self.m_axis_ac_conn[1 - k].next = self.units[k].m_axis_ac_conn.val();
            self.m_axis_ac_key[1 - k].next = self.units[k].m_axis_ac_key.val();
            self.m_axis_ac_write[1 - k].next = self.units[k].m_axis_ac_write.val();
            self.m_axis_ac_addr[1 - k].next = self.units[k].m_axis_ac_addr.val();
            self.m_axis_ac_len[1 - k].next = self.units[k].m_axis_ac_len.val();
            self.units[k].s_axis_ck_tvalid.next = self.s_axis_ck_tvalid[1 - k].val();
            self.units[k].s_axis_ck_grant.next = self.s_axis_ck_grant[1 - k].val();
            self.units[k].s_axis_ck_reason.next = self.s_axis_ck_reason[1 - k].val();
            self.s_axis_ck_tready[1 - k].next = self.units[k].s_axis_ck_tready.val();
            self.units[k].m_imem_rdata.next = self.s_mem_rdata[k].val();
            self.units[k].m_tmem_rdata.next = self.s_mem_rdata[1 - k].val();
            // Arbiter k shares node k's memory: unit k's initiator side (a), unit 1 - k's
            // target side (b).
            self.arbs[k].clock.next = self.clock.val();
            self.arbs[k].reset.next = self.reset.val();
            self.arbs[k].s_a_valid.next = self.units[k].m_imem_valid.val();
            self.arbs[k].s_b_valid.next = self.units[1 - k].m_tmem_valid.val();
            self.arbs[k].s_a_write.next = self.units[k].m_imem_write.val();
            self.arbs[k].s_b_write.next = self.units[1 - k].m_tmem_write.val();
            self.arbs[k].s_a_index.next = self.units[k].m_imem_index.val();
            self.arbs[k].s_b_index.next = self.units[1 - k].m_tmem_index.val();
            self.arbs[k].s_a_wdata.next = self.units[k].m_imem_wdata.val();
            self.arbs[k].s_b_wdata.next = self.units[1 - k].m_tmem_wdata.val();
            self.arbs[k].s_a_wmask.next = self.units[k].m_imem_wmask.val();
            self.arbs[k].s_b_wmask.next = self.units[1 - k].m_tmem_wmask.val();
            self.units[k].m_imem_ready.next = self.arbs[k].s_a_ready.val();
            self.units[1 - k].m_tmem_ready.next = self.arbs[k].s_b_ready.val();
            self.arbs[k].m_mem_ready.next = self.m_mem_ready[k].val();
            self.m_mem_valid[k].next = self.arbs[k].m_mem_valid.val();
            self.m_mem_write[k].next = self.arbs[k].m_mem_write.val();
            self.m_mem_index[k].next = self.arbs[k].m_mem_index.val();
            self.m_mem_wdata[k].next = self.arbs[k].m_mem_wdata.val();
            self.m_mem_wmask[k].next = self.arbs[k].m_mem_wmask.val();
        }
        self.cnt_copies.next = self.units[0].cnt_copies.val() + self.units[1].cnt_copies.val();
        self.cnt_oob.next = self.units[0].cnt_oob.val() + self.units[1].cnt_oob.val();
        self.busy.next = !self.units[0].idle.val()
            | !self.units[1].idle.val()
            | self.links[0].busy.val()
            | self.links[1].busy.val();
    }
}
