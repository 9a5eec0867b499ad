//! The board's logic below the FrontPanel pipes, in the engine clock: the bridge's core, the
//! two nodes (NIC + memory) and the on-chip SAN loopback between them. The XEM7010 top
//! (`fpga/xem7010`) puts `okHost`, the pipes' FIFOs, the clocking and the LEDs around it; a
//! simulation drives its request and response streams as the pipe FIFOs would.
//!
//! # Ports
//! - `s_axis_req_*` (in, `tready` out): the host's request words (16 bits) from the pipe-in
//!   FIFO; `m_axis_rsp_*` (out, `tready` in): the response words to the pipe-out FIFO.
//! - `busy` (out): the bridge is inside a request or the loopback is moving something (the
//!   activity LED); `errors` (out): headers the bridge answered `ERROR`; `oob` (out): a node
//!   memory's or the loopback's count of accesses outside a memory is not zero (the error
//!   LED, with `errors`).
//! - `reset` (in): synchronous, every part.
//!
//! # Structure
//! [`Bridge`]'s register masters `m<k>_axil_*` drive node `k`'s `s_axil_*`; its word port
//! goes to the node `m_mem_node` names (`s_br_*`), its read data back from that node.
//! [`SanLoop`]'s node-`k` ports meet node `k`'s SAN port and its memory's second word-port
//! master (`s_lb_*`). A request's `lkey` is not the loopback's business (the initiator
//! registered its own buffer; the fabric model ignores it too).

use rust_hdl::prelude::*;

use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

use super::{BoardNode, Bridge, SanLoop};

#[derive(LogicBlock)]
pub struct BoardCore<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_req_tvalid: Signal<In, Bit>,
    pub s_axis_req_tdata: Signal<In, Bits<16>>,
    pub m_axis_rsp_tready: Signal<In, Bit>,
    pub s_axis_req_tready: Signal<Out, Bit>,
    pub m_axis_rsp_tvalid: Signal<Out, Bit>,
    pub m_axis_rsp_tdata: Signal<Out, Bits<16>>,
    pub busy: Signal<Out, Bit>,
    pub errors: Signal<Out, Bits<16>>,
    pub oob: Signal<Out, Bit>,
    pub bridge: Bridge,
    pub nodes: Vec<BoardNode<A>>,
    pub san: SanLoop,
}

impl<const A: usize> BoardCore<A> {
    /// Two nodes with NICs of `p` and `h` and memories of `mem_bytes` each.
    pub fn new(p: &EngineParams, h: &HostParams, mem_bytes: u32) -> Self {
        let words = (mem_bytes / 8) as usize;
        BoardCore {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_req_tvalid: Default::default(),
            s_axis_req_tdata: Default::default(),
            s_axis_req_tready: Default::default(),
            m_axis_rsp_tvalid: Default::default(),
            m_axis_rsp_tdata: Default::default(),
            m_axis_rsp_tready: Default::default(),
            busy: Default::default(),
            errors: Default::default(),
            oob: Default::default(),
            bridge: Bridge::new(mem_bytes),
            nodes: (0..2).map(|k| BoardNode::new(k, p, h, words)).collect(),
            san: SanLoop::new(words),
        }
    }
}

impl<const A: usize> Logic for BoardCore<A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.bridge.clock.next = self.clock.val();
        self.bridge.reset.next = self.reset.val();
        self.san.clock.next = self.clock.val();
        self.san.reset.next = self.reset.val();
        self.bridge.s_axis_req_tvalid.next = self.s_axis_req_tvalid.val();
        self.bridge.s_axis_req_tdata.next = self.s_axis_req_tdata.val();
        self.s_axis_req_tready.next = self.bridge.s_axis_req_tready.val();
        self.m_axis_rsp_tvalid.next = self.bridge.m_axis_rsp_tvalid.val();
        self.m_axis_rsp_tdata.next = self.bridge.m_axis_rsp_tdata.val();
        self.bridge.m_axis_rsp_tready.next = self.m_axis_rsp_tready.val();
        // The bridge's word port, to the node it names (the other's outputs are zero).
        for k in 0..2 {
            self.nodes[k].clock.next = self.clock.val();
            self.nodes[k].reset.next = self.reset.val();
            self.nodes[k].s_br_valid.next = self.bridge.m_mem_valid.val();
            self.nodes[k].s_br_node.next = self.bridge.m_mem_node.val();
            self.nodes[k].s_br_write.next = self.bridge.m_mem_write.val();
            self.nodes[k].s_br_index.next = self.bridge.m_mem_index.val();
            self.nodes[k].s_br_wdata.next = self.bridge.m_mem_wdata.val();
            self.nodes[k].s_br_wmask.next = self.bridge.m_mem_wmask.val();
        }
        self.bridge.m_mem_ready.next =
            self.nodes[0].s_br_ready.val() | self.nodes[1].s_br_ready.val();
        self.bridge.s_mem_rvalid.next =
            self.nodes[0].s_br_rvalid.val() | self.nodes[1].s_br_rvalid.val();
        self.bridge.s_mem_rdata.next =
            self.nodes[0].s_br_rdata.val() | self.nodes[1].s_br_rdata.val();
        self.busy.next = self.bridge.busy.val() | self.san.busy.val();
        self.errors.next = self.bridge.errors.val();
        self.oob.next = self.nodes[0].cnt_oob.val().any()
            | self.nodes[1].cnt_oob.val().any()
            | self.san.cnt_oob.val().any();
        // The register ports, the SAN ports and the loopback's word ports.
        self.nodes[0].s_axil_awvalid.next = self.bridge.m0_axil_awvalid.val();
        self.nodes[0].s_axil_awaddr.next = self.bridge.m0_axil_awaddr.val();
        self.nodes[0].s_axil_wvalid.next = self.bridge.m0_axil_wvalid.val();
        self.nodes[0].s_axil_wdata.next = self.bridge.m0_axil_wdata.val();
        self.nodes[0].s_axil_bready.next = self.bridge.m0_axil_bready.val();
        self.nodes[0].s_axil_arvalid.next = self.bridge.m0_axil_arvalid.val();
        self.nodes[0].s_axil_araddr.next = self.bridge.m0_axil_araddr.val();
        self.nodes[0].s_axil_rready.next = self.bridge.m0_axil_rready.val();
        self.bridge.m0_axil_awready.next = self.nodes[0].s_axil_awready.val();
        self.bridge.m0_axil_wready.next = self.nodes[0].s_axil_wready.val();
        self.bridge.m0_axil_bvalid.next = self.nodes[0].s_axil_bvalid.val();
        self.bridge.m0_axil_bresp.next = self.nodes[0].s_axil_bresp.val();
        self.bridge.m0_axil_arready.next = self.nodes[0].s_axil_arready.val();
        self.bridge.m0_axil_rvalid.next = self.nodes[0].s_axil_rvalid.val();
        self.bridge.m0_axil_rdata.next = self.nodes[0].s_axil_rdata.val();
        self.bridge.m0_axil_rresp.next = self.nodes[0].s_axil_rresp.val();
        self.nodes[1].s_axil_awvalid.next = self.bridge.m1_axil_awvalid.val();
        self.nodes[1].s_axil_awaddr.next = self.bridge.m1_axil_awaddr.val();
        self.nodes[1].s_axil_wvalid.next = self.bridge.m1_axil_wvalid.val();
        self.nodes[1].s_axil_wdata.next = self.bridge.m1_axil_wdata.val();
        self.nodes[1].s_axil_bready.next = self.bridge.m1_axil_bready.val();
        self.nodes[1].s_axil_arvalid.next = self.bridge.m1_axil_arvalid.val();
        self.nodes[1].s_axil_araddr.next = self.bridge.m1_axil_araddr.val();
        self.nodes[1].s_axil_rready.next = self.bridge.m1_axil_rready.val();
        self.bridge.m1_axil_awready.next = self.nodes[1].s_axil_awready.val();
        self.bridge.m1_axil_wready.next = self.nodes[1].s_axil_wready.val();
        self.bridge.m1_axil_bvalid.next = self.nodes[1].s_axil_bvalid.val();
        self.bridge.m1_axil_bresp.next = self.nodes[1].s_axil_bresp.val();
        self.bridge.m1_axil_arready.next = self.nodes[1].s_axil_arready.val();
        self.bridge.m1_axil_rvalid.next = self.nodes[1].s_axil_rvalid.val();
        self.bridge.m1_axil_rdata.next = self.nodes[1].s_axil_rdata.val();
        self.bridge.m1_axil_rresp.next = self.nodes[1].s_axil_rresp.val();
        self.nodes[0].m_axis_tx_tready.next = self.san.s_axis_tx0_tready.val();
        self.nodes[0].s_axis_rx_tvalid.next = self.san.m_axis_rx0_tvalid.val();
        self.nodes[0].s_axis_rx_tdata.next = self.san.m_axis_rx0_tdata.val();
        self.nodes[0].s_axis_rx_tkeep.next = self.san.m_axis_rx0_tkeep.val();
        self.nodes[0].s_axis_rx_tlast.next = self.san.m_axis_rx0_tlast.val();
        self.nodes[0].s_axis_rx_tuser.next = self.san.m_axis_rx0_tuser.val();
        self.nodes[0].s_axis_down_tvalid.next = self.san.m_axis_down0_tvalid.val();
        self.nodes[0].s_axis_down_conn.next = self.san.m_axis_down0_conn.val();
        self.nodes[0].m_axis_down_tready.next = self.san.s_axis_down0_tready.val();
        self.nodes[0].m_axis_rq_tready.next = self.san.s_axis_rq0_tready.val();
        self.nodes[0].s_axis_rs_tvalid.next = self.san.m_axis_rs0_tvalid.val();
        self.nodes[0].s_axis_rs_tag.next = self.san.m_axis_rs0_tag.val();
        self.nodes[0].s_axis_rs_status.next = self.san.m_axis_rs0_status.val();
        self.nodes[0].s_axis_ac_tvalid.next = self.san.m_axis_ac0_tvalid.val();
        self.nodes[0].s_axis_ac_conn.next = self.san.m_axis_ac0_conn.val();
        self.nodes[0].s_axis_ac_key.next = self.san.m_axis_ac0_key.val();
        self.nodes[0].s_axis_ac_write.next = self.san.m_axis_ac0_write.val();
        self.nodes[0].s_axis_ac_addr.next = self.san.m_axis_ac0_addr.val();
        self.nodes[0].s_axis_ac_len.next = self.san.m_axis_ac0_len.val();
        self.nodes[0].m_axis_ck_tready.next = self.san.s_axis_ck0_tready.val();
        self.san.s_axis_tx0_tvalid.next = self.nodes[0].m_axis_tx_tvalid.val();
        self.san.s_axis_tx0_tdata.next = self.nodes[0].m_axis_tx_tdata.val();
        self.san.s_axis_tx0_tkeep.next = self.nodes[0].m_axis_tx_tkeep.val();
        self.san.s_axis_tx0_tlast.next = self.nodes[0].m_axis_tx_tlast.val();
        self.san.s_axis_tx0_tuser.next = self.nodes[0].m_axis_tx_tuser.val();
        self.san.m_axis_rx0_tready.next = self.nodes[0].s_axis_rx_tready.val();
        self.san.m_axis_down0_tready.next = self.nodes[0].s_axis_down_tready.val();
        self.san.s_axis_down0_tvalid.next = self.nodes[0].m_axis_down_tvalid.val();
        self.san.s_axis_down0_conn.next = self.nodes[0].m_axis_down_conn.val();
        self.san.s_axis_rq0_tvalid.next = self.nodes[0].m_axis_rq_tvalid.val();
        self.san.s_axis_rq0_tag.next = self.nodes[0].m_axis_rq_tag.val();
        self.san.s_axis_rq0_write.next = self.nodes[0].m_axis_rq_write.val();
        self.san.s_axis_rq0_conn.next = self.nodes[0].m_axis_rq_conn.val();
        self.san.s_axis_rq0_raddr.next = self.nodes[0].m_axis_rq_raddr.val();
        self.san.s_axis_rq0_rkey.next = self.nodes[0].m_axis_rq_rkey.val();
        self.san.s_axis_rq0_laddr.next = self.nodes[0].m_axis_rq_laddr.val();
        self.san.s_axis_rq0_len.next = self.nodes[0].m_axis_rq_len.val();
        self.san.m_axis_rs0_tready.next = self.nodes[0].s_axis_rs_tready.val();
        self.san.m_axis_ac0_tready.next = self.nodes[0].s_axis_ac_tready.val();
        self.san.s_axis_ck0_tvalid.next = self.nodes[0].m_axis_ck_tvalid.val();
        self.san.s_axis_ck0_grant.next = self.nodes[0].m_axis_ck_grant.val();
        self.san.s_axis_ck0_reason.next = self.nodes[0].m_axis_ck_reason.val();
        self.nodes[0].s_lb_valid.next = self.san.m_mem0_valid.val();
        self.nodes[0].s_lb_write.next = self.san.m_mem0_write.val();
        self.nodes[0].s_lb_index.next = self.san.m_mem0_index.val();
        self.nodes[0].s_lb_wdata.next = self.san.m_mem0_wdata.val();
        self.nodes[0].s_lb_wmask.next = self.san.m_mem0_wmask.val();
        self.san.m_mem0_ready.next = self.nodes[0].s_lb_ready.val();
        self.san.s_mem0_rdata.next = self.nodes[0].s_lb_rdata.val();
        self.nodes[1].m_axis_tx_tready.next = self.san.s_axis_tx1_tready.val();
        self.nodes[1].s_axis_rx_tvalid.next = self.san.m_axis_rx1_tvalid.val();
        self.nodes[1].s_axis_rx_tdata.next = self.san.m_axis_rx1_tdata.val();
        self.nodes[1].s_axis_rx_tkeep.next = self.san.m_axis_rx1_tkeep.val();
        self.nodes[1].s_axis_rx_tlast.next = self.san.m_axis_rx1_tlast.val();
        self.nodes[1].s_axis_rx_tuser.next = self.san.m_axis_rx1_tuser.val();
        self.nodes[1].s_axis_down_tvalid.next = self.san.m_axis_down1_tvalid.val();
        self.nodes[1].s_axis_down_conn.next = self.san.m_axis_down1_conn.val();
        self.nodes[1].m_axis_down_tready.next = self.san.s_axis_down1_tready.val();
        self.nodes[1].m_axis_rq_tready.next = self.san.s_axis_rq1_tready.val();
        self.nodes[1].s_axis_rs_tvalid.next = self.san.m_axis_rs1_tvalid.val();
        self.nodes[1].s_axis_rs_tag.next = self.san.m_axis_rs1_tag.val();
        self.nodes[1].s_axis_rs_status.next = self.san.m_axis_rs1_status.val();
        self.nodes[1].s_axis_ac_tvalid.next = self.san.m_axis_ac1_tvalid.val();
        self.nodes[1].s_axis_ac_conn.next = self.san.m_axis_ac1_conn.val();
        self.nodes[1].s_axis_ac_key.next = self.san.m_axis_ac1_key.val();
        self.nodes[1].s_axis_ac_write.next = self.san.m_axis_ac1_write.val();
        self.nodes[1].s_axis_ac_addr.next = self.san.m_axis_ac1_addr.val();
        self.nodes[1].s_axis_ac_len.next = self.san.m_axis_ac1_len.val();
        self.nodes[1].m_axis_ck_tready.next = self.san.s_axis_ck1_tready.val();
        self.san.s_axis_tx1_tvalid.next = self.nodes[1].m_axis_tx_tvalid.val();
        self.san.s_axis_tx1_tdata.next = self.nodes[1].m_axis_tx_tdata.val();
        self.san.s_axis_tx1_tkeep.next = self.nodes[1].m_axis_tx_tkeep.val();
        self.san.s_axis_tx1_tlast.next = self.nodes[1].m_axis_tx_tlast.val();
        self.san.s_axis_tx1_tuser.next = self.nodes[1].m_axis_tx_tuser.val();
        self.san.m_axis_rx1_tready.next = self.nodes[1].s_axis_rx_tready.val();
        self.san.m_axis_down1_tready.next = self.nodes[1].s_axis_down_tready.val();
        self.san.s_axis_down1_tvalid.next = self.nodes[1].m_axis_down_tvalid.val();
        self.san.s_axis_down1_conn.next = self.nodes[1].m_axis_down_conn.val();
        self.san.s_axis_rq1_tvalid.next = self.nodes[1].m_axis_rq_tvalid.val();
        self.san.s_axis_rq1_tag.next = self.nodes[1].m_axis_rq_tag.val();
        self.san.s_axis_rq1_write.next = self.nodes[1].m_axis_rq_write.val();
        self.san.s_axis_rq1_conn.next = self.nodes[1].m_axis_rq_conn.val();
        self.san.s_axis_rq1_raddr.next = self.nodes[1].m_axis_rq_raddr.val();
        self.san.s_axis_rq1_rkey.next = self.nodes[1].m_axis_rq_rkey.val();
        self.san.s_axis_rq1_laddr.next = self.nodes[1].m_axis_rq_laddr.val();
        self.san.s_axis_rq1_len.next = self.nodes[1].m_axis_rq_len.val();
        self.san.m_axis_rs1_tready.next = self.nodes[1].s_axis_rs_tready.val();
        self.san.m_axis_ac1_tready.next = self.nodes[1].s_axis_ac_tready.val();
        self.san.s_axis_ck1_tvalid.next = self.nodes[1].m_axis_ck_tvalid.val();
        self.san.s_axis_ck1_grant.next = self.nodes[1].m_axis_ck_grant.val();
        self.san.s_axis_ck1_reason.next = self.nodes[1].m_axis_ck_reason.val();
        self.nodes[1].s_lb_valid.next = self.san.m_mem1_valid.val();
        self.nodes[1].s_lb_write.next = self.san.m_mem1_write.val();
        self.nodes[1].s_lb_index.next = self.san.m_mem1_index.val();
        self.nodes[1].s_lb_wdata.next = self.san.m_mem1_wdata.val();
        self.nodes[1].s_lb_wmask.next = self.san.m_mem1_wmask.val();
        self.san.m_mem1_ready.next = self.nodes[1].s_lb_ready.val();
        self.san.s_mem1_rdata.next = self.nodes[1].s_lb_rdata.val();
    }
}
