//! The NIC top: the host interface in front of the engine, both on one host-memory port
//! through the multiplexer ([`DmaMux`], steered by the arbiter [`DmaArb`]). Ports and behaviour: `sanswitch_model::blocks::nic`
//! (the cycle model it is checked against), whose port tables this module's ports follow.
//!
//! # Ports
//! - `s_axil_*`: the register port (`docs/REGISTERS.md`); `cq_event`: the completion
//!   ring's event.
//! - `m_axis_dmard_*` / `s_axis_dmard_*` / `m_axis_dmawr_*`: host memory, as the engine's
//!   port, shared by ring fetches, completion writes and the engine's data.
//! - The engine's SAN port and `fault_nomem`, passed through.
//!
//! # Timing
//! No register between the units: the multiplexer's grants are combinational, the command and
//! completion streams pass as they are.

pub mod dma_arb;
pub mod dma_mux;

use rust_hdl::prelude::*;

use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

pub use dma_arb::DmaArb;
pub use dma_mux::DmaMux;

use crate::engine::Engine;
use crate::hostif::HostIf;

#[derive(LogicBlock)]
pub struct Nic<const A: usize, const Q: usize> {
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
    pub m_axis_dmard_tready: Signal<In, Bit>,
    pub s_axis_dmard_tvalid: Signal<In, Bit>,
    pub s_axis_dmard_tdata: Signal<In, Bits<64>>,
    pub s_axis_dmard_tkeep: Signal<In, Bits<8>>,
    pub s_axis_dmard_tlast: Signal<In, Bit>,
    pub m_axis_dmawr_tready: Signal<In, Bit>,
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
    pub fault_nomem: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub m_axis_dmard_tvalid: Signal<Out, Bit>,
    pub m_axis_dmard_addr: Signal<Out, Bits<64>>,
    pub m_axis_dmard_len: Signal<Out, Bits<32>>,
    pub s_axis_dmard_tready: Signal<Out, Bit>,
    pub m_axis_dmawr_tvalid: Signal<Out, Bit>,
    pub m_axis_dmawr_addr: Signal<Out, Bits<64>>,
    pub m_axis_dmawr_tdata: Signal<Out, Bits<64>>,
    pub m_axis_dmawr_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_dmawr_tlast: Signal<Out, Bit>,
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
    pub cq_event: Signal<Out, Bits<8>>,
    pub host: HostIf<Q>,
    pub engine: Engine<A>,
    dma: DmaMux,
}

impl<const A: usize, const Q: usize> Nic<A, Q> {
    pub fn new(p: &EngineParams, h: &HostParams) -> Self {
        Nic {
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
            m_axis_dmard_tready: Default::default(),
            s_axis_dmard_tvalid: Default::default(),
            s_axis_dmard_tdata: Default::default(),
            s_axis_dmard_tkeep: Default::default(),
            s_axis_dmard_tlast: Default::default(),
            m_axis_dmawr_tready: Default::default(),
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
            fault_nomem: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            m_axis_dmard_tvalid: Default::default(),
            m_axis_dmard_addr: Default::default(),
            m_axis_dmard_len: Default::default(),
            s_axis_dmard_tready: Default::default(),
            m_axis_dmawr_tvalid: Default::default(),
            m_axis_dmawr_addr: Default::default(),
            m_axis_dmawr_tdata: Default::default(),
            m_axis_dmawr_tkeep: Default::default(),
            m_axis_dmawr_tlast: Default::default(),
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
            cq_event: Default::default(),
            host: HostIf::new(p, h),
            engine: Engine::new(p),
            dma: DmaMux::new(),
        }
    }
}

impl<const A: usize, const Q: usize> Logic for Nic<A, Q> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, host, engine, dma);
        self.host.reset.next = self.reset.val();
        self.engine.reset.next = self.reset.val();
        self.dma.reset.next = self.reset.val();
        // The register port and the event.
        self.host.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.host.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.host.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.host.s_axil_wdata.next = self.s_axil_wdata.val();
        self.host.s_axil_bready.next = self.s_axil_bready.val();
        self.host.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.host.s_axil_araddr.next = self.s_axil_araddr.val();
        self.host.s_axil_rready.next = self.s_axil_rready.val();
        self.s_axil_awready.next = self.host.s_axil_awready.val();
        self.s_axil_wready.next = self.host.s_axil_wready.val();
        self.s_axil_bvalid.next = self.host.s_axil_bvalid.val();
        self.s_axil_bresp.next = self.host.s_axil_bresp.val();
        self.s_axil_arready.next = self.host.s_axil_arready.val();
        self.s_axil_rvalid.next = self.host.s_axil_rvalid.val();
        self.s_axil_rdata.next = self.host.s_axil_rdata.val();
        self.s_axil_rresp.next = self.host.s_axil_rresp.val();
        self.cq_event.next = self.host.cq_event.val();
        // The SAN port is the engine's.
        self.engine.m_axis_tx_tready.next = self.m_axis_tx_tready.val();
        self.engine.s_axis_rx_tvalid.next = self.s_axis_rx_tvalid.val();
        self.engine.s_axis_rx_tdata.next = self.s_axis_rx_tdata.val();
        self.engine.s_axis_rx_tkeep.next = self.s_axis_rx_tkeep.val();
        self.engine.s_axis_rx_tlast.next = self.s_axis_rx_tlast.val();
        self.engine.s_axis_rx_tuser.next = self.s_axis_rx_tuser.val();
        self.engine.s_axis_down_tvalid.next = self.s_axis_down_tvalid.val();
        self.engine.s_axis_down_conn.next = self.s_axis_down_conn.val();
        self.engine.m_axis_down_tready.next = self.m_axis_down_tready.val();
        self.engine.m_axis_rq_tready.next = self.m_axis_rq_tready.val();
        self.engine.s_axis_rs_tvalid.next = self.s_axis_rs_tvalid.val();
        self.engine.s_axis_rs_tag.next = self.s_axis_rs_tag.val();
        self.engine.s_axis_rs_status.next = self.s_axis_rs_status.val();
        self.engine.s_axis_ac_tvalid.next = self.s_axis_ac_tvalid.val();
        self.engine.s_axis_ac_conn.next = self.s_axis_ac_conn.val();
        self.engine.s_axis_ac_key.next = self.s_axis_ac_key.val();
        self.engine.s_axis_ac_write.next = self.s_axis_ac_write.val();
        self.engine.s_axis_ac_addr.next = self.s_axis_ac_addr.val();
        self.engine.s_axis_ac_len.next = self.s_axis_ac_len.val();
        self.engine.m_axis_ck_tready.next = self.m_axis_ck_tready.val();
        self.engine.fault_nomem.next = self.fault_nomem.val();
        self.m_axis_tx_tvalid.next = self.engine.m_axis_tx_tvalid.val();
        self.m_axis_tx_tdata.next = self.engine.m_axis_tx_tdata.val();
        self.m_axis_tx_tkeep.next = self.engine.m_axis_tx_tkeep.val();
        self.m_axis_tx_tlast.next = self.engine.m_axis_tx_tlast.val();
        self.m_axis_tx_tuser.next = self.engine.m_axis_tx_tuser.val();
        self.s_axis_rx_tready.next = self.engine.s_axis_rx_tready.val();
        self.s_axis_down_tready.next = self.engine.s_axis_down_tready.val();
        self.m_axis_down_tvalid.next = self.engine.m_axis_down_tvalid.val();
        self.m_axis_down_conn.next = self.engine.m_axis_down_conn.val();
        self.m_axis_rq_tvalid.next = self.engine.m_axis_rq_tvalid.val();
        self.m_axis_rq_tag.next = self.engine.m_axis_rq_tag.val();
        self.m_axis_rq_write.next = self.engine.m_axis_rq_write.val();
        self.m_axis_rq_conn.next = self.engine.m_axis_rq_conn.val();
        self.m_axis_rq_raddr.next = self.engine.m_axis_rq_raddr.val();
        self.m_axis_rq_rkey.next = self.engine.m_axis_rq_rkey.val();
        self.m_axis_rq_laddr.next = self.engine.m_axis_rq_laddr.val();
        self.m_axis_rq_lkey.next = self.engine.m_axis_rq_lkey.val();
        self.m_axis_rq_len.next = self.engine.m_axis_rq_len.val();
        self.s_axis_rs_tready.next = self.engine.s_axis_rs_tready.val();
        self.s_axis_ac_tready.next = self.engine.s_axis_ac_tready.val();
        self.m_axis_ck_tvalid.next = self.engine.m_axis_ck_tvalid.val();
        self.m_axis_ck_grant.next = self.engine.m_axis_ck_grant.val();
        self.m_axis_ck_reason.next = self.engine.m_axis_ck_reason.val();

        // Between the units: commands, completions, the counter port.
        self.engine.s_axis_cmd_tvalid.next = self.host.m_axis_cmd_tvalid.val();
        self.engine.s_axis_cmd_opcode.next = self.host.m_axis_cmd_opcode.val();
        self.engine.s_axis_cmd_conn.next = self.host.m_axis_cmd_conn.val();
        self.engine.s_axis_cmd_tag.next = self.host.m_axis_cmd_tag.val();
        self.engine.s_axis_cmd_addr.next = self.host.m_axis_cmd_addr.val();
        self.engine.s_axis_cmd_len.next = self.host.m_axis_cmd_len.val();
        self.engine.s_axis_cmd_aux.next = self.host.m_axis_cmd_aux.val();
        self.host.m_axis_cmd_tready.next = self.engine.s_axis_cmd_tready.val();
        self.host.s_axis_cpl_tvalid.next = self.engine.m_axis_cpl_tvalid.val();
        self.host.s_axis_cpl_tag.next = self.engine.m_axis_cpl_tag.val();
        self.host.s_axis_cpl_bytes.next = self.engine.m_axis_cpl_bytes.val();
        self.host.s_axis_cpl_conn.next = self.engine.m_axis_cpl_conn.val();
        self.host.s_axis_cpl_status.next = self.engine.m_axis_cpl_status.val();
        self.host.s_axis_cpl_opcode.next = self.engine.m_axis_cpl_opcode.val();
        self.host.s_axis_cpl_urgent.next = self.engine.m_axis_cpl_urgent.val();
        self.host.s_axis_cpl_eof.next = self.engine.m_axis_cpl_eof.val();
        self.engine.m_axis_cpl_tready.next = self.host.s_axis_cpl_tready.val();
        self.engine.cnt_rd_index.next = self.host.cnt_rd_index.val();
        self.host.cnt_rd_data.next = self.engine.cnt_rd_data.val();

        // Host memory: the two masters on the one port.
        self.dma.s_axis_hrd_tvalid.next = self.host.m_axis_fetch_tvalid.val();
        self.dma.s_axis_hrd_addr.next = self.host.m_axis_fetch_addr.val();
        self.dma.s_axis_hrd_len.next = self.host.m_axis_fetch_len.val();
        self.host.m_axis_fetch_tready.next = self.dma.s_axis_hrd_tready.val();
        self.dma.s_axis_erd_tvalid.next = self.engine.m_axis_dmard_tvalid.val();
        self.dma.s_axis_erd_addr.next = self.engine.m_axis_dmard_addr.val();
        self.dma.s_axis_erd_len.next = self.engine.m_axis_dmard_len.val();
        self.engine.m_axis_dmard_tready.next = self.dma.s_axis_erd_tready.val();
        self.dma.m_axis_dmard_tready.next = self.m_axis_dmard_tready.val();
        self.m_axis_dmard_tvalid.next = self.dma.m_axis_dmard_tvalid.val();
        self.m_axis_dmard_addr.next = self.dma.m_axis_dmard_addr.val();
        self.m_axis_dmard_len.next = self.dma.m_axis_dmard_len.val();
        self.dma.s_axis_dmard_tvalid.next = self.s_axis_dmard_tvalid.val();
        self.dma.s_axis_dmard_tlast.next = self.s_axis_dmard_tlast.val();
        self.s_axis_dmard_tready.next = self.dma.s_axis_dmard_tready.val();
        self.host.s_axis_fetch_tvalid.next = self.dma.m_axis_hrdd_tvalid.val();
        self.host.s_axis_fetch_tdata.next = self.s_axis_dmard_tdata.val();
        self.host.s_axis_fetch_tlast.next = self.s_axis_dmard_tlast.val();
        self.dma.m_axis_hrdd_tready.next = self.host.s_axis_fetch_tready.val();
        self.engine.s_axis_dmard_tvalid.next = self.dma.m_axis_erdd_tvalid.val();
        self.engine.s_axis_dmard_tdata.next = self.s_axis_dmard_tdata.val();
        self.engine.s_axis_dmard_tkeep.next = self.s_axis_dmard_tkeep.val();
        self.engine.s_axis_dmard_tlast.next = self.s_axis_dmard_tlast.val();
        self.dma.m_axis_erdd_tready.next = self.engine.s_axis_dmard_tready.val();
        self.dma.s_axis_hwr_tvalid.next = self.host.m_axis_cqwr_tvalid.val();
        self.dma.s_axis_hwr_addr.next = self.host.m_axis_cqwr_addr.val();
        self.dma.s_axis_hwr_tdata.next = self.host.m_axis_cqwr_tdata.val();
        self.dma.s_axis_hwr_tkeep.next = self.host.m_axis_cqwr_tkeep.val();
        self.dma.s_axis_hwr_tlast.next = self.host.m_axis_cqwr_tlast.val();
        self.host.m_axis_cqwr_tready.next = self.dma.s_axis_hwr_tready.val();
        self.dma.s_axis_ewr_tvalid.next = self.engine.m_axis_dmawr_tvalid.val();
        self.dma.s_axis_ewr_addr.next = self.engine.m_axis_dmawr_addr.val();
        self.dma.s_axis_ewr_tdata.next = self.engine.m_axis_dmawr_tdata.val();
        self.dma.s_axis_ewr_tkeep.next = self.engine.m_axis_dmawr_tkeep.val();
        self.dma.s_axis_ewr_tlast.next = self.engine.m_axis_dmawr_tlast.val();
        self.engine.m_axis_dmawr_tready.next = self.dma.s_axis_ewr_tready.val();
        self.dma.m_axis_dmawr_tready.next = self.m_axis_dmawr_tready.val();
        self.m_axis_dmawr_tvalid.next = self.dma.m_axis_dmawr_tvalid.val();
        self.m_axis_dmawr_addr.next = self.dma.m_axis_dmawr_addr.val();
        self.m_axis_dmawr_tdata.next = self.dma.m_axis_dmawr_tdata.val();
        self.m_axis_dmawr_tkeep.next = self.dma.m_axis_dmawr_tkeep.val();
        self.m_axis_dmawr_tlast.next = self.dma.m_axis_dmawr_tlast.val();
    }
}
