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
//! [`Bridge`]'s register masters `m_axil_*[k]` drive node `k`'s `s_axil_*`; its word port
//! goes to the node `m_mem_node` names (`s_br_*`), its read data back from that node.
//! [`SanLoop`]'s node-`k` ports (`[k]`) meet node `k`'s SAN port and its memory's second
//! word-port master (`s_lb_*`). Both blocks' per-node ports are two-element arrays, so one loop
//! wires each node. A request's `lkey` is not the loopback's business (the initiator
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
        // Node k's register port, SAN port and the loopback's master on its memory.
        for k in 0..2 {
            self.nodes[k].s_axil_awvalid.next = self.bridge.m_axil_awvalid[k].val();
            self.nodes[k].s_axil_awaddr.next = self.bridge.m_axil_awaddr[k].val();
            self.nodes[k].s_axil_wvalid.next = self.bridge.m_axil_wvalid[k].val();
            self.nodes[k].s_axil_wdata.next = self.bridge.m_axil_wdata[k].val();
            self.nodes[k].s_axil_bready.next = self.bridge.m_axil_bready[k].val();
            self.nodes[k].s_axil_arvalid.next = self.bridge.m_axil_arvalid[k].val();
            self.nodes[k].s_axil_araddr.next = self.bridge.m_axil_araddr[k].val();
            self.nodes[k].s_axil_rready.next = self.bridge.m_axil_rready[k].val();
            self.bridge.m_axil_awready[k].next = self.nodes[k].s_axil_awready.val();
            self.bridge.m_axil_wready[k].next = self.nodes[k].s_axil_wready.val();
            self.bridge.m_axil_bvalid[k].next = self.nodes[k].s_axil_bvalid.val();
            self.bridge.m_axil_bresp[k].next = self.nodes[k].s_axil_bresp.val();
            self.bridge.m_axil_arready[k].next = self.nodes[k].s_axil_arready.val();
            self.bridge.m_axil_rvalid[k].next = self.nodes[k].s_axil_rvalid.val();
            self.bridge.m_axil_rdata[k].next = self.nodes[k].s_axil_rdata.val();
            self.bridge.m_axil_rresp[k].next = self.nodes[k].s_axil_rresp.val();
            self.nodes[k].m_axis_tx_tready.next = self.san.s_axis_tx_tready[k].val();
            self.nodes[k].s_axis_rx_tvalid.next = self.san.m_axis_rx_tvalid[k].val();
            self.nodes[k].s_axis_rx_tdata.next = self.san.m_axis_rx_tdata[k].val();
            self.nodes[k].s_axis_rx_tkeep.next = self.san.m_axis_rx_tkeep[k].val();
            self.nodes[k].s_axis_rx_tlast.next = self.san.m_axis_rx_tlast[k].val();
            self.nodes[k].s_axis_rx_tuser.next = self.san.m_axis_rx_tuser[k].val();
            self.nodes[k].s_axis_down_tvalid.next = self.san.m_axis_down_tvalid[k].val();
            self.nodes[k].s_axis_down_conn.next = self.san.m_axis_down_conn[k].val();
            self.nodes[k].m_axis_down_tready.next = self.san.s_axis_down_tready[k].val();
            self.nodes[k].m_axis_rq_tready.next = self.san.s_axis_rq_tready[k].val();
            self.nodes[k].s_axis_rs_tvalid.next = self.san.m_axis_rs_tvalid[k].val();
            self.nodes[k].s_axis_rs_tag.next = self.san.m_axis_rs_tag[k].val();
            self.nodes[k].s_axis_rs_status.next = self.san.m_axis_rs_status[k].val();
            self.nodes[k].s_axis_ac_tvalid.next = self.san.m_axis_ac_tvalid[k].val();
            self.nodes[k].s_axis_ac_conn.next = self.san.m_axis_ac_conn[k].val();
            self.nodes[k].s_axis_ac_key.next = self.san.m_axis_ac_key[k].val();
            self.nodes[k].s_axis_ac_write.next = self.san.m_axis_ac_write[k].val();
            self.nodes[k].s_axis_ac_addr.next = self.san.m_axis_ac_addr[k].val();
            self.nodes[k].s_axis_ac_len.next = self.san.m_axis_ac_len[k].val();
            self.nodes[k].m_axis_ck_tready.next = self.san.s_axis_ck_tready[k].val();
            self.nodes[k].s_lb_valid.next = self.san.m_mem_valid[k].val();
            self.nodes[k].s_lb_write.next = self.san.m_mem_write[k].val();
            self.nodes[k].s_lb_index.next = self.san.m_mem_index[k].val();
            self.nodes[k].s_lb_wdata.next = self.san.m_mem_wdata[k].val();
            self.nodes[k].s_lb_wmask.next = self.san.m_mem_wmask[k].val();
            self.san.s_axis_tx_tvalid[k].next = self.nodes[k].m_axis_tx_tvalid.val();
            self.san.s_axis_tx_tdata[k].next = self.nodes[k].m_axis_tx_tdata.val();
            self.san.s_axis_tx_tkeep[k].next = self.nodes[k].m_axis_tx_tkeep.val();
            self.san.s_axis_tx_tlast[k].next = self.nodes[k].m_axis_tx_tlast.val();
            self.san.s_axis_tx_tuser[k].next = self.nodes[k].m_axis_tx_tuser.val();
            self.san.m_axis_rx_tready[k].next = self.nodes[k].s_axis_rx_tready.val();
            self.san.m_axis_down_tready[k].next = self.nodes[k].s_axis_down_tready.val();
            self.san.s_axis_down_tvalid[k].next = self.nodes[k].m_axis_down_tvalid.val();
            self.san.s_axis_down_conn[k].next = self.nodes[k].m_axis_down_conn.val();
            self.san.s_axis_rq_tvalid[k].next = self.nodes[k].m_axis_rq_tvalid.val();
            self.san.s_axis_rq_tag[k].next = self.nodes[k].m_axis_rq_tag.val();
            self.san.s_axis_rq_write[k].next = self.nodes[k].m_axis_rq_write.val();
            self.san.s_axis_rq_conn[k].next = self.nodes[k].m_axis_rq_conn.val();
            self.san.s_axis_rq_raddr[k].next = self.nodes[k].m_axis_rq_raddr.val();
            self.san.s_axis_rq_rkey[k].next = self.nodes[k].m_axis_rq_rkey.val();
            self.san.s_axis_rq_laddr[k].next = self.nodes[k].m_axis_rq_laddr.val();
            self.san.s_axis_rq_len[k].next = self.nodes[k].m_axis_rq_len.val();
            self.san.m_axis_rs_tready[k].next = self.nodes[k].s_axis_rs_tready.val();
            self.san.m_axis_ac_tready[k].next = self.nodes[k].s_axis_ac_tready.val();
            self.san.s_axis_ck_tvalid[k].next = self.nodes[k].m_axis_ck_tvalid.val();
            self.san.s_axis_ck_grant[k].next = self.nodes[k].m_axis_ck_grant.val();
            self.san.s_axis_ck_reason[k].next = self.nodes[k].m_axis_ck_reason.val();
            self.san.m_mem_ready[k].next = self.nodes[k].s_lb_ready.val();
            self.san.s_mem_rdata[k].next = self.nodes[k].s_lb_rdata.val();
        }
    }
}
