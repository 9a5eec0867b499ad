//! One board node: a NIC, the on-chip memory that is its host memory, and the arbiter that
//! shares the memory's word port between the FrontPanel bridge and the SAN loopback.
//!
//! # Ports
//! - `s_axil_*`: the NIC's register port (from the bridge's `m_axil_*[k]`).
//! - `s_br_*` (in: `valid`, `node`, `write`, `index`, `wdata`, `wmask`; out: `ready`,
//!   `rvalid`, `rdata`): the bridge's word port (its `m_mem_*`), taken when `node` is this
//!   node's number; the outputs are zero otherwise, so two nodes' can be ORed.
//! - `s_lb_*` (same, without `rvalid`): the SAN loopback's word port (`m_mem_*[k]`); the
//!   loopback takes its word a cycle after the grant.
//! - The NIC's SAN port (`m_axis_tx_*`, `s_axis_rx_*`, `*_down_*`, `m_axis_rq_*`,
//!   `s_axis_rs_*`, `s_axis_ac_*`, `m_axis_ck_*`), passed through.
//! - `cnt_oob` (out): the memory's accesses outside it.
//!
//! # Structure
//! The NIC's host-memory port (`m_axis_dmard_*`, `s_axis_dmard_*`, `m_axis_dmawr_*`) is the
//! memory's byte port; a [`WordArb`] (master `a` the bridge, `b` the loopback) its word
//! port. No register is added: the memory's and the arbiter's timing are the node's.

use rust_hdl::prelude::*;

use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

use super::{NodeMem, WordArb};
use crate::nic::Nic;
use crate::widgets::Param;

/// The queue pairs of a board NIC's host interface (`sanswitch_model::regs::BOARD_QUEUE_PAIRS`).
pub const BOARD_QUEUE_PAIRS: usize = sanswitch_model::regs::BOARD_QUEUE_PAIRS as usize;

#[derive(LogicBlock)]
pub struct BoardNode<const A: usize> {
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
    pub s_br_valid: Signal<In, Bit>,
    pub s_br_node: Signal<In, Bit>,
    pub s_br_write: Signal<In, Bit>,
    pub s_br_index: Signal<In, Bits<16>>,
    pub s_br_wdata: Signal<In, Bits<64>>,
    pub s_br_wmask: Signal<In, Bits<8>>,
    pub s_br_ready: Signal<Out, Bit>,
    pub s_br_rdata: Signal<Out, Bits<64>>,
    pub s_br_rvalid: Signal<Out, Bit>,
    pub s_lb_valid: Signal<In, Bit>,
    pub s_lb_write: Signal<In, Bit>,
    pub s_lb_index: Signal<In, Bits<16>>,
    pub s_lb_wdata: Signal<In, Bits<64>>,
    pub s_lb_wmask: Signal<In, Bits<8>>,
    pub s_lb_ready: Signal<Out, Bit>,
    pub s_lb_rdata: Signal<Out, Bits<64>>,
    pub m_axis_tx_tready: Signal<In, Bit>,
    pub s_axis_rx_tvalid: Signal<In, Bit>,
    pub s_axis_rx_tdata: Signal<In, Bits<64>>,
    pub s_axis_rx_tkeep: Signal<In, Bits<8>>,
    pub s_axis_rx_tlast: Signal<In, Bit>,
    pub s_axis_rx_tuser: Signal<In, Bits<8>>,
    pub s_axis_down_tvalid: Signal<In, Bit>,
    pub s_axis_down_conn: Signal<In, Bits<8>>,
    pub m_axis_down_tready: Signal<In, Bit>,
    pub m_axis_rq_tready: Signal<In, Bit>,
    pub s_axis_rs_tvalid: Signal<In, Bit>,
    pub s_axis_rs_tag: Signal<In, Bits<16>>,
    pub s_axis_rs_status: Signal<In, Bits<3>>,
    pub s_axis_ac_tvalid: Signal<In, Bit>,
    pub s_axis_ac_conn: Signal<In, Bits<8>>,
    pub s_axis_ac_key: Signal<In, Bits<32>>,
    pub s_axis_ac_write: Signal<In, Bit>,
    pub s_axis_ac_addr: Signal<In, Bits<64>>,
    pub s_axis_ac_len: Signal<In, Bits<32>>,
    pub m_axis_ck_tready: Signal<In, Bit>,
    pub m_axis_tx_tvalid: Signal<Out, Bit>,
    pub m_axis_tx_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tx_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tx_tlast: Signal<Out, Bit>,
    pub m_axis_tx_tuser: Signal<Out, Bits<8>>,
    pub s_axis_rx_tready: Signal<Out, Bit>,
    pub s_axis_down_tready: Signal<Out, Bit>,
    pub m_axis_down_tvalid: Signal<Out, Bit>,
    pub m_axis_down_conn: Signal<Out, Bits<8>>,
    pub m_axis_rq_tvalid: Signal<Out, Bit>,
    pub m_axis_rq_tag: Signal<Out, Bits<16>>,
    pub m_axis_rq_write: Signal<Out, Bit>,
    pub m_axis_rq_conn: Signal<Out, Bits<8>>,
    pub m_axis_rq_raddr: Signal<Out, Bits<64>>,
    pub m_axis_rq_rkey: Signal<Out, Bits<32>>,
    pub m_axis_rq_laddr: Signal<Out, Bits<64>>,
    pub m_axis_rq_lkey: Signal<Out, Bits<32>>,
    pub m_axis_rq_len: Signal<Out, Bits<32>>,
    pub s_axis_rs_tready: Signal<Out, Bit>,
    pub s_axis_ac_tready: Signal<Out, Bit>,
    pub m_axis_ck_tvalid: Signal<Out, Bit>,
    pub m_axis_ck_grant: Signal<Out, Bit>,
    pub m_axis_ck_reason: Signal<Out, Bits<3>>,
    pub cnt_oob: Signal<Out, Bits<16>>,
    pub nic: Nic<A, BOARD_QUEUE_PAIRS>,
    mem: NodeMem,
    arb: WordArb,
    /// The bridge's request names this node.
    br_here: Signal<Local, Bit>,
    k_id: Param<Bit>,
}

impl<const A: usize> BoardNode<A> {
    /// Node `id` (0 or 1), with a NIC of `p` and `h` and a memory of `words` 64-bit words.
    pub fn new(id: usize, p: &EngineParams, h: &HostParams, words: usize) -> Self {
        assert!(id < 2);
        BoardNode {
            clock: Default::default(),
            reset: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_rready: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_br_valid: Default::default(),
            s_br_node: Default::default(),
            s_br_write: Default::default(),
            s_br_index: Default::default(),
            s_br_wdata: Default::default(),
            s_br_wmask: Default::default(),
            s_br_ready: Default::default(),
            s_br_rdata: Default::default(),
            s_br_rvalid: Default::default(),
            s_lb_valid: Default::default(),
            s_lb_write: Default::default(),
            s_lb_index: Default::default(),
            s_lb_wdata: Default::default(),
            s_lb_wmask: Default::default(),
            s_lb_ready: Default::default(),
            s_lb_rdata: Default::default(),
            m_axis_tx_tready: Default::default(),
            s_axis_rx_tvalid: Default::default(),
            s_axis_rx_tdata: Default::default(),
            s_axis_rx_tkeep: Default::default(),
            s_axis_rx_tlast: Default::default(),
            s_axis_rx_tuser: Default::default(),
            s_axis_down_tvalid: Default::default(),
            s_axis_down_conn: Default::default(),
            m_axis_down_tready: Default::default(),
            m_axis_rq_tready: Default::default(),
            s_axis_rs_tvalid: Default::default(),
            s_axis_rs_tag: Default::default(),
            s_axis_rs_status: Default::default(),
            s_axis_ac_tvalid: Default::default(),
            s_axis_ac_conn: Default::default(),
            s_axis_ac_key: Default::default(),
            s_axis_ac_write: Default::default(),
            s_axis_ac_addr: Default::default(),
            s_axis_ac_len: Default::default(),
            m_axis_ck_tready: Default::default(),
            m_axis_tx_tvalid: Default::default(),
            m_axis_tx_tdata: Default::default(),
            m_axis_tx_tkeep: Default::default(),
            m_axis_tx_tlast: Default::default(),
            m_axis_tx_tuser: Default::default(),
            s_axis_rx_tready: Default::default(),
            s_axis_down_tready: Default::default(),
            m_axis_down_tvalid: Default::default(),
            m_axis_down_conn: Default::default(),
            m_axis_rq_tvalid: Default::default(),
            m_axis_rq_tag: Default::default(),
            m_axis_rq_write: Default::default(),
            m_axis_rq_conn: Default::default(),
            m_axis_rq_raddr: Default::default(),
            m_axis_rq_rkey: Default::default(),
            m_axis_rq_laddr: Default::default(),
            m_axis_rq_lkey: Default::default(),
            m_axis_rq_len: Default::default(),
            s_axis_rs_tready: Default::default(),
            s_axis_ac_tready: Default::default(),
            m_axis_ck_tvalid: Default::default(),
            m_axis_ck_grant: Default::default(),
            m_axis_ck_reason: Default::default(),
            cnt_oob: Default::default(),
            nic: Nic::new(p, h),
            mem: NodeMem::new(words),
            arb: Default::default(),
            br_here: Default::default(),
            k_id: Param::new(id == 1),
        }
    }
}

impl<const A: usize> Logic for BoardNode<A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.nic.clock.next = self.clock.val();
        self.nic.reset.next = self.reset.val();
        self.mem.clock.next = self.clock.val();
        self.mem.reset.next = self.reset.val();
        self.arb.clock.next = self.clock.val();
        self.arb.reset.next = self.reset.val();
        self.nic.fault_nomem.next = false;
        // The NIC's host memory.
        self.mem.s_axis_rdreq_tvalid.next = self.nic.m_axis_dmard_tvalid.val();
        self.mem.s_axis_rdreq_addr.next = self.nic.m_axis_dmard_addr.val();
        self.mem.s_axis_rdreq_len.next = self.nic.m_axis_dmard_len.val();
        self.nic.m_axis_dmard_tready.next = self.mem.s_axis_rdreq_tready.val();
        self.nic.s_axis_dmard_tvalid.next = self.mem.m_axis_rddata_tvalid.val();
        self.nic.s_axis_dmard_tdata.next = self.mem.m_axis_rddata_tdata.val();
        self.nic.s_axis_dmard_tkeep.next = self.mem.m_axis_rddata_tkeep.val();
        self.nic.s_axis_dmard_tlast.next = self.mem.m_axis_rddata_tlast.val();
        self.mem.m_axis_rddata_tready.next = self.nic.s_axis_dmard_tready.val();
        self.mem.s_axis_wr_tvalid.next = self.nic.m_axis_dmawr_tvalid.val();
        self.mem.s_axis_wr_addr.next = self.nic.m_axis_dmawr_addr.val();
        self.mem.s_axis_wr_tdata.next = self.nic.m_axis_dmawr_tdata.val();
        self.mem.s_axis_wr_tkeep.next = self.nic.m_axis_dmawr_tkeep.val();
        self.mem.s_axis_wr_tlast.next = self.nic.m_axis_dmawr_tlast.val();
        self.nic.m_axis_dmawr_tready.next = self.mem.s_axis_wr_tready.val();
        // The word port: the bridge (a) and the loopback (b).
        self.br_here.next = self.s_br_node.val() == self.k_id.val();
        self.arb.s_a_valid.next = self.s_br_valid.val() & self.br_here.val();
        self.arb.s_a_write.next = self.s_br_write.val();
        self.arb.s_a_index.next = self.s_br_index.val();
        self.arb.s_a_wdata.next = self.s_br_wdata.val();
        self.arb.s_a_wmask.next = self.s_br_wmask.val();
        self.s_br_ready.next = self.arb.s_a_ready.val() & self.br_here.val();
        self.arb.s_b_valid.next = self.s_lb_valid.val();
        self.arb.s_b_write.next = self.s_lb_write.val();
        self.arb.s_b_index.next = self.s_lb_index.val();
        self.arb.s_b_wdata.next = self.s_lb_wdata.val();
        self.arb.s_b_wmask.next = self.s_lb_wmask.val();
        self.s_lb_ready.next = self.arb.s_b_ready.val();
        self.mem.s_mem_valid.next = self.arb.m_mem_valid.val();
        self.mem.s_mem_write.next = self.arb.m_mem_write.val();
        self.mem.s_mem_index.next = self.arb.m_mem_index.val();
        self.mem.s_mem_wdata.next = self.arb.m_mem_wdata.val();
        self.mem.s_mem_wmask.next = self.arb.m_mem_wmask.val();
        self.arb.m_mem_ready.next = self.mem.s_mem_ready.val();
        self.s_br_rvalid.next = self.mem.m_mem_rvalid.val() & !self.arb.rdata_b.val();
        self.s_br_rdata.next = 0.into();
        if self.s_br_rvalid.val() {
            self.s_br_rdata.next = self.mem.m_mem_rdata.val();
        }
        self.s_lb_rdata.next = self.mem.m_mem_rdata.val();
        self.cnt_oob.next = self.mem.cnt_oob.val();
        // The register port and the SAN port, passed through.
        self.nic.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.nic.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.nic.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.nic.s_axil_wdata.next = self.s_axil_wdata.val();
        self.nic.s_axil_bready.next = self.s_axil_bready.val();
        self.nic.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.nic.s_axil_araddr.next = self.s_axil_araddr.val();
        self.nic.s_axil_rready.next = self.s_axil_rready.val();
        self.s_axil_awready.next = self.nic.s_axil_awready.val();
        self.s_axil_wready.next = self.nic.s_axil_wready.val();
        self.s_axil_bvalid.next = self.nic.s_axil_bvalid.val();
        self.s_axil_bresp.next = self.nic.s_axil_bresp.val();
        self.s_axil_arready.next = self.nic.s_axil_arready.val();
        self.s_axil_rvalid.next = self.nic.s_axil_rvalid.val();
        self.s_axil_rdata.next = self.nic.s_axil_rdata.val();
        self.s_axil_rresp.next = self.nic.s_axil_rresp.val();
        self.nic.m_axis_tx_tready.next = self.m_axis_tx_tready.val();
        self.nic.s_axis_rx_tvalid.next = self.s_axis_rx_tvalid.val();
        self.nic.s_axis_rx_tdata.next = self.s_axis_rx_tdata.val();
        self.nic.s_axis_rx_tkeep.next = self.s_axis_rx_tkeep.val();
        self.nic.s_axis_rx_tlast.next = self.s_axis_rx_tlast.val();
        self.nic.s_axis_rx_tuser.next = self.s_axis_rx_tuser.val();
        self.nic.s_axis_down_tvalid.next = self.s_axis_down_tvalid.val();
        self.nic.s_axis_down_conn.next = self.s_axis_down_conn.val();
        self.nic.m_axis_down_tready.next = self.m_axis_down_tready.val();
        self.nic.m_axis_rq_tready.next = self.m_axis_rq_tready.val();
        self.nic.s_axis_rs_tvalid.next = self.s_axis_rs_tvalid.val();
        self.nic.s_axis_rs_tag.next = self.s_axis_rs_tag.val();
        self.nic.s_axis_rs_status.next = self.s_axis_rs_status.val();
        self.nic.s_axis_ac_tvalid.next = self.s_axis_ac_tvalid.val();
        self.nic.s_axis_ac_conn.next = self.s_axis_ac_conn.val();
        self.nic.s_axis_ac_key.next = self.s_axis_ac_key.val();
        self.nic.s_axis_ac_write.next = self.s_axis_ac_write.val();
        self.nic.s_axis_ac_addr.next = self.s_axis_ac_addr.val();
        self.nic.s_axis_ac_len.next = self.s_axis_ac_len.val();
        self.nic.m_axis_ck_tready.next = self.m_axis_ck_tready.val();
        self.m_axis_tx_tvalid.next = self.nic.m_axis_tx_tvalid.val();
        self.m_axis_tx_tdata.next = self.nic.m_axis_tx_tdata.val();
        self.m_axis_tx_tkeep.next = self.nic.m_axis_tx_tkeep.val();
        self.m_axis_tx_tlast.next = self.nic.m_axis_tx_tlast.val();
        self.m_axis_tx_tuser.next = self.nic.m_axis_tx_tuser.val();
        self.s_axis_rx_tready.next = self.nic.s_axis_rx_tready.val();
        self.s_axis_down_tready.next = self.nic.s_axis_down_tready.val();
        self.m_axis_down_tvalid.next = self.nic.m_axis_down_tvalid.val();
        self.m_axis_down_conn.next = self.nic.m_axis_down_conn.val();
        self.m_axis_rq_tvalid.next = self.nic.m_axis_rq_tvalid.val();
        self.m_axis_rq_tag.next = self.nic.m_axis_rq_tag.val();
        self.m_axis_rq_write.next = self.nic.m_axis_rq_write.val();
        self.m_axis_rq_conn.next = self.nic.m_axis_rq_conn.val();
        self.m_axis_rq_raddr.next = self.nic.m_axis_rq_raddr.val();
        self.m_axis_rq_rkey.next = self.nic.m_axis_rq_rkey.val();
        self.m_axis_rq_laddr.next = self.nic.m_axis_rq_laddr.val();
        self.m_axis_rq_lkey.next = self.nic.m_axis_rq_lkey.val();
        self.m_axis_rq_len.next = self.nic.m_axis_rq_len.val();
        self.s_axis_rs_tready.next = self.nic.s_axis_rs_tready.val();
        self.s_axis_ac_tready.next = self.nic.s_axis_ac_tready.val();
        self.m_axis_ck_tvalid.next = self.nic.m_axis_ck_tvalid.val();
        self.m_axis_ck_grant.next = self.nic.m_axis_ck_grant.val();
        self.m_axis_ck_reason.next = self.nic.m_axis_ck_reason.val();
    }
}
