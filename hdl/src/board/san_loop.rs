//! The board's on-chip SAN loopback: what joins the XEM7010's two NICs where the
//! simulations put the fabric model. Model: `sanswitch_model::blocks::san_loop` (its
//! rustdoc and `docs/BOARD.md` give the behaviour and timing).
//!
//! # Ports
//! Per node `k` (0, 1), named from the loopback's side:
//! - `s_axis_tx<k>_*`, `s_axis_down<k>_*` (in): node `k`'s `m_axis_tx_*`, `m_axis_down_*`;
//!   `m_axis_rx<k>_*`, `m_axis_down<k>_*` (out): its `s_axis_rx_*`, `s_axis_down_*`.
//! - `s_axis_rq<k>_*` (in), `m_axis_rs<k>_*` (out): node `k`'s RDMA requests and their
//!   responses; `m_axis_ac<k>_*` (out), `s_axis_ck<k>_*` (in): the other node's requests
//!   checked by node `k`.
//! - `m_mem<k>_*` (out: `valid`, `write`, `index`, `wdata`, `wmask`; in: `ready`),
//!   `s_mem<k>_rdata` (in): node `k` memory's word port (`NodeMem`'s `s_mem_*`, read data a
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

#[derive(LogicBlock)]
pub struct SanLoop {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_tx0_tvalid: Signal<In, Bit>,
    pub s_axis_tx0_tdata: Signal<In, Bits<64>>,
    pub s_axis_tx0_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tx0_tlast: Signal<In, Bit>,
    pub s_axis_tx0_tuser: Signal<In, Bits<8>>,
    pub s_axis_down0_tvalid: Signal<In, Bit>,
    pub s_axis_down0_conn: Signal<In, Bits<8>>,
    pub m_axis_rx0_tready: Signal<In, Bit>,
    pub m_axis_down0_tready: Signal<In, Bit>,
    pub s_axis_rq0_tvalid: Signal<In, Bit>,
    pub s_axis_rq0_tag: Signal<In, Bits<16>>,
    pub s_axis_rq0_write: Signal<In, Bit>,
    pub s_axis_rq0_conn: Signal<In, Bits<8>>,
    pub s_axis_rq0_raddr: Signal<In, Bits<64>>,
    pub s_axis_rq0_rkey: Signal<In, Bits<32>>,
    pub s_axis_rq0_laddr: Signal<In, Bits<64>>,
    pub s_axis_rq0_len: Signal<In, Bits<32>>,
    pub m_axis_rs0_tready: Signal<In, Bit>,
    pub m_axis_ac0_tready: Signal<In, Bit>,
    pub s_axis_ck0_tvalid: Signal<In, Bit>,
    pub s_axis_ck0_grant: Signal<In, Bit>,
    pub s_axis_ck0_reason: Signal<In, Bits<3>>,
    pub m_mem0_ready: Signal<In, Bit>,
    pub s_mem0_rdata: Signal<In, Bits<64>>,
    pub s_axis_tx1_tvalid: Signal<In, Bit>,
    pub s_axis_tx1_tdata: Signal<In, Bits<64>>,
    pub s_axis_tx1_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tx1_tlast: Signal<In, Bit>,
    pub s_axis_tx1_tuser: Signal<In, Bits<8>>,
    pub s_axis_down1_tvalid: Signal<In, Bit>,
    pub s_axis_down1_conn: Signal<In, Bits<8>>,
    pub m_axis_rx1_tready: Signal<In, Bit>,
    pub m_axis_down1_tready: Signal<In, Bit>,
    pub s_axis_rq1_tvalid: Signal<In, Bit>,
    pub s_axis_rq1_tag: Signal<In, Bits<16>>,
    pub s_axis_rq1_write: Signal<In, Bit>,
    pub s_axis_rq1_conn: Signal<In, Bits<8>>,
    pub s_axis_rq1_raddr: Signal<In, Bits<64>>,
    pub s_axis_rq1_rkey: Signal<In, Bits<32>>,
    pub s_axis_rq1_laddr: Signal<In, Bits<64>>,
    pub s_axis_rq1_len: Signal<In, Bits<32>>,
    pub m_axis_rs1_tready: Signal<In, Bit>,
    pub m_axis_ac1_tready: Signal<In, Bit>,
    pub s_axis_ck1_tvalid: Signal<In, Bit>,
    pub s_axis_ck1_grant: Signal<In, Bit>,
    pub s_axis_ck1_reason: Signal<In, Bits<3>>,
    pub m_mem1_ready: Signal<In, Bit>,
    pub s_mem1_rdata: Signal<In, Bits<64>>,
    pub s_axis_tx0_tready: Signal<Out, Bit>,
    pub s_axis_down0_tready: Signal<Out, Bit>,
    pub m_axis_rx0_tvalid: Signal<Out, Bit>,
    pub m_axis_rx0_tdata: Signal<Out, Bits<64>>,
    pub m_axis_rx0_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_rx0_tlast: Signal<Out, Bit>,
    pub m_axis_rx0_tuser: Signal<Out, Bits<8>>,
    pub m_axis_down0_tvalid: Signal<Out, Bit>,
    pub m_axis_down0_conn: Signal<Out, Bits<8>>,
    pub s_axis_rq0_tready: Signal<Out, Bit>,
    pub m_axis_rs0_tvalid: Signal<Out, Bit>,
    pub m_axis_rs0_tag: Signal<Out, Bits<16>>,
    pub m_axis_rs0_status: Signal<Out, Bits<3>>,
    pub m_axis_ac0_tvalid: Signal<Out, Bit>,
    pub m_axis_ac0_conn: Signal<Out, Bits<8>>,
    pub m_axis_ac0_key: Signal<Out, Bits<32>>,
    pub m_axis_ac0_write: Signal<Out, Bit>,
    pub m_axis_ac0_addr: Signal<Out, Bits<64>>,
    pub m_axis_ac0_len: Signal<Out, Bits<32>>,
    pub s_axis_ck0_tready: Signal<Out, Bit>,
    pub m_mem0_valid: Signal<Out, Bit>,
    pub m_mem0_write: Signal<Out, Bit>,
    pub m_mem0_index: Signal<Out, Bits<16>>,
    pub m_mem0_wdata: Signal<Out, Bits<64>>,
    pub m_mem0_wmask: Signal<Out, Bits<8>>,
    pub s_axis_tx1_tready: Signal<Out, Bit>,
    pub s_axis_down1_tready: Signal<Out, Bit>,
    pub m_axis_rx1_tvalid: Signal<Out, Bit>,
    pub m_axis_rx1_tdata: Signal<Out, Bits<64>>,
    pub m_axis_rx1_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_rx1_tlast: Signal<Out, Bit>,
    pub m_axis_rx1_tuser: Signal<Out, Bits<8>>,
    pub m_axis_down1_tvalid: Signal<Out, Bit>,
    pub m_axis_down1_conn: Signal<Out, Bits<8>>,
    pub s_axis_rq1_tready: Signal<Out, Bit>,
    pub m_axis_rs1_tvalid: Signal<Out, Bit>,
    pub m_axis_rs1_tag: Signal<Out, Bits<16>>,
    pub m_axis_rs1_status: Signal<Out, Bits<3>>,
    pub m_axis_ac1_tvalid: Signal<Out, Bit>,
    pub m_axis_ac1_conn: Signal<Out, Bits<8>>,
    pub m_axis_ac1_key: Signal<Out, Bits<32>>,
    pub m_axis_ac1_write: Signal<Out, Bit>,
    pub m_axis_ac1_addr: Signal<Out, Bits<64>>,
    pub m_axis_ac1_len: Signal<Out, Bits<32>>,
    pub s_axis_ck1_tready: Signal<Out, Bit>,
    pub m_mem1_valid: Signal<Out, Bit>,
    pub m_mem1_write: Signal<Out, Bit>,
    pub m_mem1_index: Signal<Out, Bits<16>>,
    pub m_mem1_wdata: Signal<Out, Bits<64>>,
    pub m_mem1_wmask: Signal<Out, Bits<8>>,
    pub cnt_copies: Signal<Out, Bits<16>>,
    pub cnt_oob: Signal<Out, Bits<16>>,
    pub busy: Signal<Out, Bit>,
    links: Vec<MsgLink>,
    units: Vec<RdmaCopy>,
    arbs: Vec<WordArb>,
}

impl SanLoop {
    /// A loopback between two node memories of `words` 64-bit words.
    pub fn new(words: usize) -> Self {
        SanLoop {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_tx0_tvalid: Default::default(),
            s_axis_tx0_tdata: Default::default(),
            s_axis_tx0_tkeep: Default::default(),
            s_axis_tx0_tlast: Default::default(),
            s_axis_tx0_tuser: Default::default(),
            s_axis_down0_tvalid: Default::default(),
            s_axis_down0_conn: Default::default(),
            m_axis_rx0_tready: Default::default(),
            m_axis_down0_tready: Default::default(),
            s_axis_rq0_tvalid: Default::default(),
            s_axis_rq0_tag: Default::default(),
            s_axis_rq0_write: Default::default(),
            s_axis_rq0_conn: Default::default(),
            s_axis_rq0_raddr: Default::default(),
            s_axis_rq0_rkey: Default::default(),
            s_axis_rq0_laddr: Default::default(),
            s_axis_rq0_len: Default::default(),
            m_axis_rs0_tready: Default::default(),
            m_axis_ac0_tready: Default::default(),
            s_axis_ck0_tvalid: Default::default(),
            s_axis_ck0_grant: Default::default(),
            s_axis_ck0_reason: Default::default(),
            m_mem0_ready: Default::default(),
            s_mem0_rdata: Default::default(),
            s_axis_tx1_tvalid: Default::default(),
            s_axis_tx1_tdata: Default::default(),
            s_axis_tx1_tkeep: Default::default(),
            s_axis_tx1_tlast: Default::default(),
            s_axis_tx1_tuser: Default::default(),
            s_axis_down1_tvalid: Default::default(),
            s_axis_down1_conn: Default::default(),
            m_axis_rx1_tready: Default::default(),
            m_axis_down1_tready: Default::default(),
            s_axis_rq1_tvalid: Default::default(),
            s_axis_rq1_tag: Default::default(),
            s_axis_rq1_write: Default::default(),
            s_axis_rq1_conn: Default::default(),
            s_axis_rq1_raddr: Default::default(),
            s_axis_rq1_rkey: Default::default(),
            s_axis_rq1_laddr: Default::default(),
            s_axis_rq1_len: Default::default(),
            m_axis_rs1_tready: Default::default(),
            m_axis_ac1_tready: Default::default(),
            s_axis_ck1_tvalid: Default::default(),
            s_axis_ck1_grant: Default::default(),
            s_axis_ck1_reason: Default::default(),
            m_mem1_ready: Default::default(),
            s_mem1_rdata: Default::default(),
            s_axis_tx0_tready: Default::default(),
            s_axis_down0_tready: Default::default(),
            m_axis_rx0_tvalid: Default::default(),
            m_axis_rx0_tdata: Default::default(),
            m_axis_rx0_tkeep: Default::default(),
            m_axis_rx0_tlast: Default::default(),
            m_axis_rx0_tuser: Default::default(),
            m_axis_down0_tvalid: Default::default(),
            m_axis_down0_conn: Default::default(),
            s_axis_rq0_tready: Default::default(),
            m_axis_rs0_tvalid: Default::default(),
            m_axis_rs0_tag: Default::default(),
            m_axis_rs0_status: Default::default(),
            m_axis_ac0_tvalid: Default::default(),
            m_axis_ac0_conn: Default::default(),
            m_axis_ac0_key: Default::default(),
            m_axis_ac0_write: Default::default(),
            m_axis_ac0_addr: Default::default(),
            m_axis_ac0_len: Default::default(),
            s_axis_ck0_tready: Default::default(),
            m_mem0_valid: Default::default(),
            m_mem0_write: Default::default(),
            m_mem0_index: Default::default(),
            m_mem0_wdata: Default::default(),
            m_mem0_wmask: Default::default(),
            s_axis_tx1_tready: Default::default(),
            s_axis_down1_tready: Default::default(),
            m_axis_rx1_tvalid: Default::default(),
            m_axis_rx1_tdata: Default::default(),
            m_axis_rx1_tkeep: Default::default(),
            m_axis_rx1_tlast: Default::default(),
            m_axis_rx1_tuser: Default::default(),
            m_axis_down1_tvalid: Default::default(),
            m_axis_down1_conn: Default::default(),
            s_axis_rq1_tready: Default::default(),
            m_axis_rs1_tvalid: Default::default(),
            m_axis_rs1_tag: Default::default(),
            m_axis_rs1_status: Default::default(),
            m_axis_ac1_tvalid: Default::default(),
            m_axis_ac1_conn: Default::default(),
            m_axis_ac1_key: Default::default(),
            m_axis_ac1_write: Default::default(),
            m_axis_ac1_addr: Default::default(),
            m_axis_ac1_len: Default::default(),
            s_axis_ck1_tready: Default::default(),
            m_mem1_valid: Default::default(),
            m_mem1_write: Default::default(),
            m_mem1_index: Default::default(),
            m_mem1_wdata: Default::default(),
            m_mem1_wmask: Default::default(),
            cnt_copies: Default::default(),
            cnt_oob: Default::default(),
            busy: Default::default(),
            links: (0..2).map(|_| MsgLink::default()).collect(),
            units: (0..2).map(|_| RdmaCopy::new(words)).collect(),
            arbs: (0..2).map(|_| WordArb::default()).collect(),
        }
    }
}

impl Logic for SanLoop {
    #[hdl_gen]
    fn update(&mut self) {
        self.links[0].clock.next = self.clock.val();
        self.links[0].reset.next = self.reset.val();
        self.links[0].s_axis_tx_tvalid.next = self.s_axis_tx0_tvalid.val();
        self.links[0].s_axis_tx_tdata.next = self.s_axis_tx0_tdata.val();
        self.links[0].s_axis_tx_tkeep.next = self.s_axis_tx0_tkeep.val();
        self.links[0].s_axis_tx_tlast.next = self.s_axis_tx0_tlast.val();
        self.links[0].s_axis_tx_tuser.next = self.s_axis_tx0_tuser.val();
        self.links[0].s_axis_down_tvalid.next = self.s_axis_down0_tvalid.val();
        self.links[0].s_axis_down_conn.next = self.s_axis_down0_conn.val();
        self.s_axis_tx0_tready.next = self.links[0].s_axis_tx_tready.val();
        self.s_axis_down0_tready.next = self.links[0].s_axis_down_tready.val();
        self.links[0].m_axis_rx_tready.next = self.m_axis_rx1_tready.val();
        self.links[0].m_axis_down_tready.next = self.m_axis_down1_tready.val();
        self.m_axis_rx1_tvalid.next = self.links[0].m_axis_rx_tvalid.val();
        self.m_axis_rx1_tdata.next = self.links[0].m_axis_rx_tdata.val();
        self.m_axis_rx1_tkeep.next = self.links[0].m_axis_rx_tkeep.val();
        self.m_axis_rx1_tlast.next = self.links[0].m_axis_rx_tlast.val();
        self.m_axis_rx1_tuser.next = self.links[0].m_axis_rx_tuser.val();
        self.m_axis_down1_tvalid.next = self.links[0].m_axis_down_tvalid.val();
        self.m_axis_down1_conn.next = self.links[0].m_axis_down_conn.val();
        self.links[1].clock.next = self.clock.val();
        self.links[1].reset.next = self.reset.val();
        self.links[1].s_axis_tx_tvalid.next = self.s_axis_tx1_tvalid.val();
        self.links[1].s_axis_tx_tdata.next = self.s_axis_tx1_tdata.val();
        self.links[1].s_axis_tx_tkeep.next = self.s_axis_tx1_tkeep.val();
        self.links[1].s_axis_tx_tlast.next = self.s_axis_tx1_tlast.val();
        self.links[1].s_axis_tx_tuser.next = self.s_axis_tx1_tuser.val();
        self.links[1].s_axis_down_tvalid.next = self.s_axis_down1_tvalid.val();
        self.links[1].s_axis_down_conn.next = self.s_axis_down1_conn.val();
        self.s_axis_tx1_tready.next = self.links[1].s_axis_tx_tready.val();
        self.s_axis_down1_tready.next = self.links[1].s_axis_down_tready.val();
        self.links[1].m_axis_rx_tready.next = self.m_axis_rx0_tready.val();
        self.links[1].m_axis_down_tready.next = self.m_axis_down0_tready.val();
        self.m_axis_rx0_tvalid.next = self.links[1].m_axis_rx_tvalid.val();
        self.m_axis_rx0_tdata.next = self.links[1].m_axis_rx_tdata.val();
        self.m_axis_rx0_tkeep.next = self.links[1].m_axis_rx_tkeep.val();
        self.m_axis_rx0_tlast.next = self.links[1].m_axis_rx_tlast.val();
        self.m_axis_rx0_tuser.next = self.links[1].m_axis_rx_tuser.val();
        self.m_axis_down0_tvalid.next = self.links[1].m_axis_down_tvalid.val();
        self.m_axis_down0_conn.next = self.links[1].m_axis_down_conn.val();
        self.units[0].clock.next = self.clock.val();
        self.units[0].reset.next = self.reset.val();
        self.units[0].s_axis_rq_tvalid.next = self.s_axis_rq0_tvalid.val();
        self.units[0].s_axis_rq_tag.next = self.s_axis_rq0_tag.val();
        self.units[0].s_axis_rq_write.next = self.s_axis_rq0_write.val();
        self.units[0].s_axis_rq_conn.next = self.s_axis_rq0_conn.val();
        self.units[0].s_axis_rq_raddr.next = self.s_axis_rq0_raddr.val();
        self.units[0].s_axis_rq_rkey.next = self.s_axis_rq0_rkey.val();
        self.units[0].s_axis_rq_laddr.next = self.s_axis_rq0_laddr.val();
        self.units[0].s_axis_rq_len.next = self.s_axis_rq0_len.val();
        self.s_axis_rq0_tready.next = self.units[0].s_axis_rq_tready.val();
        self.units[0].m_axis_rs_tready.next = self.m_axis_rs0_tready.val();
        self.m_axis_rs0_tvalid.next = self.units[0].m_axis_rs_tvalid.val();
        self.m_axis_rs0_tag.next = self.units[0].m_axis_rs_tag.val();
        self.m_axis_rs0_status.next = self.units[0].m_axis_rs_status.val();
        self.units[0].m_axis_ac_tready.next = self.m_axis_ac1_tready.val();
        self.m_axis_ac1_tvalid.next = self.units[0].m_axis_ac_tvalid.val();
        self.m_axis_ac1_conn.next = self.units[0].m_axis_ac_conn.val();
        self.m_axis_ac1_key.next = self.units[0].m_axis_ac_key.val();
        self.m_axis_ac1_write.next = self.units[0].m_axis_ac_write.val();
        self.m_axis_ac1_addr.next = self.units[0].m_axis_ac_addr.val();
        self.m_axis_ac1_len.next = self.units[0].m_axis_ac_len.val();
        self.units[0].s_axis_ck_tvalid.next = self.s_axis_ck1_tvalid.val();
        self.units[0].s_axis_ck_grant.next = self.s_axis_ck1_grant.val();
        self.units[0].s_axis_ck_reason.next = self.s_axis_ck1_reason.val();
        self.s_axis_ck1_tready.next = self.units[0].s_axis_ck_tready.val();
        self.units[0].m_imem_rdata.next = self.s_mem0_rdata.val();
        self.units[0].m_tmem_rdata.next = self.s_mem1_rdata.val();
        self.units[1].clock.next = self.clock.val();
        self.units[1].reset.next = self.reset.val();
        self.units[1].s_axis_rq_tvalid.next = self.s_axis_rq1_tvalid.val();
        self.units[1].s_axis_rq_tag.next = self.s_axis_rq1_tag.val();
        self.units[1].s_axis_rq_write.next = self.s_axis_rq1_write.val();
        self.units[1].s_axis_rq_conn.next = self.s_axis_rq1_conn.val();
        self.units[1].s_axis_rq_raddr.next = self.s_axis_rq1_raddr.val();
        self.units[1].s_axis_rq_rkey.next = self.s_axis_rq1_rkey.val();
        self.units[1].s_axis_rq_laddr.next = self.s_axis_rq1_laddr.val();
        self.units[1].s_axis_rq_len.next = self.s_axis_rq1_len.val();
        self.s_axis_rq1_tready.next = self.units[1].s_axis_rq_tready.val();
        self.units[1].m_axis_rs_tready.next = self.m_axis_rs1_tready.val();
        self.m_axis_rs1_tvalid.next = self.units[1].m_axis_rs_tvalid.val();
        self.m_axis_rs1_tag.next = self.units[1].m_axis_rs_tag.val();
        self.m_axis_rs1_status.next = self.units[1].m_axis_rs_status.val();
        self.units[1].m_axis_ac_tready.next = self.m_axis_ac0_tready.val();
        self.m_axis_ac0_tvalid.next = self.units[1].m_axis_ac_tvalid.val();
        self.m_axis_ac0_conn.next = self.units[1].m_axis_ac_conn.val();
        self.m_axis_ac0_key.next = self.units[1].m_axis_ac_key.val();
        self.m_axis_ac0_write.next = self.units[1].m_axis_ac_write.val();
        self.m_axis_ac0_addr.next = self.units[1].m_axis_ac_addr.val();
        self.m_axis_ac0_len.next = self.units[1].m_axis_ac_len.val();
        self.units[1].s_axis_ck_tvalid.next = self.s_axis_ck0_tvalid.val();
        self.units[1].s_axis_ck_grant.next = self.s_axis_ck0_grant.val();
        self.units[1].s_axis_ck_reason.next = self.s_axis_ck0_reason.val();
        self.s_axis_ck0_tready.next = self.units[1].s_axis_ck_tready.val();
        self.units[1].m_imem_rdata.next = self.s_mem1_rdata.val();
        self.units[1].m_tmem_rdata.next = self.s_mem0_rdata.val();
        self.arbs[0].clock.next = self.clock.val();
        self.arbs[0].reset.next = self.reset.val();
        self.arbs[0].s_a_valid.next = self.units[0].m_imem_valid.val();
        self.arbs[0].s_b_valid.next = self.units[1].m_tmem_valid.val();
        self.arbs[0].s_a_write.next = self.units[0].m_imem_write.val();
        self.arbs[0].s_b_write.next = self.units[1].m_tmem_write.val();
        self.arbs[0].s_a_index.next = self.units[0].m_imem_index.val();
        self.arbs[0].s_b_index.next = self.units[1].m_tmem_index.val();
        self.arbs[0].s_a_wdata.next = self.units[0].m_imem_wdata.val();
        self.arbs[0].s_b_wdata.next = self.units[1].m_tmem_wdata.val();
        self.arbs[0].s_a_wmask.next = self.units[0].m_imem_wmask.val();
        self.arbs[0].s_b_wmask.next = self.units[1].m_tmem_wmask.val();
        self.units[0].m_imem_ready.next = self.arbs[0].s_a_ready.val();
        self.units[1].m_tmem_ready.next = self.arbs[0].s_b_ready.val();
        self.arbs[0].m_mem_ready.next = self.m_mem0_ready.val();
        self.m_mem0_valid.next = self.arbs[0].m_mem_valid.val();
        self.m_mem0_write.next = self.arbs[0].m_mem_write.val();
        self.m_mem0_index.next = self.arbs[0].m_mem_index.val();
        self.m_mem0_wdata.next = self.arbs[0].m_mem_wdata.val();
        self.m_mem0_wmask.next = self.arbs[0].m_mem_wmask.val();
        self.arbs[1].clock.next = self.clock.val();
        self.arbs[1].reset.next = self.reset.val();
        self.arbs[1].s_a_valid.next = self.units[1].m_imem_valid.val();
        self.arbs[1].s_b_valid.next = self.units[0].m_tmem_valid.val();
        self.arbs[1].s_a_write.next = self.units[1].m_imem_write.val();
        self.arbs[1].s_b_write.next = self.units[0].m_tmem_write.val();
        self.arbs[1].s_a_index.next = self.units[1].m_imem_index.val();
        self.arbs[1].s_b_index.next = self.units[0].m_tmem_index.val();
        self.arbs[1].s_a_wdata.next = self.units[1].m_imem_wdata.val();
        self.arbs[1].s_b_wdata.next = self.units[0].m_tmem_wdata.val();
        self.arbs[1].s_a_wmask.next = self.units[1].m_imem_wmask.val();
        self.arbs[1].s_b_wmask.next = self.units[0].m_tmem_wmask.val();
        self.units[1].m_imem_ready.next = self.arbs[1].s_a_ready.val();
        self.units[0].m_tmem_ready.next = self.arbs[1].s_b_ready.val();
        self.arbs[1].m_mem_ready.next = self.m_mem1_ready.val();
        self.m_mem1_valid.next = self.arbs[1].m_mem_valid.val();
        self.m_mem1_write.next = self.arbs[1].m_mem_write.val();
        self.m_mem1_index.next = self.arbs[1].m_mem_index.val();
        self.m_mem1_wdata.next = self.arbs[1].m_mem_wdata.val();
        self.m_mem1_wmask.next = self.arbs[1].m_mem_wmask.val();
        self.cnt_copies.next = self.units[0].cnt_copies.val() + self.units[1].cnt_copies.val();
        self.cnt_oob.next = self.units[0].cnt_oob.val() + self.units[1].cnt_oob.val();
        self.busy.next = !self.units[0].idle.val()
            | !self.units[1].idle.val()
            | self.links[0].busy.val()
            | self.links[1].busy.val();
    }
}
